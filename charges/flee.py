"""The Flee! charge reaction (tow 1.7, whfb8 2.7, RULES.md 7; RULES-editions.md 7a: a unit
already ``fleeing`` in a scene has fled; a request's ``flee`` roll makes the reaction to this
charge).

The charged unit pivots about its centre to face directly away from the charger's centre (the
pivot ignores everything), then moves the flee roll straight ahead. If it would end on top of a
unit or impassable terrain (or, where the ruleset keeps fleeing units 1" from enemies, within
1" of one) it carries on until clear. Touching or crossing the table edge destroys it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import shapely

import geometry as g

#: How far past the roll a flight may carry on to clear what it would end on (mm), and the
#: step it carries on by: far beyond any table, and finer than the smallest unit or gap, so
#: no clear place is stepped over.
CARRY_ON_MM = 2000.0
STEP_MM = 1.0
#: Where the flight stops carrying on is then bisected to within this (mm): "until 1" past"
#: and "until clear" are distances, measured like the rest to well inside EPS_MM.
STOP_TOL_MM = 1e-4


@dataclass(frozen=True)
class Flight:
    """Where a flee reaction ends."""

    pose: g.Pose
    turn_deg: float
    distance_mm: float  # the roll
    moved_mm: float  # the roll and what it carried on
    destroyed: bool

    def to_json(self) -> dict:
        return {"pose": self.pose.to_json(), "turn_deg": round(self.turn_deg, 4),
                "roll_in": round(g.mm_to_in(self.distance_mm), 3),
                "moved_mm": round(self.moved_mm, 3), "destroyed": self.destroyed}


def flee(scene: g.Scene, fleer: g.Unit, charger: g.Unit, distance_mm: float,
         gap_mm: float = 0.0, gap_from_friends: bool = False) -> Flight:
    """The flight of ``fleer`` from ``charger`` (module doc): it ends clear of every unit and
    impassable terrain and, with ``gap_mm``, that far from every enemy (tow 1.7), or from
    every unit (``gap_from_friends``, whfb8 2.7); it carries on by as little as that needs."""
    away = math.degrees(math.atan2(fleer.y - charger.y, fleer.x - charger.x))
    turn = g.normalize_deg(away - fleer.facing)
    pose = g.Pose(fleer.x, fleer.y, away)
    others = [u for u in scene.units if u.id != fleer.id and u.state != "destroyed"]
    hard = [u.body.polygon for u in others] + [t.shape for t in scene.terrain if t.impassable]
    kept = [u.body.polygon for u in others if gap_from_friends or u.side != fleer.side]
    table = scene.table.polygon

    def off_table(poly: shapely.Geometry) -> bool:
        return not table.contains(poly) or not table.exterior.distance(poly) > g.EPS_MM

    def stops(moved: float) -> bool:
        """The flight ends here: off the table, or clear of what it may not end on or
        near."""
        poly = g.boundary(fleer.formation, g.forward(pose, moved))
        return off_table(poly) or (not any(g.overlapping(poly, h) for h in hard) and not (
            gap_mm > 0 and any(shapely.distance(poly, k) < gap_mm for k in kept)))

    moved = distance_mm
    while not stops(moved):
        if moved > distance_mm + CARRY_ON_MM:
            return Flight(g.forward(pose, moved), turn, distance_mm, moved, True)
        moved += STEP_MM
    if moved > distance_mm:
        # It stopped within the last step: where exactly (the least distance that clears,
        # or that reaches the table edge first).
        lo, hi = moved - STEP_MM, moved
        while hi - lo > STOP_TOL_MM:
            mid = (lo + hi) / 2
            if stops(mid):
                hi = mid
            else:
                lo = mid
        moved = hi
    end = g.forward(pose, moved)
    return Flight(end, turn, distance_mm, moved, off_table(g.boundary(fleer.formation, end)))
