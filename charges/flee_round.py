"""A flight that meets impassable terrain goes round it (tow 1.7: "Change direction only by
pivoting around impassable terrain, by the shortest route"; units are fled through and do not
turn a flight).

RULES-editions.md says no more than that, so the route is decided here ([D], the closing note
of session 12 reports it):

- The unit flees straight away until its footprint would overlap impassable terrain.
- There it pivots about its centre, turning one way or the other by some angle up to 90
  degrees, moves on until the way straight away is clear of that piece, pivots back to face
  directly away again and moves on. The pivots are free; the distance moved along the route is
  the roll. A pivot is not swept (tow's pivot ignores terrain, 1.7), but where it ends may
  not overlap impassable terrain, nor may any leg's swept footprint. Where the way is tight,
  the unit pivots early (the latest point before the terrain where the pivot fits).
- **The shortest route** is the one that loses the least distance away from the charger:
  ``d * (1 - cos angle)`` for a leg of ``d`` at ``angle`` off the way away. Ties go to the
  smaller angle, then to the unit's left.
- A second piece met after the first is gone round the same way (at most ``MAX_PIECES``).
  A piece no route gets round within the roll stops the flight against it.

Measured, not sampled: the pivot point and the leg are bisected to ``TOL_MM`` and the angle,
searched on a ``GRID_DEG`` grid, is refined to ``ANGLE_TOL_DEG``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from shapely.geometry.base import BaseGeometry

import geometry as g
from geometry.formation import boundary_coords
from geometry.search1d import bisect_edge, golden_min

GRID_DEG = 5.0
ANGLE_TOL_DEG = 0.01
TOL_MM = 1e-3
MAX_PIECES = 4


@dataclass(frozen=True)
class Leg:
    """A straight part of a flight: it starts at ``pose``, facing its way, and runs
    ``length_mm``; ``around`` names the terrain this leg turned aside for, if any."""

    pose: g.Pose
    length_mm: float
    around: str | None = None

    def end(self) -> g.Pose:
        return g.forward(self.pose, self.length_mm)


@dataclass(frozen=True)
class _Detour:
    loss: float
    angle: float  # signed, degrees (positive: to the unit's left)
    pivot_at: float  # distance along the way away where it pivots
    aside: float  # length of the leg aside (the rest of the roll when it never gets past)


def _sweep(form: g.Formation, pose: g.Pose, length: float) -> BaseGeometry:
    a = boundary_coords(form, pose)
    if length <= 0:
        return g.polygon_of(a)
    return g.translation_sweep(a, boundary_coords(form, g.forward(pose, length)))


def _overlaps(shape: BaseGeometry, pieces: Sequence[BaseGeometry]) -> bool:
    return any(g.overlapping(shape, p) for p in pieces)


def _free_run(form: g.Formation, pose: g.Pose, length: float,
              pieces: Sequence[BaseGeometry]) -> float:
    """How far the unit moves straight from ``pose`` (at most ``length``) before its swept
    footprint would overlap one of ``pieces``: the swept area only grows with the distance,
    so the first overlap is bisected."""
    if not _overlaps(_sweep(form, pose, length), pieces):
        return length
    if _overlaps(_sweep(form, pose, 0.0), pieces):
        return 0.0
    return bisect_edge(lambda s: _overlaps(_sweep(form, pose, s), pieces), 0.0, length,
                       TOL_MM)[0]


def _pivot_clear(form: g.Formation, pose: g.Pose, angle: float,
                 pieces: Sequence[BaseGeometry]) -> bool:
    """The footprint at ``pose`` turned ``angle`` degrees about its centre overlaps none of
    ``pieces``. The turn itself is not swept: tow's pivot ignores units and terrain (1.7,
    [V movement-in-detail/pivoting]); only where it ends must be clear."""
    return not _overlaps(g.polygon_of(boundary_coords(form, pose.rotated(pose.centre, angle))),
                         pieces)


def _detour(form: g.Formation, pose: g.Pose, run: float, left: float, angle: float,
            piece: BaseGeometry, pieces: Sequence[BaseGeometry]) -> _Detour | None:
    """The route turning ``angle`` off the way away (``pose``), which meets ``piece`` after
    ``run`` of the ``left`` still to flee; None where it does not fit."""
    def turned(s: float) -> g.Pose:
        return g.forward(pose, s).rotated(g.forward(pose, s).centre, angle)

    if _pivot_clear(form, g.forward(pose, run), angle, pieces):
        pivot_at = run
    elif not _pivot_clear(form, pose, angle, pieces):
        return None
    else:  # the latest clear pivot
        pivot_at = bisect_edge(lambda s: not _pivot_clear(form, g.forward(pose, s), angle,
                                                          pieces), 0.0, run, TOL_MM)[0]
    aside_pose = turned(pivot_at)
    rest = left - pivot_at
    reach = _free_run(form, aside_pose, rest, pieces)
    cos = math.cos(math.radians(angle))

    def past(d: float) -> bool:
        """After ``d`` aside it can pivot back and flee the rest straight past ``piece``."""
        back = g.forward(aside_pose, d)
        if not _pivot_clear(form, back, -angle, pieces):
            return False
        away = g.Pose(back.x, back.y, pose.facing)
        return not g.overlapping(_sweep(form, away, max(rest - d, 0.0)), piece)

    if not past(reach):
        if reach < rest - TOL_MM:
            return None  # it would run into terrain before getting past
        return _Detour(rest * (1 - cos), angle, pivot_at, rest)  # ends aside, not past yet
    aside = 0.0 if past(0.0) else bisect_edge(past, 0.0, reach, TOL_MM)[1]  # the least
    return _Detour(aside * (1 - cos), angle, pivot_at, aside)


def _key(d: _Detour) -> tuple[float, float, int]:
    return (round(d.loss, 3), round(abs(d.angle), 3), 0 if d.angle > 0 else 1)


def _best_detour(form: g.Formation, pose: g.Pose, run: float, left: float,
                 piece: BaseGeometry, pieces: Sequence[BaseGeometry]) -> _Detour | None:
    """The shortest route round ``piece`` (module doc): every angle of the grid either way,
    then the best one's neighbourhood narrowed down (a golden-section search)."""
    best: _Detour | None = None
    steps = int(round(90.0 / GRID_DEG))
    for sign in (1.0, -1.0):
        for k in range(1, steps + 1):
            d = _detour(form, pose, run, left, sign * k * GRID_DEG, piece, pieces)
            if d is not None and (best is None or _key(d) < _key(best)):
                best = d
    if best is None:
        return None
    sign = 1.0 if best.angle > 0 else -1.0
    found = [best]

    def loss(a: float) -> float:
        d = _detour(form, pose, run, left, sign * a, piece, pieces)
        if d is not None and _key(d) < _key(found[0]):
            found[0] = d
        return math.inf if d is None else d.loss

    golden_min(loss, max(abs(best.angle) - GRID_DEG, ANGLE_TOL_DEG),
               min(abs(best.angle) + GRID_DEG, 90.0), ANGLE_TOL_DEG)
    return found[0]


