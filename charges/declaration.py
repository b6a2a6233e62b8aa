"""Declaring a charge (RULES.md 2) and the charged facing (RULES.md 1).

Visibility: some straight line from the charger's front facing to the target, inside the front
arc, crosses no other unit and no opaque terrain. Lines are tried from points spaced along the
front facing to points spaced along the part of the target's boundary inside the front arc,
all at once (vectorised), so a gap of a few millimetres between two units is found.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely

import geometry as g

from .rulesets import Ruleset

#: Spacing of the sight-line end points (mm): a gap narrower than this may be missed.
SIGHT_STEP_MM = 5.0


@dataclass(frozen=True)
class Declaration:
    declarable: bool
    reasons: list[str]
    in_front_arc: bool
    visible: bool
    distance: g.Closest
    max_range_in: float
    shares: dict[g.FacingName, float]
    facing: g.FacingName


def _points_along(line: shapely.LineString | shapely.MultiLineString, step: float
                  ) -> np.ndarray:
    pts = []
    for part in getattr(line, "geoms", [line]):
        if part.length <= 0:
            pts.append(np.asarray(part.coords[0]))
            continue
        n = max(2, math.ceil(part.length / step) + 1)
        d = np.linspace(0, part.length, n)
        pts.extend(shapely.get_coordinates(shapely.line_interpolate_point(part, d)))
    return np.asarray(pts, dtype=float)


def visible(scene: g.Scene, charger: g.Unit, target: g.Unit) -> bool:
    """RULES.md 2: a clear straight line from the front facing to the target inside the front
    arc."""
    arc = g.arc_polygons(charger.formation, charger.pose)["front"]
    seen = target.body.polygon.exterior.intersection(arc)
    if seen.is_empty:
        return False
    front = shapely.LineString(charger.body.facings["front"])
    a = _points_along(front, SIGHT_STEP_MM * 2)
    b_parts = [p for p in getattr(seen, "geoms", [seen]) if p.geom_type in
               ("LineString", "Point")]
    b_list = []
    for p in b_parts:
        if p.geom_type == "Point":
            b_list.append(np.asarray(p.coords))
        else:
            b_list.append(_points_along(p, SIGHT_STEP_MM))
    if not b_list:
        return False
    b = np.concatenate(b_list)
    # Only what stands between the front facing and the seen part of the target can block.
    between = shapely.MultiPoint(np.concatenate([a, b])).convex_hull
    candidates = [u.body.polygon for u in scene.units
                  if u.id not in (charger.id, target.id) and u.state != "destroyed"]
    candidates += [t.shape for t in scene.terrain if t.opaque]
    walls = [g.contact.shrunk(p) for p in candidates if between.intersects(p)]
    walls = [w for w in walls if not w.is_empty]
    if not walls:
        return True
    for w in walls:
        shapely.prepare(w)
    # A handful of lines first (usually one of them is clear), then every pair.
    for sa, sb in ((max(1, len(a) // 4), max(1, len(b) // 6)), (1, 1)):
        aa = np.repeat(a[::sa], len(b[::sb]), axis=0)
        bb = np.tile(b[::sb], (len(a[::sa]), 1))
        clear = np.ones(len(aa), dtype=bool)
        lines = shapely.linestrings(np.stack([aa, bb], axis=1))
        for wall in walls:
            idx = np.flatnonzero(clear)
            if len(idx) == 0:
                break
            clear[idx[shapely.intersects(wall, lines[idx])]] = False
        if clear.any():
            return True
    return False


def declare(scene: g.Scene, charger: g.Unit, target: g.Unit, ruleset: Ruleset) -> Declaration:
    reasons: list[str] = []
    if charger.state != "ready":
        reasons.append(f"{charger.id} is {charger.state}, and only a ready unit may charge")
    if target.state == "destroyed":
        reasons.append(f"{target.id} has been destroyed")
    arc = g.arc_polygons(charger.formation, charger.pose)["front"]
    in_arc = bool(arc.intersects(target.body.polygon)) and \
        shapely.intersection(arc, target.body.polygon, grid_size=g.OVERLAY_GRID_MM).area > 0
    if not in_arc:
        reasons.append(f"{target.id} is not inside {charger.id}'s front arc")
    vis = in_arc and visible(scene, charger, target)
    if in_arc and not vis:
        reasons.append(f"{charger.id} cannot see {target.id}: every line from its front inside "
                       "its front arc crosses another unit or opaque terrain")
    dist = g.closest(charger.body.polygon, target.body.polygon)
    assert charger.advance_in is not None
    max_range = charger.advance_in + ruleset.dice_for(charger).max_total
    if dist.distance_in > max_range + 1e-9:
        reasons.append(f"{target.id} is {dist.distance_in:.2f} in away, beyond the longest "
                       f"possible charge of {max_range:g} in")
    shares = g.arc_shares(target.formation, target.pose, charger.body.polygon)
    facing = ruleset.charged_facing(shares)
    return Declaration(not reasons, reasons, in_arc, vis, dist, max_range, shares, facing)
