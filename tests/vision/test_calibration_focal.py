"""A camera calibration of another zoom (outside testing, round 3): a tilted photo measures the
focal length from the table's perspective; a calibration that disagrees is said by name and
the table's focal length used, so the raised trays' parallax stays right."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision import detect
from vision.camera import Intrinsics
from vision.synth import Shot, random_table, render


@pytest.fixture(scope="module")
def tilted():
    scene, markers = random_table(41, n_units=10, marker_mm=40, table_markers=4,
                                  height_mm=6.0)
    return render(scene, markers, Shot(width=1920, height=1080, tilt_deg=30, fov_deg=60,
                                       seed=41))


@pytest.mark.parametrize("zoom", [1.6, 0.7])
def test_a_calibration_of_another_zoom_is_warned_and_the_tables_focal_used(tilted, zoom):
    true = tilted.camera.intr
    K = true.K.copy()
    K[0, 0] *= zoom
    K[1, 1] *= zoom
    out = detect(tilted.image, tilted.markers, calibration=Intrinsics(K, np.zeros(5),
                                                                       (1920, 1080)))
    det = out["detection"]
    assert any("the table's perspective measures the focal length" in w
               for w in det["warnings"])
    assert det["focal_px"] == pytest.approx(true.K[0, 0], rel=0.01)
    t_by_id = {u["id"]: u for u in tilted.scene["units"]}
    for u in out["units"]:
        t = t_by_id[u["id"]]
        assert math.hypot(u["x"] - t["x"], u["y"] - t["y"]) <= 3 * u["sigma_mm"], u["id"]


def test_the_right_calibration_is_not_warned(tilted):
    out = detect(tilted.image, tilted.markers, calibration=tilted.camera.intr)
    assert not any("focal length" in w for w in out["detection"]["warnings"])
