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

import numpy as np
import shapely

import geometry as g

from .moves import STOP_SHORT_MM, FailedMove, first_contact, forward_room
from .world import World

#: Bisection halvings for the wheel angle (degrees over at most 180: under 1e-5 degrees).
HALVINGS = 24
#: Steps of the scan for the first change of side (degrees 180 / SCAN_STEPS apart).
SCAN_STEPS = 36
#: A unit ending this little inside the gap still keeps it (the gap is measured, and a
#: bisection stops a hair short either way).
GAP_TOL_MM = 1e-3
#: A wheel smaller than this (degrees) is not made: the bisection's noise, not a manoeuvre.
MIN_WHEEL_DEG = 1e-4


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
    centre straight at ``aim``. No cap: tow 1.6 [D] 1 wheels "until the forward ray from the
    charger's centre passes through the target's centre" and whfb8 2.6 does as tow; the
    90-degree limit is the charge move's (2.4). Half a turn at most: past that the other
    pivot's side is nearer."""
    fx, fy = start.forward
    left = fx * (aim[1] - start.y) - fy * (aim[0] - start.x) > 0
    pivot: g.moves.Pivot = "left" if left else "right"
    sign = 1.0 if left else -1.0
    if abs(_aim_error(form, start, pivot, 0.0, aim)) < 1e-9 * max(
            1.0, math.hypot(aim[0] - start.x, aim[1] - start.y)):
        return pivot, 0.0  # straight at it, to rounding
    # The first angle where the aim comes dead ahead: past it the aim lies on the other side,
    # and turning on towards half a turn it may cross back; so scan for the first change of
    # side, then bisect it.
    lo, hi = 0.0, None
    if (_aim_error(form, start, pivot, sign * 90.0, aim) > 0) != left:
        hi = 90.0  # the common case: the aim comes ahead within a quarter turn
    else:
        lo = 90.0
        for k in range(SCAN_STEPS // 2 + 1, SCAN_STEPS + 1):
            a = 180.0 * k / SCAN_STEPS
            if (_aim_error(form, start, pivot, sign * a, aim) > 0) != left:
                hi = a
                break
            lo = a
    if hi is None:
        return pivot, sign * 180.0  # not facing it even turned about (an aim beside the pivot)
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


def _within_reach(form: g.Formation, start: g.Pose, distance_mm: float, gap_mm: float,
                  world: World, gap_world: World | None) -> tuple[World, World | None]:
    """The worlds less what the move can never reach: no point of the unit travels further
    than the distance times the far rear corner's radius over the outer front corner's (a
    wheel's W x theta is paid for), so nothing beyond that and the gap can stop it or be
    approached (the answer is unchanged; the bisections test far fewer shapes)."""
    travel = distance_mm * max(1.0, math.hypot(form.width, form.depth) / form.width)
    pad = travel + gap_mm + 1.0
    x0, y0, x1, y1 = g.boundary(form, start).bounds
    box = (x0 - pad, y0 - pad, x1 + pad, y1 + pad)

    def far(w: World) -> set[str]:
        return {o.id for o in w.obstacles if o.bounds[0] > box[2] or o.bounds[2] < box[0] or
                o.bounds[1] > box[3] or o.bounds[3] < box[1]}

    out = far(world)
    near_world = world.without(out) if out else world
    if gap_world is None:
        return near_world, None
    out = far(gap_world)
    return near_world, gap_world.without(out) if out else gap_world


def failed_wheel_move(form: g.Formation, start: g.Pose, aim: tuple[float, float],
                      distance_mm: float, world: World, gap_mm: float = 0.0,
                      gap_world: World | None = None) -> FailedMove:
    """The failed charge move of the module doc."""
    world, gap_world = _within_reach(form, start, distance_mm, gap_mm, world, gap_world)
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

    # Only where the unit ends counts for the gap, not the way there ("no unit may end a
    # move within 1 in", tow 1.4; 7a: the forward part shortened, then the wheel). A unit
    # already that near at the start may move on if it ends clear; if it cannot, it stays.
    watch = [] if gap_world is None or gap_mm <= 0 else list(gap_world.obstacles)

    def keeps_gap(pose: g.Pose) -> bool:
        poly = g.boundary(form, pose)
        return not any(shapely.dwithin(o.polygon, poly, gap_mm - GAP_TOL_MM) for o in watch)

    def leg(angle: float) -> tuple[g.Pose, float, str | None, float | None, str | None]:
        """After the wheel by ``angle``: the pose, the forward room, what stops it, the longest
        forward move of that room ending the gap away (None: not even none), what cut it."""
        pose = g.wheel(form, start, pivot, angle) if abs(angle) > MIN_WHEEL_DEG else start
        rest = max(distance_mm - form.width * math.radians(abs(angle)), 0.0)
        moved, stopped_by = forward_room(form, pose, world, rest)
        here = g.boundary(form, pose)
        for o in world.obstacles:
            # Already touching what lies ahead: the move would end in contact (or over it by
            # the tolerance); a failed charge never does, so it stays (whfb8 2.5's W8-5).
            if moved > 0 and shapely.dwithin(o.polygon, here, g.EPS_MM) and \
                    shapely.intersection(g.Forward(moved).swept(form, pose),
                                         o.polygon).area > 1e-6:
                moved, stopped_by = 0.0, o.describe()
        ends, cut = end_gap_room(form, pose, moved, watch, gap_mm)
        return pose, moved, stopped_by, ends, cut

    pose, moved, stopped_by, ends, cut = leg(angle)
    if ends is None:
        # Even no forward move keeps the gap after this wheel: the wheel is shortened too.
        full = angle
        angle = full * _clear_fraction(lambda f: keeps_gap(g.wheel(form, start, pivot,
                                                                   full * f)))
        pose, moved, stopped_by, ends, cut = leg(angle)
    if ends is not None and ends < moved - 1e-9:
        moved = ends
        if cut is not None:
            stopped_by = f"{cut} (ending {gap_mm / 25.4:g} in away)"
    elif ends is None:
        moved = 0.0
        if cut is not None:
            stopped_by = f"{cut} (no end position along the way is {gap_mm / 25.4:g} in from it)"
    steps: list[g.Step] = []
    if abs(angle) > MIN_WHEEL_DEG:
        steps.append(g.Wheel(pivot, angle))
    if moved > 1e-9:
        steps.append(g.Forward(moved))
        pose = g.forward(pose, moved)
    return FailedMove(steps, pose, wanted, angle, blocked_by, distance_mm, moved, stopped_by,
                      "wheel")


#: Where a shortened forward move's end is bisected to (mm).
END_TOL_MM = 1e-4


def end_gap_room(form: g.Formation, pose: g.Pose, moved: float, watch: list,
                 gap_mm: float) -> tuple[float | None, str | None]:
    """The longest forward move from ``pose`` of at most ``moved`` whose end keeps ``gap_mm``
    from every obstacle of ``watch``, and the obstacle that shortened it (7a: the forward
    part shortened so that the unit ends the gap away); (None, ...) when not even staying
    put does. The distance from a convex piece of an obstacle to the unit moved straight by
    ``d`` is convex in ``d``, so the moves ending too near one piece form one interval: a
    move ending in it is shortened to below its start, by bisection, until no piece's
    interval holds it."""
    if not watch or gap_mm <= 0:
        return moved, None
    owners = [o for o in watch for _ in o.convex_parts]
    pieces = np.array([shapely.Polygon(p) for o in watch for p in o.convex_parts],
                      dtype=object)
    shapely.prepare(pieces)
    limit = gap_mm - GAP_TOL_MM

    def near_all(d: float) -> np.ndarray:
        """Which pieces the unit moved by ``d`` ends too near, in one call."""
        return shapely.dwithin(pieces, g.boundary(form, g.forward(pose, d)), limit)

    def near(d: float, piece: shapely.Geometry) -> bool:
        return bool(shapely.dwithin(piece, g.boundary(form, g.forward(pose, d)), limit))

    at_start = near_all(0.0)
    d, cut = moved, None
    while True:
        bad = np.flatnonzero(near_all(d))
        if not len(bad):
            return d, cut
        lowest = d
        for i in bad.tolist():
            o, p = owners[i], pieces[i]
            if at_start[i]:
                return None, o.describe()
            lo, hi = 0.0, d  # clear at lo, too near at hi: the interval starts between
            while hi - lo > END_TOL_MM:
                mid = (lo + hi) / 2
                if near(mid, p):
                    hi = mid
                else:
                    lo = mid
            if lo < lowest:
                lowest, cut = lo, o.describe()
        d = lowest


#: First wheels tried by the two-wheel failed move (whfb8 2.6 [D]): every 15 degrees each way.
SECOND_WHEEL_ANGLES = tuple(float(a) for a in range(15, 91, 15))
#: Where along the first leg's room the second wheel may start.
SECOND_WHEEL_AT = (0.5, 1.0)


def _centre_gap(pose: g.Pose, aim: tuple[float, float]) -> float:
    return math.hypot(pose.x - aim[0], pose.y - aim[1])


def two_wheel_failed_move(form: g.Formation, start: g.Pose, aim: tuple[float, float],
                          distance_mm: float, world: World, gap_mm: float = 0.0,
                          gap_world: World | None = None) -> FailedMove:
    """whfb8 2.6 [D] (and 7a): the failed move "wheeling around impassable terrain and units
    ... by the shortest route". The one-wheel move of :func:`failed_wheel_move` first; only
    when something stops it, paths of two wheels, each followed by a forward leg, totalling
    the distance: a first wheel every 15 degrees either way, a first leg of half or all of
    the room it has, then the one-wheel move towards the target with what
    is left. Only a path that moves the whole distance steers round (step 3: "totalling the
    highest die"), and only one ending closer to the target's centre than the one-wheel move
    stopped short does; of those the closest wins, ties going to fewer wheels, then the
    smaller total angle. When none does, the one-wheel move stops where it must (step 4: "no
    wheel can steer it round"): a wheel away from the target that is itself stopped short is
    no way round (outside testing, round 2, whfb8 F3: it turned 15-45 degrees away from a
    target dead ahead). A bounded search: a path is skipped when even moving all that is left
    straight at the target could not beat the best found."""
    first = failed_wheel_move(form, start, aim, distance_mm, world, gap_mm, gap_world)
    if first.stopped_by is None and first.turn_blocked_by is None:
        return first
    turned = sum(abs(s.angle_deg) for s in first.steps if isinstance(s, g.Wheel))
    best = (_centre_gap(first.final, aim), 1, turned)
    choice = first
    # How far the centre can travel per millimetre of movement paid: 1 along a forward, at
    # most the centre's radius over the outer corner's in a wheel.
    reach = max(1.0, math.hypot(form.width / 2, form.depth / 2) / form.width)
    near_start = {o.id for o in world.obstacles
                  if shapely.dwithin(o.polygon, g.boundary(form, start), STOP_SHORT_MM)}
    # What the move must end the gap away from: all of gap_world but what starts nearer.
    keep = [] if gap_world is None else [
        o for o in gap_world.obstacles
        if shapely.distance(o.polygon, g.boundary(form, start)) >= gap_mm - GAP_TOL_MM]
    for sign in (1.0, -1.0):
        pivot: g.moves.Pivot = "left" if sign > 0 else "right"
        for a in SECOND_WHEEL_ANGLES:
            cost = form.width * math.radians(a)
            if cost >= distance_mm:
                break
            wheel = g.Wheel(pivot, sign * a)
            area = wheel.swept(form, start)
            if world.blocked(area) is not None or any(
                    o.id not in near_start and shapely.dwithin(o.polygon, area, STOP_SHORT_MM)
                    for o in world.obstacles):
                break  # a longer wheel sweeps this one's area too
            pose1 = wheel.apply(form, start)
            if _centre_gap(pose1, aim) - (distance_mm - cost) * reach >= best[0] - 1e-9:
                continue  # even all the rest straight at the target could not beat the best
            if gap_world is not None and gap_mm > 0 and any(
                    shapely.dwithin(o.polygon, g.boundary(form, pose1), gap_mm - 1e-6)
                    for o in gap_world.obstacles):
                continue
            room, _ = forward_room(form, pose1, world, distance_mm - cost)
            if gap_world is not None and gap_mm > 0:
                near, _, _ = first_contact(form, pose1, gap_world, gap_mm=gap_mm,
                                           exact_gap=True)
                room = min(room, max(near - 1e-6, 0.0))
            for frac in SECOND_WHEEL_AT:
                leg = room * frac
                if leg <= 1e-6:
                    continue
                pose2 = g.forward(pose1, leg)
                if gap_world is not None and gap_mm > 0 and any(
                        shapely.dwithin(o.polygon, g.boundary(form, pose2), gap_mm - GAP_TOL_MM)
                        for o in keep):
                    continue  # the first leg slid within the gap of something
                rest = distance_mm - cost - leg
                if _centre_gap(pose2, aim) - rest * reach >= best[0] - 1e-9:
                    continue  # cannot end closer than the best path found
                then = failed_wheel_move(form, pose2, aim, rest, world, gap_mm, gap_world)
                if then.stopped_by is not None:
                    continue  # stopped short too: not a way round
                wheels = 1 + sum(1 for s in then.steps if isinstance(s, g.Wheel))
                angle = a + sum(abs(s.angle_deg) for s in then.steps if isinstance(s, g.Wheel))
                key = (_centre_gap(then.final, aim), wheels, angle)
                if key < best:
                    best = key
                    # ``wheels``: the steps say it all; what the one wheel met is kept.
                    choice = FailedMove([wheel, g.Forward(leg), *then.steps], then.final,
                                        first.turn_wanted_deg, sign * a,
                                        first.stopped_by or first.turn_blocked_by,
                                        distance_mm, leg + then.moved_mm, then.stopped_by,
                                        "wheels")
    return choice
