"""Random tables for the tests and benchmarks of :mod:`vision.synth`: trays of common sizes at
random poses, each with its marker, and the table markers round the border."""

from __future__ import annotations

from typing import Any

import numpy as np
from shapely.geometry import Point, Polygon

from geometry import Pose

TRAY_TYPES: list[tuple[tuple[float, float], int, int]] = [
    ((20, 20), 5, 4), ((20, 20), 6, 3), ((20, 20), 10, 2), ((25, 25), 5, 3), ((25, 25), 4, 4),
    ((25, 50), 5, 2), ((25, 50), 3, 2), ((40, 40), 3, 2), ((50, 100), 1, 1), ((20, 40), 5, 2),
    ((30, 30), 4, 2), ((50, 50), 2, 2),
]


def border_markers(width: float, depth: float, count: int = 4, size: float = 60.0,
                   inset: float = 40.0) -> list[dict[str, Any]]:
    """Table markers round the border: the 4 corners, then edge midpoints and thirds
    (8 or more are what lens-distortion estimation needs)."""
    pts = [(inset, inset), (width - inset, inset), (width - inset, depth - inset),
           (inset, depth - inset)]
    extra = [(width / 2, inset), (width / 2, depth - inset), (inset, depth / 2),
             (width - inset, depth / 2), (width / 3, inset), (2 * width / 3, inset),
             (width / 3, depth - inset), (2 * width / 3, depth - inset)]
    pts += extra[: max(0, count - 4)]
    return [{"id": i, "x": x, "y": y, "size_mm": size} for i, (x, y) in enumerate(pts)]


def random_table(seed: int, n_units: int = 16, marker_mm: float = 25.0, table_markers: int = 4,
                 height_mm: float = 3.0, width: float = 1828.8,
                 depth: float = 1219.2) -> tuple[dict[str, Any], dict[str, Any]]:
    """A random table: ``n_units`` trays of common sizes at random poses (no overlap, clear of
    the table markers), each with a ``marker_mm`` marker. Returns (scene, markers) JSON."""
    rng = np.random.default_rng(seed)
    tmarks = border_markers(width, depth, table_markers)
    keep_out = [Point(m["x"], m["y"]).buffer(m["size_mm"]) for m in tmarks]
    sticker = marker_mm * (1 + 2 / 6) + 4
    units: list[dict[str, Any]] = []
    munits: list[dict[str, Any]] = []
    polys: list[Polygon] = []
    tries = 0
    while len(units) < n_units:
        tries += 1
        if tries > 20000:
            raise RuntimeError("cannot place that many units on the table")
        base, files, ranks = TRAY_TYPES[rng.integers(len(TRAY_TYPES))]
        while files * base[0] < sticker:
            files += 1
        while ranks * base[1] < sticker:
            ranks += 1
        wd, dp = files * base[0], ranks * base[1]
        x = rng.uniform(wd / 2 + 20, width - wd / 2 - 20)
        y = rng.uniform(dp / 2 + 20, depth - dp / 2 - 20)
        facing = float(rng.uniform(-180, 180))
        pose = Pose(float(x), float(y), facing)
        c = [pose.to_world(u, v) for u, v in ((-wd / 2, -dp / 2), (wd / 2, -dp / 2),
                                               (wd / 2, dp / 2), (-wd / 2, dp / 2))]
        poly = Polygon(c)
        if not Polygon([(5, 5), (width - 5, 5), (width - 5, depth - 5), (5, depth - 5)]).contains(
                poly):
            continue
        if any(poly.distance(p) < 25 for p in polys) or any(poly.intersects(k) for k in keep_out):
            continue
        i = len(units)
        uid = f"u{i:02d}"
        side = "red" if i % 2 == 0 else "blue"
        ox = float(rng.uniform(-1, 1) * max(0.0, (wd - sticker) / 2) * 0.5)
        oy = float(rng.uniform(-1, 1) * max(0.0, (dp - sticker) / 2) * 0.5)
        units.append({"id": uid, "side": side, "x": float(x), "y": float(y), "facing": facing,
                      "base": list(base), "files": files, "ranks": ranks, "advance_in": 4})
        munits.append({"marker": 10 + i, "marker_size_mm": marker_mm,
                       "marker_offset_mm": [round(ox, 2), round(oy, 2)], "height_mm": height_mm,
                       "id": uid, "side": side, "base": list(base), "files": files,
                       "ranks": ranks, "advance_in": 4})
        polys.append(poly)
    scene = {"table": {"width_mm": width, "depth_mm": depth}, "terrain": [], "units": units}
    markers = {"dictionary": "DICT_4X4_50" if 10 + n_units <= 50 else "DICT_4X4_100",
               "table": {"width_mm": width, "depth_mm": depth, "markers": tmarks},
               "units": munits}
    return scene, markers