def flight_route(form: g.Formation, pose: g.Pose, roll_mm: float,
                 terrain: Sequence[tuple[str, BaseGeometry]]) -> list[Leg]:
    """The legs of a flight of ``roll_mm`` from ``pose`` (already facing directly away) round
    the impassable ``terrain`` (id, shape) in its way (module doc)."""
    pieces = [shape for _, shape in terrain]
    legs: list[Leg] = []
    left = roll_mm
    for _ in range(MAX_PIECES + 1):
        run = _free_run(form, pose, left, pieces)
        if run >= left - TOL_MM or not pieces:
            legs.append(Leg(pose, left))
            return legs
        ahead = _sweep(form, pose, min(left, run + 10 * TOL_MM))
        met = [(tid, shape) for tid, shape in terrain if g.overlapping(ahead, shape)]
        tid, piece = met[0] if met else terrain[0]
        best = _best_detour(form, pose, run, left, piece, pieces) \
            if len(legs) < 2 * MAX_PIECES else None
        if best is None:
            legs.append(Leg(pose, run))  # nothing gets round: it stops against the terrain
            return legs
        if best.pivot_at > 0:
            legs.append(Leg(pose, best.pivot_at))
        start = g.forward(pose, best.pivot_at)
        aside = start.rotated(start.centre, best.angle)
        rest = left - best.pivot_at
        legs.append(Leg(aside, min(best.aside, rest), tid))
        if best.aside >= rest - TOL_MM:
            return legs
        back = g.forward(aside, best.aside)
        pose = g.Pose(back.x, back.y, pose.facing)
        left = rest - best.aside
    legs.append(Leg(pose, left))
    return legs


def route_point(legs: Sequence[Leg], moved: float) -> g.Pose:
    """Where the unit stands after ``moved`` along the route; past its end, on along the
    last leg (a flight that carries on to end clear)."""
    for leg in legs[:-1]:
        if moved <= leg.length_mm:
            return g.forward(leg.pose, moved)
        moved -= leg.length_mm
    return g.forward(legs[-1].pose, moved)


__all__ = ["Leg", "flight_route", "route_point"]
