"""Shared rendered tables for the vision tests (rendered once per session: rendering is the
slow part)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from geometry import load_scene
from geometry.formation import corners
from vision.synth import Rendered, Shot, random_table, render


def errors(scene: dict[str, Any], truth: dict[str, Any]) -> dict[str, tuple[float, float, float]]:
    """Per unit id: position error (mm), facing error (deg), worst tray-corner error (mm)."""
    t_by_id = {u["id"]: u for u in truth["units"]}
    out = {}
    for u in scene["units"]:
        t = t_by_id[u["id"]]
        su = load_scene({"units": [{k: v for k, v in u.items()}]}).units[0]
        tu = load_scene({"units": [t]}).units[0]
        a, b = corners(su.formation, su.pose), corners(tu.formation, tu.pose)
        out[u["id"]] = (math.hypot(u["x"] - t["x"], u["y"] - t["y"]),
                        abs((u["facing"] - t["facing"] + 180) % 360 - 180),
                        max(math.dist(a[k], b[k]) for k in a))
    return out


@pytest.fixture(scope="session")
def table_40mm() -> Rendered:
    """A 1920x1080 photo, 20 degrees tilt, moderate degradation, 10 trays with 40 mm markers."""
    scene, markers = random_table(11, n_units=10, marker_mm=40)
    return render(scene, markers, Shot.degraded(width=1920, height=1080, tilt_deg=20, seed=11))


@pytest.fixture(scope="session")
def table_4k_25mm() -> Rendered:
    """A 3840x2160 photo, 20 degrees tilt, moderate degradation, 10 trays with 25 mm markers:
    the issue's setting where a marker alone is not enough for the facing."""
    scene, markers = random_table(11, n_units=10, marker_mm=25)
    return render(scene, markers, Shot.degraded(width=3840, height=2160, tilt_deg=20, seed=11))


@pytest.fixture(scope="session")
def table_barrel() -> Rendered:
    """A barrel lens (k1 = -0.05) over a table with 8 border markers."""
    scene, markers = random_table(12, n_units=8, marker_mm=40, table_markers=8)
    return render(scene, markers, Shot(width=1920, height=1080, tilt_deg=10, k1=-0.05, seed=12))


@pytest.fixture(scope="session")
def club_4k_25mm() -> Rendered:
    """The second appearance (no rim, shadows, glare, sticker margins, motion blur...) at 4K,
    20 degrees tilt, moderate degradation, 10 trays with 25 mm markers."""
    scene, markers = random_table(11, n_units=10, marker_mm=25)
    return render(scene, markers, Shot.degraded(width=3840, height=2160, tilt_deg=20, seed=11,
                                                look="club"))


@pytest.fixture(scope="session")
def club_40mm() -> Rendered:
    """The second appearance at 1080p, 30 degrees tilt, moderate degradation, 40 mm markers."""
    scene, markers = random_table(14, n_units=10, marker_mm=40)
    return render(scene, markers, Shot.degraded(width=1920, height=1080, tilt_deg=30, seed=14,
                                                look="club"))
