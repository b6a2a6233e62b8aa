"""Contact and models in contact (RULES.md 4)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import example, given, settings
from hypothesis import strategies as st

import geometry as g
from geometry.formation import FACINGS, rear_rank_files


def _flush(target: g.Body, facing: str, charger_form: g.Formation, offset: float) -> g.Body:
    """A charger placed flush against ``facing`` of ``target``, its front-left corner
    ``offset`` mm along the facing from the facing's clockwise end."""
    a, b = target.facings[facing]  # type: ignore[index]
    n = g.facing_normal(target.pose, facing)  # type: ignore[arg-type]
    length = math.dist(a, b)
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    # The charger faces -n; its right vector then runs from b towards a.
    facing_deg = math.degrees(math.atan2(-n[1], -n[0]))
    fl = (b[0] - offset * ux, b[1] - offset * uy)
    pose0 = g.Pose(0, 0, facing_deg)
    u, v = -charger_form.width / 2, charger_form.depth / 2
    w = pose0.to_world(u, v)
    return g.Body(charger_form, g.Pose(fl[0] - w[0], fl[1] - w[1], facing_deg))


def _brute(a: g.Body, b: g.Body) -> tuple[int, int]:
    ma = g.model_bases(a.form, a.pose)
    mb = g.model_bases(b.form, b.pose)
    ca = sum(1 for *_, p in ma if any(shapely.dwithin(p, q, g.EPS_MM) for *_, q in mb))
    cb = sum(1 for *_, q in mb if any(shapely.dwithin(q, p, g.EPS_MM) for *_, p in ma))
    return ca, cb


@st.composite
def short_rank_formations(draw):
    files = draw(st.integers(1, 7))
    ranks = draw(st.integers(1, 4))
    base = (draw(st.sampled_from([20.0, 25.0, 40.0])), draw(st.sampled_from([20.0, 25.0, 50.0])))
    rear = draw(st.integers(1, files)) if ranks > 1 else files
    placement = draw(st.sampled_from(["centre", "left", "right"]))
    return g.Formation(base[0], base[1], files, ranks, rear_rank_files(files, rear, placement))


@given(short_rank_formations(), short_rank_formations(), st.sampled_from(FACINGS),
       st.floats(-0.6, 1.6), st.floats(-180, 180), st.booleans())
@settings(max_examples=200, deadline=None)
def test_contact_counts_agree_with_brute_force(tform, cform, facing, frac, angle, snap):
    target = g.Body(tform, g.Pose(500, 500, angle))
    a, b = target.facings[facing]
    length = math.dist(a, b)
    offset = frac * (length + cform.width) - cform.width / 2
    if snap:  # exact offsets where base edges meet: corner contact must count
        step = math.gcd(int(cform.base_w), int(tform.base_w if facing in ("front", "rear")
                                                 else tform.base_d))
        offset = round(offset / step) * step
    charger = _flush(target, facing, cform, offset)
    got = g.models_in_contact(charger, target)
    want = _brute(charger, target)
    assert (len(got.a_models), len(got.b_models)) == want


def test_corner_contact_counts_one_more_model():
    """Five 25 mm charger bases (125 mm) flush with a front of 20 mm bases. Spanning 45..170 mm
    along the facing they touch bases 2..8 (7 models: 5 + 7 = 12); shifted to 40..165 the
    charger's corner meets the edge of base 1 at 40 mm, which counts (5 + 8 = 13)."""
    target = g.Body(g.Formation.full((20, 20), 10, 3), g.Pose(500, 500, -90))
    cform = g.Formation.full((25, 50), 5, 2)
    ch = _flush(target, "front", cform, 45.0)
    got = g.models_in_contact(ch, target)
    assert (len(got.a_models), len(got.b_models)) == (5, 7)
    ch = _flush(target, "front", cform, 40.0)
    got = g.models_in_contact(ch, target)
    assert (len(got.a_models), len(got.b_models)) == (5, 8)


def test_flank_presents_one_model_per_rank():
    target = g.Body(g.Formation(20, 20, 5, 4, (1, 2, 3)), g.Pose(500, 500, 0))
    cform = g.Formation.full((20, 20), 5, 1)
    ch = _flush(target, "left", cform, -10.0)  # covers the 80 mm flank and 10 mm past it
    got = g.models_in_contact(ch, target)
    # Ranks 0-2 present their end model; the short rear rank (files 1-3) has none at the left.
    assert len(got.b_models) == 3
    assert _brute(ch, target) == (len(got.a_models), len(got.b_models))


def test_touching_and_overlapping_use_one_tolerance():
    a = shapely.box(0, 0, 10, 10)
    assert g.touching(a, shapely.box(10.009, 0, 20, 10))
    assert not g.touching(a, shapely.box(10.02, 0, 20, 10))
    assert not g.overlapping(shapely.box(9.995, 0, 20, 10), a)
    assert g.overlapping(shapely.box(9.98, 0, 20, 10), a)
    assert g.penetration_mm(shapely.box(9.98, 0, 20, 10), a) == __import__("pytest").approx(0.02)


@given(st.lists(st.tuples(st.floats(0, 300), st.floats(0, 300), st.floats(-180, 180)),
                min_size=1, max_size=12),
       st.floats(10, 150), st.floats(10, 80), st.tuples(st.floats(-90, 90), st.floats(-90, 90)),
       st.lists(st.tuples(st.floats(80, 220), st.floats(80, 220)), min_size=3, max_size=8))
