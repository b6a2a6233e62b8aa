"""Declaring a charge (RULES.md 2) and the charged facing (RULES.md 1).

Visibility: some straight line from the charger's front facing to the target, inside the front
arc, crosses no other unit and no opaque terrain. Lines are tried from points spaced along the
front facing to points spaced along the part of the target's boundary inside the front arc,
all at once (vectorised), so a gap of a few millimetres between two units is found.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import shapely

import geometry as g

from .rulesets import Ruleset
from .rulesets.base import FacingDecision
from .world import ByIdentity

#: Spacing of the sight-line end points (mm): a gap narrower than this may be missed.
SIGHT_STEP_MM = 5.0



def possessive(name: str) -> str:
    """``knights'`` and ``spearmen's``: an id as the owner in a sentence."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


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
    #: The ruleset's facing decision with its evidence (model counts, a contested facing).
    decision: FacingDecision | None = None
    #: The ruleset's "no impossible charge" test (tow 1.2, whfb8 2.2) was made when the
    #: charge was declared (resolution.room_when_declared), not to be made again at its move.
    room_checked: bool = False


def _points_along(line: shapely.LineString | shapely.MultiLineString, step: float
                  ) -> np.ndarray:
    """Points at most ``step`` apart along each part of ``line``, both ends included,
    interpolated along its vertices (as GEOS's line_interpolate_point, without a geometry per
    point)."""
    pts = []
    for part in getattr(line, "geoms", [line]):
        xy = shapely.get_coordinates(part)
        seg = np.hypot(*np.diff(xy, axis=0).T)
        along = np.concatenate([[0.0], np.cumsum(seg)])
        length = float(along[-1])
        if length <= 0:
            pts.append(xy[:1])
            continue
        d = np.linspace(0, length, max(2, math.ceil(length / step) + 1))
        pts.append(np.stack([np.interp(d, along, xy[:, 0]), np.interp(d, along, xy[:, 1])],
                            axis=1))
    return np.concatenate(pts).astype(float)


@lru_cache(maxsize=4096)
def _wall_parts(poly: shapely.Polygon) -> tuple[np.ndarray, ...]:
    """Convex pieces (vertex arrays) of ``poly`` pulled in by EPS_MM: a sight line that only
    grazes a unit or a terrain piece is not blocked by it. Cached: the same units and terrain
    stand between many pairs of a charge map."""
    return tuple(g.contact.convex_pieces(g.contact.shrunk(poly)))


def segments_hit(a: np.ndarray, b: np.ndarray, parts: np.ndarray) -> np.ndarray:
    """Which segments ``a[i]``-``b[i]`` meet any of the convex polygons ``parts`` (P, k, 2)
    (touching counts), by separating axes: each polygon's edge normals and each segment's
    normal. Polygons with fewer vertices are padded by repeating their last one: the
    zero-length edge gives a null axis, which never separates."""
    edges = np.roll(parts, -1, axis=1) - parts
    normals = np.stack([edges[..., 1], -edges[..., 0]], axis=-1)  # (P, k, 2)
    pv = np.einsum("pvc,pkc->pvk", parts, normals)  # vertex v on axis k
    lo, hi = pv.min(axis=1), pv.max(axis=1)  # (P, k)
    pa = np.einsum("nc,pkc->npk", a, normals)
    pb = np.einsum("nc,pkc->npk", b, normals)
    apart = ((np.maximum(pa, pb) < lo) | (np.minimum(pa, pb) > hi)).any(axis=2)  # (n, P)
    d = b - a
    m = np.stack([d[:, 1], -d[:, 0]], axis=1)  # (n, 2)
    side = np.einsum("pvc,nc->npv", parts, m) - (a * m).sum(axis=1)[:, None, None]
    apart |= (side > 0).all(axis=2) | (side < 0).all(axis=2)
    return ~apart.all(axis=1)


