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
#: step it carries on by: far beyond any table, fine enough to end within a millimetre.
CARRY_ON_MM = 2000.0
STEP_MM = 1.0


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
         gap_from_enemies_mm: float = 0.0) -> Flight:
    """The flight of ``fleer`` from ``charger`` (module doc)."""
    away = math.degrees(math.atan2(fleer.y - charger.y, fleer.x - charger.x))
    turn = g.normalize_deg(away - fleer.facing)
    pose = g.Pose(fleer.x, fleer.y, away)
    others = [u for u in scene.units if u.id != fleer.id and u.state != "destroyed"]
    hard = [u.body.polygon for u in others] + [t.shape for t in scene.terrain if t.impassable]
    enemies = [u.body.polygon for u in others if u.side != fleer.side]
    table = scene.table.polygon
    moved = distance_mm
    while True:
        end = g.forward(pose, moved)
        poly = g.boundary(fleer.formation, end)
        if not table.contains(poly) or not table.exterior.distance(poly) > g.EPS_MM:
            return Flight(end, turn, distance_mm, moved, True)
        on_top = any(g.overlapping(poly, h) for h in hard)
        too_near = gap_from_enemies_mm > 0 and any(
            shapely.distance(poly, e) < gap_from_enemies_mm for e in enemies)
        if not on_top and not too_near:
            return Flight(end, turn, distance_mm, moved, False)
        if moved > distance_mm + CARRY_ON_MM:
            return Flight(end, turn, distance_mm, moved, True)
        moved += STEP_MM