@settings(max_examples=150, deadline=None)
def test_vectorised_penetrations_agree_with_the_scalar_test(rects, w, d, shift, pts):
    """The search's vectorised separating-axis depths (rectangles, and straight sweeps of them)
    equal the scalar test on the same convex polygons."""
    other = shapely.MultiPoint(pts).convex_hull
    if other.geom_type != "Polygon" or other.area < 1.0:
        return
    ring = np.asarray(other.exterior.coords[:-1])
    xs, ys, fs = (np.array(v) for v in zip(*rects, strict=True))
    a = g.contact.rect_corners(xs, ys, fs, w, d)
    b = a + np.asarray(shift)
    got = g.contact.rect_penetrations(a, ring)
    swept = g.contact.sweep_penetrations(a, b, ring)
    for i in range(len(a)):
        assert got[i] == pytest.approx(g.penetration_mm(shapely.Polygon(a[i]), other), abs=1e-7)
        hull = shapely.MultiPoint(np.concatenate([a[i], b[i]])).convex_hull
        assert swept[i] == pytest.approx(g.penetration_mm(hull, other), abs=1e-7)


@given(st.floats(0, 300), st.floats(0, 300), st.floats(-180, 180), st.floats(10, 150),
       st.floats(10, 80), st.lists(st.tuples(st.floats(80, 220), st.floats(80, 220)),
                                   min_size=3, max_size=8),
       st.sampled_from([0.0, 0.02, 1.0]), st.lists(st.floats(0, 400), min_size=1, max_size=8))
@settings(max_examples=200, deadline=None)
@example(100.0, 100.0, 0.0, 40.0, 20.0, [(80.0, 80.0), (120.0, 80.0), (120.0, 90.0)], 0.0,
         [0.0, 5.0, 50.0])  # an axis-parallel edge: motion parallel to a separating axis
def test_forward_reach_is_the_closed_form_of_the_sweep_test(x, y, f, w, d, pts, limit, ds):
    """A straight move is blocked by a polygon exactly when it is longer than the polygon's
    forward reach: the same verdict as the vectorised sweep test at every length (away from
    the threshold itself, where the two differ only by rounding)."""
    other = shapely.MultiPoint(pts).convex_hull
    if other.geom_type != "Polygon" or other.area < 1.0:
        return
    ring = np.asarray(other.exterior.coords[:-1])
    rect = g.contact.rect_corners(np.array([x]), np.array([y]), np.array([f]), w, d)[0]
    direction = (math.cos(math.radians(f)), math.sin(math.radians(f)))
    polys = g.contact.ConvexSet.of(ring)
    reach = g.contact.forward_reach(rect, direction, polys, np.array([limit]))[0]
    for dist in ds:
        moved = rect + dist * np.asarray(direction)
        depth = g.contact.sweep_penetrations(rect[None], moved[None], ring)[0]
        if abs(dist - reach) > 1e-6:
            assert (depth > limit) == (dist > reach), (dist, reach, depth)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6))
def test_contact_distances_match_one_at_a_time(seed: int) -> None:
    """The vectorised straight-move distances (charges.moves.first_contact) give exactly the
    figures of one call per obstacle, for rectangles and other polygons ahead, beside and
    behind the mover."""
    from geometry.distance import contact_distance, contact_distances

    rng = np.random.default_rng(seed)
    mover = g.Pose(*rng.uniform(-100, 100, 2), float(rng.uniform(-180, 180)))
    coords = g.formation.boundary_coords(g.Formation.full((25, 25), 5, 3), mover)
    f = mover.forward
    obstacles = []
    for n in range(int(rng.integers(1, 6))):
        # The first straight ahead (met), the others anywhere.
        centre = np.asarray(mover.centre) + 250 * np.asarray(f) if n == 0 else \
            rng.uniform(-400, 400, 2)
        k = int(rng.integers(4, 9))
        # Angles less than half a turn apart: the polygon holds its centre.
        ang = (np.arange(k) + rng.uniform(0, 0.5, k)) * 2 * np.pi / k
        rad = rng.uniform(10, 80, k)
        obstacles.append(np.stack([centre[0] + rad * np.cos(ang),
                                   centre[1] + rad * np.sin(ang)], axis=1))
    got = contact_distances(coords, f, obstacles)
    want = [contact_distance(coords, f, [tuple(p) for p in o]) for o in obstacles]
    assert got.tolist() == want
    assert 100 < want[0] < 250


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_least_and_greatest_are_min_and_max(seed: int) -> None:
    """contact.least / greatest (elementwise over a short axis, the separating-axis tests'
    hot path) give exactly numpy's min / max over that axis, NaN included."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(int(rng.integers(1, 9)), int(rng.integers(1, 7)), 2)) * 1e3
    if rng.random() < 0.3:
        x[tuple(rng.integers(0, n) for n in x.shape)] = np.nan
    for axis in range(3):
        np.testing.assert_array_equal(g.contact.least(x, axis), x.min(axis=axis))
        np.testing.assert_array_equal(g.contact.greatest(x, axis), x.max(axis=axis))
