"""Primitive moves and their swept areas (RULES.md 4, 6)."""

from __future__ import annotations

import math

import numpy as np
import shapely
from hypothesis import example, given, settings
from hypothesis import strategies as st

import geometry as g
from geometry.constants import SWEEP_TOL_MM
from geometry.formation import boundary_coords

poses = st.builds(g.Pose, st.floats(200, 1600), st.floats(200, 1000), st.floats(-180, 180))
formations = st.builds(
    lambda bw, bd, f, r: g.Formation.full((bw, bd), f, r),
    st.sampled_from([20.0, 25.0, 40.0, 50.0]), st.sampled_from([20.0, 25.0, 50.0, 75.0]),
    st.integers(1, 8), st.integers(1, 5))
angles = st.floats(-90, 90).filter(lambda a: abs(a) > 1e-3)
pivot_points = st.tuples(st.floats(-300, 300), st.floats(-300, 300))


def _steps(draw_angle: float, pivot: str, point: tuple[float, float], pose: g.Pose):
    return [g.Forward(draw_angle * 3), g.Wheel(pivot, draw_angle),  # type: ignore[arg-type]
            g.Align((pose.x + point[0], pose.y + point[1]), draw_angle), g.Turn(draw_angle)]


def _inverse(step: g.Step) -> g.Step:
    if isinstance(step, g.Forward):
        return g.Forward(-step.distance_mm)
    if isinstance(step, g.Align):
        return g.Align(step.pivot_point, -step.angle_deg)
    if isinstance(step, g.Turn):
        return g.Turn(-step.angle_deg)
    raise AssertionError(step)


@given(formations, poses, angles, pivot_points)
def test_move_then_inverse_returns_the_pose(form, pose, angle, point):
    for step in _steps(angle, "left", point, pose):
        after = step.apply(form, pose)
        if isinstance(step, g.Wheel):
            # The inverse of a wheel about a front corner is the opposite wheel about the same
            # corner, which is still that corner after the wheel.
            back = g.Wheel(step.pivot, -step.angle_deg).apply(form, after)
        else:
            back = _inverse(step).apply(form, after)
        assert back.close_to(pose, 1e-6, 1e-9)


def _uncovered(poly: shapely.Polygon, swept: shapely.Polygon) -> float:
    """Area of ``poly`` outside ``swept``, by a snap-rounded overlay: the end rectangle rebuilt
    from its pose and the sweep's rotated corners differ by ~1e-14 mm, on which GEOS's floating
    overlay can silently answer the whole rectangle (geometry.constants.OVERLAY_GRID_MM)."""
    return shapely.difference(poly, swept, grid_size=g.OVERLAY_GRID_MM).area


@given(formations, poses, angles, st.sampled_from(["left", "right"]), pivot_points)
@settings(max_examples=60, deadline=None)
# Regressions: a wheel whose pivot was rebuilt 1e-14 mm off the corner, and an align about an
# outside point whose band foot was rebuilt 1e-14 mm off a corner; both made GEOS drop a piece.
@example(g.Formation.full((25.0, 25.0), 6, 1), g.Pose(200.0, 200.0, 83.5), 1.0, "left", (0, 0))
@example(g.Formation.full((50.0, 25.0), 3, 1), g.Pose(200.0, 200.0, -2.4773749564101877), 2.0,
         "left", (-19.4791614659793, -170.10416577410905))
@example(g.Formation.full((50.0, 20.0), 8, 5), g.Pose(200.0, 200.0, -107.1), -1.0, "left",
         (-150.34851441572005, 247.16614814075956))
def test_swept_area_contains_start_and_end(form, pose, angle, pivot, point):
    for step in _steps(angle, pivot, point, pose):
        swept = step.swept(form, pose)
        assert swept.is_valid
        assert swept.geom_type == "Polygon"
        start = g.boundary(form, pose)
        end = g.boundary(form, step.apply(form, pose))
        assert _uncovered(start, swept) < 1e-6
        assert _uncovered(end, swept) < 1e-6


def _distance_to_true_sweep(q: np.ndarray, rect: list, centre, angle_deg: float) -> float:
    """Distance from q to the region swept by ``rect`` rotating about ``centre``: rotation is an
    isometry, so it is the least distance from the arc q sweeps the other way, R(-t) q for t
    between 0 and the angle, to the rectangle. That least distance is at an end of the arc, where
    the arc crosses a side (distance 0), where the arc point lines up with the centre and a
    corner, or where it runs parallel to a side (the arc's normal is the side's normal): each a
    closed form in t, evaluated exactly."""
    theta = math.radians(angle_deg)
    x, y = q[0] - centre[0], q[1] - centre[1]
    radius = math.hypot(x, y)
    poly = shapely.Polygon(rect)
    start = math.atan2(y, x)  # the arc point at t is at polar angle start - t
    polars = []
    pts = [(p[0] - centre[0], p[1] - centre[1]) for p in rect]
    for i, (ax, ay) in enumerate(pts):
        bx, by = pts[(i + 1) % len(pts)]
        dx, dy = bx - ax, by - ay
        polars += [math.atan2(ay, ax), math.atan2(dx, -dy)]  # a corner; a side's normal
        # The arc's circle crossing the side: a + s d with |a + s d| = radius, s in [0, 1].
        a2, ad, d2 = ax * ax + ay * ay, ax * dx + ay * dy, dx * dx + dy * dy
        disc = ad * ad - d2 * (a2 - radius * radius)
        if disc >= 0:
            for sgn in (-1.0, 1.0):
                s_ = (-ad + sgn * math.sqrt(disc)) / d2
                if 0.0 <= s_ <= 1.0:
                    polars.append(math.atan2(ay + s_ * dy, ax + s_ * dx))
    lo, hi = min(0.0, theta), max(0.0, theta)
    ts = start - np.asarray(polars)
    # Each polar angle (and its opposite) stands for every t it equals modulo a turn.
    ts = np.concatenate([ts + k * math.pi for k in range(-6, 7)])
    ts = np.concatenate([[0.0, theta], ts[(ts >= lo) & (ts <= hi)]])
    px = centre[0] + np.cos(-ts) * x - np.sin(-ts) * y
    py = centre[1] + np.sin(-ts) * x + np.cos(-ts) * y
    return float(shapely.distance(poly, shapely.points(np.c_[px, py])).min())