def visible(scene: g.Scene, charger: g.Unit, target: g.Unit,
            ignore: frozenset[str] = frozenset()) -> bool:
    """RULES.md 2: a clear straight line from the front facing to the target inside the front
    arc; the units ``ignore`` hide nothing."""
    arc = charger.body.arcs["front"]
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
    ends = np.concatenate([a, b])
    (x0, y0), (x1, y1) = ends.min(axis=0), ends.max(axis=0)
    # The hull of the lines' ends lies within the hull of the front facing's ends and the
    # vertices of the part seen, a handful of points.
    between = shapely.convex_hull(shapely.multipoints(np.concatenate(
        [np.asarray(charger.body.facings["front"], dtype=float)] +
        [shapely.get_coordinates(p) for p in b_parts])))
    candidates = [u.body.polygon for u in scene.units
                  if u.id not in (charger.id, target.id) and u.state != "destroyed" and
                  u.id not in ignore]
    candidates += [t.shape for t in scene.terrain if t.opaque]
    pieces: list[np.ndarray] = []
    if candidates:
        bx = shapely.bounds(candidates)
        near = (bx[:, 0] <= x1) & (bx[:, 2] >= x0) & (bx[:, 1] <= y1) & (bx[:, 3] >= y0)
        for i in np.flatnonzero(near):
            if between.intersects(candidates[i]):
                pieces.extend(_wall_parts(candidates[i]))
    if not pieces:
        return True
    k = max(len(q) for q in pieces)
    parts = np.stack([np.concatenate([q, np.repeat(q[-1:], k - len(q), axis=0)])
                      for q in pieces])
    # The walls reaching furthest across the way first: they block the most lines, and each
    # later wall only tests the lines still clear.
    lo, hi = parts.min(axis=1), parts.max(axis=1)
    span = (np.minimum(hi, (x1, y1)) - np.maximum(lo, (x0, y0))).clip(0).prod(axis=1)
    parts = parts[np.argsort(-span)]
    # A handful of lines first (usually one of them is clear), then every pair.
    for sa, sb in ((max(1, len(a) // 4), max(1, len(b) // 6)), (1, 1)):
        aa = np.repeat(a[::sa], len(b[::sb]), axis=0)
        bb = np.tile(b[::sb], (len(a[::sa]), 1))
        clear = np.arange(len(aa))
        for part in parts:
            clear = clear[~segments_hit(aa[clear], bb[clear], part[None])]
            if len(clear) == 0:
                break
        else:
            return True
    return False


#: enemies_touching's answers by scene, then unit id: a charge map asks it of every charger
#: once per enemy.
_TOUCHING = ByIdentity(64)


def enemies_touching(scene: g.Scene, unit: g.Unit) -> list[str]:
    """The enemy units in base contact with ``unit`` (within EPS_MM: DESIGN.md, touching is
    contact). A unit in contact with an enemy is engaged whatever its ``state`` says
    (RULES.md 2: only a ready unit, "not engaged", may charge)."""
    by_unit = _TOUCHING.get(scene)
    if by_unit is None:
        by_unit = {}
        _TOUCHING.put(scene, by_unit)
    if unit.id not in by_unit:
        by_unit[unit.id] = _touching(scene, unit)
    return by_unit[unit.id]


def _touching(scene: g.Scene, unit: g.Unit) -> list[str]:
    poly = unit.body.polygon
    x0, y0, x1, y1 = poly.bounds
    e = g.EPS_MM
    out = []
    for u in scene.units:
        if u.side == unit.side or u.state == "destroyed":
            continue
        b = u.body.polygon.bounds
        if b[0] > x1 + e or b[2] < x0 - e or b[1] > y1 + e or b[3] < y0 - e:
            continue
        if shapely.dwithin(poly, u.body.polygon, e):
            out.append(u.id)
    return sorted(out)


def declare(scene: g.Scene, charger: g.Unit, target: g.Unit, ruleset: Ruleset,
            every_reason: bool = True, facing_roll: int | None = None) -> Declaration:
    """RULES.md 2 (the ruleset gives the longest charge and the facing rule). With
    ``every_reason`` every failed condition is listed (a ruling names them
    all); without it, a target beyond the longest possible charge is not also checked for
    sight lines, the costly test, since it is not declarable anyway (a charge map needs only
    the yes or no: most pairs on a big table are out of range)."""
    reasons: list[str] = []
    if charger.state != "ready":
        reasons.append(f"{charger.id} is {charger.state}, and only a ready unit may charge")
    else:
        # [D] Touching the target itself is a charge of no distance (the move aligns, or the
        # target does), as the rules files' scenes use it; any other enemy engages it.
        touching = [u for u in enemies_touching(scene, charger) if u != target.id]
        if touching:
            who = ", ".join(touching)
            reasons.append(f"{charger.id} is in base contact with enemy {who}, so it is engaged "
                           "in combat, and only a ready unit may charge")
    if target.state == "destroyed":
        reasons.append(f"{target.id} has been destroyed")
    arc = charger.body.arcs["front"]
    in_arc = bool(arc.intersects(target.body.polygon)) and \
        shapely.intersection(arc, target.body.polygon, grid_size=g.OVERLAY_GRID_MM).area > 0
    if not in_arc:
        reasons.append(f"{target.id} is not inside {possessive(charger.id)} front arc")
    dist = g.closest(charger.body.bases, target.body.bases) \
        if ruleset.distance_to == "bases" else \
        g.closest(charger.body.polygon, target.body.polygon)
    max_range = ruleset.max_range_in(charger)
    # Within EPS_MM, as the range test and the roll needed measure (dice.needed).
    too_far = dist.distance_mm > g.in_to_mm(max_range) + g.EPS_MM
    # tow 1.5: a fleeing unit across the way fled there after the charges were declared
    # (reactions come before the charge moves), so it hid nothing at the declaration.
    fled = frozenset(u.id for u in scene.units if u.state == "fleeing") \
        if ruleset.accidental_contact else frozenset()
    vis = in_arc and (every_reason or not too_far) and visible(scene, charger, target, fled)
    if in_arc and not vis and (every_reason or not too_far):
        reasons.append(f"{charger.id} cannot see {target.id}: every line from its front inside "
                       "its front arc crosses another unit or opaque terrain")
    if too_far:
        reasons.append(f"{target.id} is {dist.distance_in:.2f} in away, beyond the longest "
                       f"possible charge of {max_range:g} in")
    shares = g.arc_shares(target.formation, target.pose, charger.body.polygon,
                          target.body.arcs)
    decision = ruleset.facing(charger, target, shares, facing_roll)
    return Declaration(not reasons, reasons, in_arc, vis, dist, max_range, shares,
                       decision.facing, decision)
