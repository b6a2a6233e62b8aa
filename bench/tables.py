"""Random but plausible battle tables for the benchmarks: two armies facing each other across
the table, terrain between them, every scene valid."""

from __future__ import annotations

import math

import numpy as np

import geometry as g

BASES = [(20.0, 20.0), (25.0, 25.0), (25.0, 50.0), (40.0, 40.0), (50.0, 50.0)]


def random_table(rng: np.random.Generator, per_side: int = 10, terrain: int = 4,
                 tries: int = 4000) -> dict:
    """A valid scene dict with ``per_side`` units a side and ``terrain`` pieces."""
    w, h = 1828.8, 1219.2
    pieces = []
    for i in range(terrain):
        cx, cy = rng.uniform(250, w - 250), rng.uniform(350, h - 350)
        r = rng.uniform(40, 90)
        angles = np.sort(rng.uniform(0, 2 * math.pi, 6))
        poly = [[float(cx + r * math.cos(a)), float(cy + r * math.sin(a))] for a in angles]
        pieces.append({"id": f"terrain{i}", "impassable": bool(i % 2 == 0),
                       "opaque": bool(i % 2 == 1), "polygon": poly})
    blockers = [g.load_scene({"terrain": [p]}).terrain[0].shape for p in pieces]
    units: list[dict] = []
    bodies: list = []
    for side, y_lo, y_hi, facing in (("red", 150, 560, 90.0), ("blue", 660, 1070, -90.0)):
        placed = 0
        for _ in range(tries):
            if placed >= per_side:
                break
            base = BASES[int(rng.integers(len(BASES)))]
            files = int(rng.integers(3, 7))
            ranks = int(rng.integers(1, 5))
            models = files * ranks - int(rng.integers(0, files)) if ranks > 1 else files
            u = {"id": f"{side}{placed}", "side": side,
                 "x": float(rng.uniform(150, w - 150)), "y": float(rng.uniform(y_lo, y_hi)),
                 "facing": facing + float(rng.normal(0, 20)), "base": list(base),
                 "files": files, "ranks": ranks, "models": models,
                 "advance_in": float(rng.choice([4, 5, 6, 7, 8, 9])),
                 "swiftstride": bool(rng.random() < 0.3)}
            unit = g.Unit.model_validate(u)
            poly = unit.body.polygon
            if not g.load_scene({"units": []}).table.polygon.buffer(-1).contains(poly):
                continue
            if any(poly.distance(b) < 30 for b in bodies) or \
                    any(poly.intersects(t) for t in blockers):
                continue
            units.append(u)
            bodies.append(poly)
            placed += 1
    scene = {"table": {"width_mm": w, "depth_mm": h}, "terrain": pieces, "units": units}
    g.load_scene(scene)
    return scene
