"""Real camera photos of printed marker sheets (tests/vision/data, OpenCV's ArUco tutorial
photos; layouts in data/*.layout.json): every marker found, poses against the printed layout,
and sigmas that cover the truth (DESIGN.md: "the sigmas are a promise"; issue 13: at least 95%
of the units within 3 sigma on real photos, median error/sigma at least 0.3)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import detect
from vision.detect import find_markers, to_gray
from vision.markers import load_markers

from .real_photos import PHOTOS, TABLE_SETS, cases, layout, photo, table_for


def _errors(scene: dict, truth: dict) -> np.ndarray:
    """Per unit: position error (mm), facing error (deg), sigma_mm, sigma_deg."""
    rows = []
    for u in scene["units"]:
        x, y, f = truth[u["id"]]
        rows.append((math.hypot(u["x"] - x, u["y"] - y),
                     abs((u["facing"] - f + 180) % 360 - 180), u["sigma_mm"], u["sigma_deg"]))
    return np.array(rows)


@pytest.fixture(scope="module")
def detected() -> dict[tuple[str, tuple[int, ...]], tuple[dict, dict]]:
    """Every case (photo, table markers) detected once: four table markers, and each three."""
    out = {}
    for name, ids in cases():
        markers, truth = table_for(PHOTOS[name], ids)
        out[(name, ids)] = (detect(photo(name), markers), truth)
    return out


def test_every_marker_and_unit_of_the_real_photos_is_found(detected):
    for name, lay in PHOTOS.items():
        ids = TABLE_SETS[lay][0]
        scene, truth = detected[(name, ids)]
        det = scene["detection"]
        assert det["table_markers_used"] == sorted(ids), name
        assert det["missing_units"] == [] and det["unknown_markers"] == [], name
        assert {u["id"] for u in scene["units"]} == set(truth), name
        assert det["rejected_markers"] == [], name


def test_real_photo_poses_match_the_printed_layout(detected):
    """Four table markers: the markers alone decide (a unit is its marker), and the poses
    land within the print's own accuracy (one plane through all markers leaves their centres
    0.16-0.25 mm RMS off the layout). Measured: position p95 0.49-0.94 mm, facing p95 0.17-0.67
    deg over the five four-marker cases; pooled position p95 0.79 mm (max 1.16), facing p95
    0.46 deg (the facing read from each marker's whole border; from its four corners alone it
    was 0.52, and a plain cv2 homography through the table markers' corners gives 1.22 mm and
    1.34 deg)."""
    pooled = []
    for (name, ids), (scene, truth) in detected.items():
        if len(ids) != 4:
            continue
        e = _errors(scene, truth)
        pooled.append(e)
        assert np.percentile(e[:, 0], 95) <= 1.0, (name, ids, e[:, 0])
        assert e[:, 0].max() <= 1.2, (name, ids, e[:, 0])
        assert np.percentile(e[:, 1], 95) <= 0.9, (name, ids, e[:, 1])
        for u in scene["units"]:
            assert u["pose_evidence"]["used"] == "marker"
            assert "no larger than its marker" in u["pose_evidence"]["why"]
    e = np.vstack(pooled)
    assert np.percentile(e[:, 0], 95) <= 0.85 and np.percentile(e[:, 1], 95) <= 0.5
    border = [u for (_, ids), (s, _) in detected.items() if len(ids) == 4 for u in s["units"]
              if "fitted to its border" in u["pose_evidence"]["why"]]
    assert len(border) >= 0.8 * len(e)


def test_real_photo_sigmas_cover_the_truth_and_are_not_uselessly_large(detected):
    """Pooled over every case (4 and 3 table markers): the share of units with both errors
    within 3 sigma (measured 100%), and the median error/sigma (measured ~0.7 for position)."""
    e = np.vstack([_errors(s, t) for s, t in detected.values()])
    inside = (e[:, 0] <= 3 * e[:, 2]) & (e[:, 1] <= 3 * e[:, 3])
    assert inside.mean() >= 0.99, inside.mean()
    assert np.median(e[:, 0] / e[:, 2]) >= 0.3
    assert np.median(e[:, 1] / e[:, 3]) >= 0.3


def test_three_table_markers_are_named_and_widen_the_sigma(detected):
    """With markers 0, 1 and 15 of the board only (16 left out), positions far from them are
    off by 1-2 mm on this photo: the warning names the three, and the sigma grows to cover it."""
    four, _ = detected[("img_00.jpg", (0, 1, 15, 16))]
    three, truth = detected[("img_00.jpg", (0, 1, 15))]
    warn = [w for w in three["detection"]["warnings"] if "only three table markers" in w]
    assert len(warn) == 1 and "(0, 1, 15)" in warn[0]
    assert not any("only three" in w for w in four["detection"]["warnings"])
    s4 = {u["id"]: u["sigma_mm"] for u in four["units"]}
    s3 = {u["id"]: u["sigma_mm"] for u in three["units"]}
    far = "m14"  # at (180, 60) mm, the far corner from markers 0, 1 and 15
    assert s3[far] > 3 * s4[far]
    e = _errors(three, truth)
    assert e[:, 0].max() > 1.5  # the photo really is that far off with three markers...
    assert (e[:, 0] <= 3 * e[:, 2]).all()  # ...and the sigmas say so


@pytest.mark.parametrize("scale", [1.0, 0.55, 0.45])
def test_our_marker_search_finds_whatever_opencvs_default_detector_finds(scale):
    """OpenCV's own detector (default parameters: threshold windows 3, 13 and 23 px) is the
    floor: on the real photos and on them shrunk until the markers are 13-20 px across, every
    marker it finds is found, and more."""
    for name, lay in PHOTOS.items():
        img = photo(name)
        if scale != 1.0:
            img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        markers, _ = table_for(lay, TABLE_SETS[lay][0])
        ms = load_markers(markers)
        det = cv2.aruco.ArucoDetector(ms.aruco_dictionary, cv2.aruco.DetectorParameters())
        _, ids, _ = det.detectMarkers(to_gray(img))
        theirs = set() if ids is None else set(ids.ravel().tolist())
        ours = {i for i, _ in find_markers(to_gray(img), ms)}
        assert theirs <= ours, (name, scale, sorted(theirs - ours))
        if scale == 0.45 and name == "img_01.jpg":
            assert 16 in ours  # 13 px across: found by the 13 px window OpenCV also uses


def test_layouts_are_what_the_prints_say():
    """The layout files: a 5 x 7 ChArUco board of 20 mm markers on 40 mm squares, and the
    single-marker sheet's six 25.4 mm markers, two of them turned."""
    board = layout("charuco_5x7")
    assert len(board["markers"]) == 17 and board["sheet_mm"] == [200.0, 280.0]
    assert {m["size_mm"] for m in board["markers"]} == {20.0}
    sheet = {m["id"]: m for m in layout("singlemarkers")["markers"]}
    assert set(sheet) == {23, 40, 62, 98, 124, 203}
    assert (sheet[62]["facing"], sheet[124]["facing"]) == (-90.0, 0.0)
