"""The failed charge that wheels towards its target (tow 1.6, whfb8 2.6 and RULES-editions.md 7a;
the ruleset hook ``failed_turns`` off).

The charger wheels about the front corner on the target's side until the forward ray from its
centre passes through the target's centre ("directly towards"), paying the wheel, W x theta,
out of the distance, and stops the wheel early if the distance runs out or something is met.
Then it moves straight forward the rest, stopping just before anything, and so that it ends at
least ``gap_mm`` from what ``gap_world`` holds (tow: every enemy, 1"; whfb8: every unit and
impassable terrain, 1"). If even no forward move keeps that gap, the wheel is shortened the same
way; the unit never moves backwards.
"""

from __future__ import annotations

import math

import shapely

import geometry as g

from .moves import STOP_SHORT_MM, FailedMove, first_contact, forward_room
from .world import World

#: Bisection halvings for the wheel angle (degrees over at most 90: under 1e-5 degrees).
HALVINGS = 24


def _aim_error(form: g.Formation, start: g.Pose, pivot: g.moves.Pivot, angle: float,
               aim: tuple[float, float]) -> float:
    """How far left of the charger's heading the aim lies after wheeling ``angle`` (the cross
    product of the heading with the way to the aim: 0 when it points straight at it)."""
    pose = g.wheel(form, start, pivot, angle)
    fx, fy = pose.forward
    return fx * (aim[1] - pose.y) - fy * (aim[0] - pose.x)


def wanted_wheel(form: g.Formation, start: g.Pose, aim: tuple[float, float]
                 ) -> tuple[g.moves.Pivot, float]:
    """The pivot on the aim's side and the wheel (degrees, signed) that points the charger's
    centre straight at ``aim`` (at most 90 degrees)."""
    fx, fy = start.forward
    left = fx * (aim[1] - start.y) - fy * (aim[0] - start.x) > 0
    pivot: g.moves.Pivot = "left" if left else "right"
    sign = 1.0 if left else -1.0
    if abs(_aim_error(form, start, pivot, 0.0, aim)) < 1e-9:
        return pivot, 0.0
    lo, hi = 0.0, 90.0
    if (_aim_error(form, start, pivot, sign * hi, aim) > 0) == left:
        return pivot, sign * hi  # still not facing it after 90 degrees
    for _ in range(HALVINGS):
        mid = (lo + hi) / 2
        if (_aim_error(form, start, pivot, sign * mid, aim) > 0) == left:
            lo = mid
        else:
            hi = mid
    return pivot, sign * lo


def _clear_fraction(ok: object) -> float:
    """The largest fraction in [0, 1] for which ``ok(fraction)`` holds, given ok(0)."""
    if ok(1.0):  # type: ignore[operator]
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(HALVINGS):
        mid = (lo + hi) / 2
        if ok(mid):  # type: ignore[operator]
            lo = mid
        else:
            hi = mid
    return lo


def failed_wheel_move(form: g.Formation, start: g.Pose, aim: tuple[float, float],
                      distance_mm: float, world: World, gap_mm: float = 0.0,
                      gap_world: World | None = None) -> FailedMove:
    """The failed charge move of the module doc."""
    pivot, wanted = wanted_wheel(form, start, aim)
    budget = math.degrees(distance_mm / form.width)  # the wheel is paid out of the distance
    angle = math.copysign(min(abs(wanted), budget), wanted) if wanted else 0.0
    blocked_by = None
    here_near = {o.id for o in world.obstacles
                 if shapely.dwithin(o.polygon, g.boundary(form, start), STOP_SHORT_MM)}

    def wheel_clear(frac: float) -> bool:
        if frac <= 0:
            return True
        area = g.Wheel(pivot, angle * frac).swept(form, start)
        if world.blocked(area) is not None:
            return False
        return not any(o.id not in here_near and shapely.dwithin(o.polygon, area, STOP_SHORT_MM)
                       for o in world.obstacles)

    if abs(angle) > 1e-9:
        frac = _clear_fraction(wheel_clear)
        if frac < 1.0:
            blk = world.blocked(g.Wheel(pivot, angle).swept(form, start))
            blocked_by = blk.describe() if blk is not None else "an obstacle"
            angle *= frac

    def keeps_gap(pose: g.Pose) -> bool:
        if gap_world is None or gap_mm <= 0:
            return True
        poly = g.boundary(form, pose)
        return not any(shapely.dwithin(o.polygon, poly, gap_mm - 1e-6)
                       for o in gap_world.obstacles)

    if abs(angle) > 1e-9 and not keeps_gap(g.wheel(form, start, pivot, angle)):
        full = angle
        angle = full * _clear_fraction(lambda f: keeps_gap(g.wheel(form, start, pivot,
                                                                   full * f)))
    steps: list[g.Step] = []
    pose = start
    if abs(angle) > 1e-9:
        steps.append(g.Wheel(pivot, angle))
        pose = g.wheel(form, start, pivot, angle)
    rest = max(distance_mm - form.width * math.radians(abs(angle)), 0.0)
    moved, stopped_by = forward_room(form, pose, world, rest)
    here = g.boundary(form, pose)
    for o in world.obstacles:
        # Already touching what lies ahead: the move would end in contact (or over it by the
        # tolerance); a failed charge never does, so it stays (whfb8 2.5's W8-5).
        if moved > 0 and shapely.dwithin(o.polygon, here, g.EPS_MM) and \
                shapely.intersection(g.Forward(moved).swept(form, pose), o.polygon).area > 1e-6:
            moved, stopped_by = 0.0, o.describe()
    if gap_world is not None and gap_mm > 0 and moved > 0:
        near, near_hit, _ = first_contact(form, pose, gap_world, gap_mm=gap_mm,
                                          exact_gap=True)
        if near < moved:
            moved = max(near - 1e-6, 0.0)
            stopped_by = next((f"{o.describe()} (ending {gap_mm / 25.4:g} in away)"
                               for o in gap_world.obstacles if o.id == near_hit), stopped_by)
    if moved > 1e-9:
        steps.append(g.Forward(moved))
        pose = g.forward(pose, moved)
    return FailedMove(steps, pose, wanted, angle, blocked_by, distance_mm, moved, stopped_by,
                      "wheel")
