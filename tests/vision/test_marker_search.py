"""The marker search (vision.marker_search): quads ArUco cannot read are read again for the
missing markers, in any turn, within the dictionary's correction capacity."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.marker_search import find_markers, read_missing
from vision.markers import load_markers

MARKERS = {"dictionary": "DICT_4X4_50",
           "table": {"width_mm": 1000, "depth_mm": 1000,
                     "markers": [{"id": 0, "x": 100, "y": 100, "size_mm": 60}]},
           "units": [{"marker": 7, "marker_size_mm": 40, "id": "a", "side": "red",
                      "base": [50, 50], "files": 1, "ranks": 1}]}


def _sheet(*flips: tuple[int, int], cell: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """Marker 7 on white paper, optionally with one inner cell of the wrong colour (a speck of
    dirt, a glare spot), slightly turned and blurred; and its true corners (ArUco order)."""
    ms = load_markers(MARKERS)
    bits = cv2.aruco.generateImageMarker(ms.aruco_dictionary, 7, 6, borderBits=1)
    for r, c in flips:
        bits[r, c] = 255 - bits[r, c]
    img = np.full((10 * cell, 10 * cell), 235, np.uint8)
    big = cv2.resize(bits, (6 * cell, 6 * cell), interpolation=cv2.INTER_NEAREST)
    img[2 * cell:8 * cell, 2 * cell:8 * cell] = np.where(big > 127, 235, 18)
    M = cv2.getRotationMatrix2D((5 * cell, 5 * cell), 17, 1.0)
    img = cv2.warpAffine(img, M, (10 * cell, 10 * cell), borderValue=235)
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    sq = np.array([[2, 2], [8, 2], [8, 8], [2, 8]], float) * cell - 0.5
    return img, np.c_[sq, np.ones(4)] @ M.T


@pytest.mark.parametrize("turn", [0, 1, 2, 3])
def test_a_quad_is_read_in_any_turn_and_put_in_aruco_order(turn):
    img, corners = _sheet()
    got = read_missing(img, [np.roll(corners, turn, axis=0)], load_markers(MARKERS), {7, 3})
    assert len(got) == 1 and got[0][0] == 7
    assert np.allclose(got[0][1], corners)


def test_a_marker_with_one_wrong_cell_is_found_though_opencv_cannot_read_it():
    """DICT_4X4_50 can correct one bit; OpenCV's default (60% of that, rounded down) corrects
    none, so its detector rejects the marker. The search reads the rejected quad again."""
    img, corners = _sheet((2, 3))
    ms = load_markers(MARKERS)
    _, ids, _ = cv2.aruco.ArucoDetector(ms.aruco_dictionary,
                                        cv2.aruco.DetectorParameters()).detectMarkers(img)
    assert ids is None or 7 not in ids.ravel()
    found = dict(find_markers(img, ms))
    assert 7 in found
    assert np.abs(found[7] - corners).max() < 0.5


def test_a_quad_of_another_code_is_not_read_as_a_missing_marker():
    """Two wrong cells: beyond what the dictionary can correct, so not marker 7."""
    img, corners = _sheet((2, 3), (3, 2))
    assert read_missing(img, [corners], load_markers(MARKERS), {7}) == []