@given(formations, poses, angles, pivot_points)
@settings(max_examples=40, deadline=None)
def test_rotation_sweep_is_tight_and_conservative(form, pose, angle, point):
    """The swept polygon holds every intermediate position and strays at most SWEEP_TOL_MM
    outside the true swept region (checked at its vertices with an exact distance)."""
    rect = boundary_coords(form, pose)
    for centre in (g.corners(form, pose)["front_left"], (pose.x + point[0], pose.y + point[1])):
        swept = g.rotation_sweep(rect, centre, angle)
        for a in np.linspace(0, angle, 97):
            pos = shapely.Polygon([g.rotate_point(p, centre, a) for p in rect])
            assert _uncovered(pos, swept) < 1e-6
        verts = np.asarray(swept.exterior.coords)
        for v in verts:
            assert _distance_to_true_sweep(v, rect, centre, angle) <= SWEEP_TOL_MM + 2e-4


@given(formations, poses, st.floats(0, 500), st.floats(-180, 180))
def test_translation_sweep_is_exact_hull(form, pose, dist, heading):
    """translation_sweep of a rectangle moved ``dist`` along any heading is the hull of its
    start and end: area W*D + dist * (the rectangle's width across the heading), containing
    every intermediate position and nothing farther than a hair outside them."""
    rect = boundary_coords(form, pose)
    dx, dy = dist * math.cos(math.radians(heading)), dist * math.sin(math.radians(heading))
    end = [(x + dx, y + dy) for x, y in rect]
    swept = g.translation_sweep(rect, end)
    rel = math.radians(heading - pose.facing)
    across = form.width * abs(math.cos(rel)) + form.depth * abs(math.sin(rel))
    expected = form.width * form.depth + dist * across
    assert math.isclose(swept.area, expected, rel_tol=1e-9, abs_tol=1e-6)
    for t in np.linspace(0, 1, 7):
        mid = shapely.Polygon([(x + t * dx, y + t * dy) for x, y in rect])
        assert _uncovered(mid, swept) < 1e-6
    # Forward moves use exactly this sweep along the facing.
    fwd = g.Forward(dist).swept(form, pose)
    along = [(x + dist * pose.forward[0], y + dist * pose.forward[1]) for x, y in rect]
    assert fwd.symmetric_difference(g.translation_sweep(rect, along)).area < 1e-6


def test_forward_wheel_signs():
    form = g.Formation.full((25, 50), 5, 2)
    pose = g.Pose(600, 300, 90)
    left = g.Wheel("left", 90).apply(form, pose)
    # Wheeling 90 degrees about the left front corner (537.5, 350) turns the unit to face -x,
    # its front-left corner staying put and its right flank now to the north.
    assert left.close_to(g.Pose(537.5 + 50, 350 + 62.5, 180))
    assert g.corners(form, left)["front_left"] == pytest_approx((537.5, 350))


def pytest_approx(p):
    import pytest

    return pytest.approx(p, abs=1e-9)


@given(formations, poses, st.lists(st.sampled_from(["f", "w", "a", "t"]), max_size=5),
       st.floats(-60, 60))
def test_step_json_round_trip_replays(form, pose, kinds, angle):
    steps: list[g.Step] = []
    for k in kinds:
        steps.append({"f": g.Forward(abs(angle) * 2), "w": g.Wheel("right", -abs(angle)),
                      "a": g.Align((pose.x + 10, pose.y - 5), angle), "t": g.Turn(angle)}[k])
    poses_ = g.replay(form, pose, steps)
    data = [g.step_to_json(s, p) for s, p in zip(steps, poses_, strict=True)]
    again = g.replay(form, pose, [g.step_from_json(d) for d in data])
    for d, p in zip(data, again, strict=True):
        assert p.close_to(g.Pose.from_json(d["pose"]))


@given(formations, poses, angles, st.sampled_from(["left", "right"]), pivot_points)
@settings(max_examples=60, deadline=None)
def test_step_bounds_hold_the_sweep_tightly(form, pose, angle, pivot, point):
    """A step's bounding box (used to skip exact sweeps far from everything) holds every
    intermediate position and is no larger than the swept polygon's box."""
    for step in _steps(angle, pivot, point, pose):
        x0, y0, x1, y1 = step.bounds(form, pose)
        sx0, sy0, sx1, sy1 = step.swept(form, pose).bounds
        # The swept polygon is circumscribed, up to SWEEP_TOL_MM outside the true region.
        tol = SWEEP_TOL_MM + 1e-6
        assert sx0 >= x0 - tol and sy0 >= y0 - tol and sx1 <= x1 + tol and sy1 <= y1 + tol
        assert x0 >= sx0 - 1e-6 and y0 >= sy0 - 1e-6 and x1 <= sx1 + 1e-6 and y1 <= sy1 + 1e-6
