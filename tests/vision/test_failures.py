"""Honest failures (issue 4): no table markers, too few, a tray marker seen twice, a unit not
found (reported, never guessed), a look-alike of the wrong size, an unreadable image."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from vision import DetectionError, detect
from vision.detect import find_markers
from vision.markers import load_markers


def _marker_boxes(r):
    ms = load_markers(r.markers)
    gray = r.image[..., 1]
    return {i: q for i, q in find_markers(np.ascontiguousarray(gray), ms)}


def _paint_over(img, quad, grow=1.6):
    c = quad.mean(axis=0)
    pts = ((quad - c) * grow + c).astype(np.int32)
    out = img.copy()
    import cv2

    cv2.fillConvexPoly(out, pts, (60, 100, 70))
    return out


def test_no_table_markers_is_an_error(table_40mm):
    markers = copy.deepcopy(table_40mm.markers)
    for k, m in enumerate(markers["table"]["markers"]):
        m["id"] = 40 + k  # ids that are not printed on this table
    with pytest.raises(DetectionError, match="no table markers found"):
        detect(table_40mm.image, markers)


def test_too_few_table_markers_names_the_missing_ones(table_40mm):
    boxes = _marker_boxes(table_40mm)
    img = _paint_over(_paint_over(table_40mm.image, boxes[1]), boxes[3])
    with pytest.raises(DetectionError, match=r"too few table markers: found \[0, 2\], "
                                             r"missing \[1, 3\]"):
        detect(img, table_40mm.markers)


def test_three_table_markers_are_enough_and_the_missing_one_is_named(table_40mm):
    boxes = _marker_boxes(table_40mm)
    img = _paint_over(table_40mm.image, boxes[2])
    scene = detect(img, table_40mm.markers)
    det = scene["detection"]
    assert det["table_markers_missing"] == [2]
    assert any("[2]" in w for w in det["warnings"])
    assert len(scene["units"]) == len(table_40mm.scene["units"])


def test_unit_not_found_is_reported_not_guessed(table_40mm):
    boxes = _marker_boxes(table_40mm)
    gone = table_40mm.markers["units"][3]
    img = _paint_over(table_40mm.image, boxes[gone["marker"]])
    scene = detect(img, table_40mm.markers)
    assert gone["id"] not in [u["id"] for u in scene["units"]]
    assert scene["detection"]["missing_units"] == [gone["id"]]
    assert any(gone["id"] in w for w in scene["detection"]["warnings"])


def _copy_patch(img, quad, dest, scale=1.0):
    """Paste the marker (with its white margin) elsewhere, optionally scaled."""
    import cv2

    c = quad.mean(axis=0)
    half = int(np.abs(quad - c).max() * 1.45) + 2
    x, y = int(c[0]), int(c[1])
    patch = img[y - half:y + half, x - half:x + half]
    if scale != 1.0:
        patch = cv2.resize(patch, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    out = img.copy()
    dx, dy = dest
    out[dy:dy + patch.shape[0], dx:dx + patch.shape[1]] = patch
    return out


def _empty_spot(r, size):
    """A spot of mat far from every marker (top-left quarter of the table area)."""
    h, w = r.image.shape[:2]
    rng = np.random.default_rng(0)
    boxes = _marker_boxes(r)
    for _ in range(500):
        x, y = int(rng.uniform(0.2 * w, 0.8 * w - size)), int(rng.uniform(0.2 * h, 0.8 * h - size))
        if all(np.linalg.norm(q.mean(axis=0) - [x + size / 2, y + size / 2]) > size * 1.6
               for q in boxes.values()):
            return x, y
    raise AssertionError("no empty spot")


def test_a_tray_marker_seen_twice_is_an_error(table_40mm):
    boxes = _marker_boxes(table_40mm)
    unit = table_40mm.markers["units"][0]
    img = _copy_patch(table_40mm.image, boxes[unit["marker"]], _empty_spot(table_40mm, 80))
    with pytest.raises(DetectionError, match=rf"tray marker {unit['marker']} of unit "
                                             rf"'{unit['id']}' is seen twice"):
        detect(img, table_40mm.markers)


def test_a_look_alike_of_the_wrong_size_is_rejected(table_40mm):
    """A quad that decodes as a tray marker but is twice the printed size is not that marker."""
    boxes = _marker_boxes(table_40mm)
    unit = table_40mm.markers["units"][1]
    img = _copy_patch(table_40mm.image, boxes[unit["marker"]], _empty_spot(table_40mm, 150),
                      scale=2.0)
    scene = detect(img, table_40mm.markers)
    det = scene["detection"]
    assert [r["unit"] for r in det["rejected_markers"]] == [unit["id"]]
    assert "not 40 mm" in det["rejected_markers"][0]["reason"]
    assert unit["id"] in [u["id"] for u in scene["units"]]  # the real one is still used


@pytest.mark.parametrize("image, message", [
    (None, "expected a decoded image"),
    (b"\xff\xd8 not decoded", "expected a decoded image"),
    (np.zeros((0, 0, 3), np.uint8), "not a picture"),
    (np.zeros((20, 20), np.uint8), "too small"),
    (np.zeros((100, 100, 2), np.uint8), "2 channels"),
    (np.full((100, 100), np.nan), "non-finite"),
])
def test_unreadable_images_are_named(table_40mm, image, message):
    with pytest.raises(DetectionError, match=message):
        detect(image, table_40mm.markers)


def test_a_blank_photo_has_no_table_markers(table_40mm):
    with pytest.raises(DetectionError, match="no table markers found"):
        detect(np.full((480, 640, 3), 128, np.uint8), table_40mm.markers)
