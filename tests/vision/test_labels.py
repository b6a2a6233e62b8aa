"""Overlay labels on a busy table (issue 13): none on top of another, each kept off the units
where there is room (vision.labels, vision.overlay)."""

from __future__ import annotations

import itertools

import numpy as np
from shapely.geometry import Polygon, box

from vision import detect
from vision.labels import LabelBoard, overlap
from vision.overlay import draw_scene_overlay
from vision.synth import Shot, random_table, render


def test_a_board_takes_the_first_free_place_and_else_the_least_crowded():
    board = LabelBoard(obstacles=[Polygon([(0, 0), (10, 0), (10, 10), (0, 10)])])
    assert board.place([(5, 5), (30, 5)], (6, 4)) == 1  # the first candidate is on the unit
    assert board.place([(30, 5), (30, 30)], (6, 4)) == 1  # the first is now taken
    # Nowhere free: the least crowded (a unit costs less than a label).
    assert board.place([(30, 5), (5, 5)], (6, 4)) == 1
    assert overlap((0, 0, 2, 2), (1, 1, 3, 3)) == 1.0


def test_labels_do_not_overlap_on_a_busy_table():
    """30 trays on a 6 x 4 ft table in a 1080p photo, every label carrying its sigmas."""
    scene, markers = random_table(7, n_units=30, marker_mm=40)
    shot = render(scene, markers, Shot(width=1920, height=1080, tilt_deg=30, seed=1))
    found = detect(shot.image, markers)
    assert len(found["units"]) == 30
    H = np.array(found["detection"]["table_to_image"])
    boxes: list = []
    img = draw_scene_overlay(shot.image, {k: v for k, v in found.items() if k != "detection"},
                             H, label_boxes=boxes)
    assert img.shape == shot.image.shape
    labels = boxes[-30:]  # the units' labels come last
    assert len(labels) == 30
    for a, b in itertools.combinations(labels, 2):
        assert overlap(a, b) == 0.0, (a, b)
    # ...and none sits on a unit: the table has room round them.
    trays = [Polygon(H_apply(H, u)) for u in found["units"]]
    on_units = sum(box(*b).intersection(t).area for b in labels for t in trays)
    assert on_units == 0.0


def H_apply(H: np.ndarray, unit: dict) -> np.ndarray:
    """A unit's boundary corners in the photo."""
    import geometry as g

    u = g.load_scene({"units": [unit]}).units[0]
    pts = np.array(u.body.polygon.exterior.coords)
    p = np.c_[pts, np.ones(len(pts))] @ H.T
    return p[:, :2] / p[:, 2:]
