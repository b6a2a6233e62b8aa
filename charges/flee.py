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
from geometry.search1d import bisect_edge

from .flee_round import Leg, flight_route, route_point

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
    #: The legs of a flight that went round impassable terrain (charges/flee_round.py); one
    #: straight leg otherwise.
    legs: tuple[Leg, ...] = ()
    #: The charger it fled from (tow 1.7: from one of several).
    away_from: str = ""

    @property
    def went_round(self) -> tuple[str, ...]:
        """The impassable terrain the flight turned aside for, in the order met."""
        return tuple(leg.around for leg in self.legs if leg.around is not None)

    def route_steps(self) -> list[dict]:
        """The flight after its first turn as path steps (DESIGN.md: ``forward`` and
        ``turn``), each with the pose it ends at."""
        steps: list[dict] = []
        for i, leg in enumerate(self.legs):
            if i:
                turn = g.normalize_deg(leg.pose.facing - self.legs[i - 1].pose.facing)
                steps.append({"kind": "turn", "angle_deg": round(turn, 6),
                              "pose": leg.pose.to_json()})
            length = leg.length_mm if i < len(self.legs) - 1 else \
                leg.length_mm + self.moved_mm - sum(x.length_mm for x in self.legs)
            steps.append({"kind": "forward", "distance_mm": round(length, 4),
                          "distance_in": round(g.mm_to_in(length), 4),
                          "pose": g.forward(leg.pose, length).to_json()})
        return steps

    def to_json(self) -> dict:
        out = {"pose": self.pose.to_json(), "turn_deg": round(self.turn_deg, 4),
               "roll_in": round(g.mm_to_in(self.distance_mm), 3),
               "roll_mm": round(self.distance_mm, 3),
               "moved_mm": round(self.moved_mm, 3),
               "moved_in": round(g.mm_to_in(self.moved_mm), 3), "destroyed": self.destroyed}
        if self.went_round or self.stopped_by_terrain:
            out["round_terrain"] = list(self.went_round)
            out["route"] = self.route_steps()
        if self.stopped_by_terrain:
            out["stopped_by_terrain"] = True
        return out

    @property
    def stopped_by_terrain(self) -> bool:
        """No route got round the impassable terrain in the way: the flight ended against
        it, short of its roll (charges/flee_round.py)."""
        planned = sum(leg.length_mm for leg in self.legs)
        return bool(self.legs) and planned < self.distance_mm - 1e-6 and not self.destroyed


def flee(scene: g.Scene, fleer: g.Unit, charger: g.Unit, distance_mm: float,
         gap_mm: float = 0.0, gap_from_friends: bool = False,
         round_impassable: bool = False) -> Flight:
    """The flight of ``fleer`` from ``charger`` (module doc): it ends clear of every unit and
    impassable terrain and, with ``gap_mm``, that far from every enemy (tow 1.7), or from
    every unit (``gap_from_friends``, whfb8 2.7); it carries on by as little as that needs.
    ``round_impassable``: impassable terrain in the way is gone round by pivots
    (charges/flee_round.py, tow 1.7); otherwise the flight goes straight on."""
    away = math.degrees(math.atan2(fleer.y - charger.y, fleer.x - charger.x))
    turn = g.normalize_deg(away - fleer.facing)
    pose = g.Pose(fleer.x, fleer.y, away)
    others = [u for u in scene.units if u.id != fleer.id and u.state != "destroyed"]
    hard = [u.body.polygon for u in others] + [t.shape for t in scene.terrain if t.impassable]
    kept = [u.body.polygon for u in others if gap_from_friends or u.side != fleer.side]
    table = scene.table.polygon

    def off_table(poly: shapely.Geometry) -> bool:
        return not table.contains(poly) or not table.exterior.distance(poly) > g.EPS_MM

    impassable = [(t.id, t.shape) for t in scene.terrain if t.impassable]
    legs = flight_route(fleer.formation, pose, distance_mm, impassable) \
        if round_impassable and impassable else [Leg(pose, distance_mm)]
    for i, leg in enumerate(legs[:-1]):
        # A leg that touches the table edge destroys the unit there (tow 1.7).
        if off_table(g.boundary(fleer.formation, leg.end())):
            done = sum(x.length_mm for x in legs[:i + 1])
            return Flight(leg.end(), turn, distance_mm, done, True, tuple(legs[:i + 1]),
                          charger.id)

    def stops(moved: float) -> bool:
        """The flight ends here: off the table, or clear of what it may not end on or
        near."""
        poly = g.boundary(fleer.formation, route_point(legs, moved))
        return off_table(poly) or (not any(g.overlapping(poly, h) for h in hard) and not (
            gap_mm > 0 and any(shapely.distance(poly, k) < gap_mm for k in kept)))

    planned = sum(leg.length_mm for leg in legs)  # the roll, or less against terrain
    moved = planned
    while not stops(moved):
        if moved > planned + CARRY_ON_MM:
            return Flight(route_point(legs, moved), turn, distance_mm, moved, True,
                          tuple(legs), charger.id)
        moved += STEP_MM
    if moved > planned:
        # It stopped within the last step: where exactly (the least distance that clears,
        # or that reaches the table edge first).
        moved = bisect_edge(stops, moved - STEP_MM, moved, STOP_TOL_MM)[1]
    end = route_point(legs, moved)
    return Flight(end, turn, distance_mm, moved, off_table(g.boundary(fleer.formation, end)),
                  tuple(legs), charger.id)
