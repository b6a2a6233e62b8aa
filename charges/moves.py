"""Straight moves that stop at the first thing met, and the failed charge move (RULES.md 5, 6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

import geometry as g
from geometry.constants import SWEEP_TOL_MM
from geometry.distance import contact_distances
from geometry.formation import boundary_coords
from geometry.pose import Point

from .world import Blocked, Obstacle, World

#: A move that must stop "just before touching" ends this far short of contact: twice the
#: tolerance, so the gap left is clearly not contact.
STOP_SHORT_MM = 2 * g.EPS_MM
#: The gap a straight move keeps from what it stops at: less than STOP_SHORT_MM, so a unit a turn
#: left STOP_SHORT_MM from something can still move on, more than the tolerance, so it is not
#: contact.
GAP_KEPT_MM = 1.5 * g.EPS_MM
#: How far ahead a move that starts in contact is examined (longer than any charge roll).
ROOM_CAP_MM = 2000.0


def _overlap_free(form: g.Formation, pose: g.Pose, obstacle, limit: float) -> float:
    """The longest straight move (up to ``limit``) whose swept area does not overlap
    ``obstacle``."""
    if not g.overlapping(g.Forward(limit).swept(form, pose), obstacle):
        return limit
    lo, hi = 0.0, limit
    for _ in range(32):  # within limit / 2**32 (5e-7 mm for 2 m); lo was tested clear
        mid = (lo + hi) / 2
        if g.overlapping(g.Forward(mid).swept(form, pose), obstacle):
            hi = mid
        else:
            lo = mid
    return lo


def first_contact(form: g.Formation, pose: g.Pose, world: World,
                  limit_mm: float = math.inf, gap_mm: float = 0.0, exact_gap: bool = False
                  ) -> tuple[float, str | None, str | None]:
    """How far ``pose`` can move straight forward before touching something, or before coming
    within ``gap_mm`` of it: (distance, id of what it meets, its kind). The table edge counts
    as ``table``. The gap is kept by growing each obstacle by it (``exact_gap``: round, for a
    rule's distance; else mitred, never closer), not by stopping short along
    the way: a unit sliding past a neighbour at a grazing angle would otherwise end a fraction
    of the gap from it."""
    coords = boundary_coords(form, pose)
    f = pose.forward
    best, hit, kind = limit_mm, None, None
    here = g.boundary(form, pose)
    lane = _in_lane(world, coords, f, gap_mm)
    touching_now = shapely.dwithin([o.polygon for o in lane], here, g.EPS_MM) if lane else []
    # What the unit does not touch now: every piece's contact distance in one pass.
    pieces = [(i, geom) for i, o in enumerate(lane) if not touching_now[i]
              for geom in getattr(o.polygon, "geoms", [o.polygon])]
    geoms = [geom for _, geom in pieces]
    if gap_mm > 0 and geoms:
        # A tolerance-sized gap grows by mitre (never closer); a rule's distance (1") is a
        # distance, so it grows round (64 segments a quarter: within 0.002 mm of a circle).
        geoms = list(shapely.buffer(geoms, gap_mm, quad_segs=64) if exact_gap else
                     shapely.buffer(geoms, gap_mm, join_style="mitre"))
    ahead = contact_distances(coords, f, [shapely.get_coordinates(geom.exterior)[:-1]
                                          for geom in geoms])
    found: dict[int, list[float]] = {}
    for (i, _), d in zip(pieces, ahead.tolist(), strict=True):
        found.setdefault(i, []).append(d)
    for i, o in enumerate(lane):
        for k, geom in enumerate(getattr(o.polygon, "geoms", [o.polygon])):
            if touching_now[i]:
                # Already in contact (a failed charge's turn stops at contact): only moving
                # into the obstacle is blocked, found by bisection on the overlap test.
                d = _overlap_free(form, pose, geom, min(best, ROOM_CAP_MM))
            else:
                d = found[i][k]
            if d < best:
                best, hit, kind = d, o.id, o.kind
    # The table edge: how far each corner can go before leaving the table.
    w, h = world.table_bounds[2], world.table_bounds[3]
    for x, y in coords:
        for t in _exit(x, y, f, w, h):
            if t < best:
                best, hit, kind = t, "table", "table"
    return best, hit, kind


def _in_lane(world: World, coords: list[Point], f: tuple[float, float], gap_mm: float
             ) -> list[Obstacle]:
    """The obstacles a straight move along ``f`` can meet (in world order): those whose
    extent across the move overlaps the mover's, and not wholly behind it, with a margin
    above the gap's mitred growth and the tolerance. The others are never met (nor touched
    now), so leaving them out changes nothing but the time."""
    parts = world.parts
    if len(parts.owner) == 0:
        return []
    c = np.asarray(coords)
    r = (f[1], -f[0])
    margin = 10 * gap_mm + 2 * g.EPS_MM + 1e-6
    lat, ahead = c @ r, c @ f
    pr = parts.corners @ np.asarray(r)  # (P, K)
    pf = parts.corners @ np.asarray(f)
    # Pieces are stored obstacle by obstacle: reduce each obstacle's run of pieces.
    starts = np.flatnonzero(np.r_[True, parts.owner[1:] != parts.owner[:-1]])
    lo = np.minimum.reduceat(pr.min(axis=1), starts)
    hi = np.maximum.reduceat(pr.max(axis=1), starts)
    front = np.maximum.reduceat(pf.max(axis=1), starts)
    keep = (hi >= lat.min() - margin) & (lo <= lat.max() + margin) & \
        (front >= ahead.min() - margin)
    return [world.obstacles[i] for i in parts.owner[starts[keep]]]


def _exit(x: float, y: float, f: tuple[float, float], w: float, h: float) -> list[float]:
    out = []
    if f[0] > 1e-12:
        out.append((w - x) / f[0])
    elif f[0] < -1e-12:
        out.append(-x / f[0])
    if f[1] > 1e-12:
        out.append((h - y) / f[1])
    elif f[1] < -1e-12:
        out.append(-y / f[1])
    return [max(t, 0.0) for t in out]


@dataclass(frozen=True)
class FailedMove:
    steps: list[g.Step]
    final: g.Pose
    turn_wanted_deg: float
    turn_deg: float
    turn_blocked_by: str | None
    distance_mm: float
    moved_mm: float
    stopped_by: str | None
    #: ``turn`` about the centre (RULES.md 6), or ``wheel`` about a front corner (tow, whfb8).
    kind: str = "turn"


def forward_room(form: g.Formation, pose: g.Pose, world: World, distance_mm: float
                 ) -> tuple[float, str | None]:
    """How far a failed move goes straight ahead, up to ``distance_mm``, stopping just before
    touching anything (RULES.md 6), and what stopped it (None when nothing did)."""
    room, hit, _ = first_contact(form, pose, world, gap_mm=GAP_KEPT_MM)
    if hit == "table":
        room -= STOP_SHORT_MM
    moved = min(distance_mm, max(room - 1e-6, 0.0))
    stopped_by = None
    if moved < distance_mm - 1e-9:
        stopped_by = "the table edge" if hit == "table" else (
            next((o.describe() for o in world.obstacles if o.id == hit), hit))
    return moved, stopped_by


def failed_charge_move(form: g.Formation, start: g.Pose, aim: tuple[float, float],
                       distance_mm: float, world: World) -> FailedMove:
    """RULES.md 6: turn about the centre to face ``aim`` (stopping at the first obstacle met
    while turning), then move straight forward ``distance_mm``, stopping just before touching
    anything."""
    want = math.degrees(math.atan2(aim[1] - start.y, aim[0] - start.x))
    turn_wanted = g.normalize_deg(want - start.facing)
    turn, blocked_by = turn_wanted, None
    coords = boundary_coords(form, start)
    if abs(turn_wanted) > 1e-9:
        # The turn too stops just short of what it meets (the unit must not end in contact),
        # except against what it already touches, which it may only not overlap.
        here = g.boundary(form, start)
        # Turning about its centre, the unit stays within half its diagonal of it: only the
        # obstacles whose boxes come near that disc can stop the turn, whatever its size.
        radius = math.hypot(form.width, form.depth) / 2
        reach = radius + STOP_SHORT_MM + 1.0
        x, y = start.centre
        turning = world.without({o.id for o in world.obstacles
                                 if o.bounds[0] > x + reach or o.bounds[2] < x - reach
                                 or o.bounds[1] > y + reach or o.bounds[3] < y - reach})
        near: set[str] | None = None  # what the unit is already within STOP_SHORT_MM of

        def blocks(area: BaseGeometry) -> Blocked | None:
            nonlocal near
            blk = turning.blocked(area)
            if blk is not None:
                return blk
            if near is None:
                near = {o.id for o in turning.obstacles
                        if shapely.dwithin(o.polygon, here, STOP_SHORT_MM)}
            for o in turning.obstacles:
                if o.id not in near and shapely.dwithin(o.polygon, area, STOP_SHORT_MM):
                    return Blocked(o.id, o.kind, "touches")
            return None

        def blocked(frac: float) -> bool:
            # Piece by piece: the sweep is blocked when one of its pieces is, and merging
            # them into one polygon costs more than testing each.
            return any(blocks(p) is not None for p in
                       g.rotation_sweep_parts(coords, start.centre, turn_wanted * frac))

        # The sweep lies within SWEEP_TOL_MM of its exact bounding box, and of the disc the
        # corners turn in: when that box, grown by STOP_SHORT_MM too, is inside the table and
        # every obstacle whose box it meets lies beyond the grown disc, the turn is clear
        # without building the sweep.
        pad = SWEEP_TOL_MM + STOP_SHORT_MM + 1e-6
        bx0, by0, bx1, by1 = g.rotation_bounds(coords, start.centre, turn_wanted)
        tx0, ty0, tx1, ty1 = turning.table_bounds
        meets = [o.polygon for o in turning.obstacles
                 if o.bounds[0] <= bx1 + pad and o.bounds[2] >= bx0 - pad and
                 o.bounds[1] <= by1 + pad and o.bounds[3] >= by0 - pad]
        clear = tx0 <= bx0 - pad and ty0 <= by0 - pad and bx1 + pad <= tx1 and \
            by1 + pad <= ty1 and (not meets or float(shapely.distance(
                meets, shapely.Point(start.centre)).min()) > radius + pad)
        blk = None if clear else blocks(g.rotation_sweep(coords, start.centre, turn_wanted))
        if blk is not None:
            lo, hi = 0.0, 1.0  # fraction of the turn that is clear
            # 24 halvings: within 1.1e-5 degrees of the largest clear turn (3e-5 mm at the
            # corners of a 300 mm unit), and ``lo`` itself was tested clear.
            for _ in range(24):
                mid = (lo + hi) / 2
                if blocked(mid):
                    hi = mid
                else:
                    lo = mid
            turn, blocked_by = turn_wanted * lo, blk.describe()
    steps: list[g.Step] = []
    pose = start
    if abs(turn) > 1e-9:
        steps.append(g.Turn(turn))
        pose = g.turn(pose, turn)
    moved, stopped_by = forward_room(form, pose, world, distance_mm)
    if moved > 1e-9:
        steps.append(g.Forward(moved))
        pose = g.forward(pose, moved)
    return FailedMove(steps, pose, turn_wanted, turn, blocked_by, distance_mm, moved, stopped_by)
