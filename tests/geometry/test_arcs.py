"""Arcs from 45-degree corner rays (RULES.md 1)."""

from __future__ import annotations

import math

import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

import geometry as g

poses = st.builds(g.Pose, st.floats(-500, 500), st.floats(-500, 500), st.floats(-180, 180))
formations = st.builds(
    lambda bw, bd, f, r: g.Formation.full((bw, bd), f, r),
    st.sampled_from([20.0, 25.0, 40.0]), st.sampled_from([20.0, 50.0, 75.0]),
    st.integers(1, 8), st.integers(1, 6))


@given(formations, poses)
@settings(max_examples=50)
def test_four_arcs_cover_the_plane_and_overlap_only_on_rays(form, pose):
    arcs = g.arc_polygons(form, pose)
    disc = shapely.Point(pose.x, pose.y).buffer(3000)
    # Snap-rounded overlays: the arcs and the boundary share corners rebuilt separately
    # (geometry.constants.OVERLAY_GRID_MM).
    grid = g.OVERLAY_GRID_MM
    covered = shapely.union_all([*arcs.values(), g.boundary(form, pose)], grid_size=grid)
    assert shapely.difference(disc, covered, grid_size=grid).area < 1e-3 * disc.area * 1e-3
    names = list(arcs)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert shapely.intersection(arcs[a], arcs[b], grid_size=grid).area < 1e-3


def _wedge(form: g.Formation, pose: g.Pose, p) -> set[str]:
    """Independent point-in-wedge: the angle of p seen from each corner against the two rays
    bounding each arc, by cross products in table coordinates."""
    c = g.corners(form, pose)
    f, r = pose.forward, pose.right
    s = 1 / math.sqrt(2)
    rays = {"front_left": ((f[0] - r[0]) * s, (f[1] - r[1]) * s),
            "front_right": ((f[0] + r[0]) * s, (f[1] + r[1]) * s),
            "rear_right": ((-f[0] + r[0]) * s, (-f[1] + r[1]) * s),
            "rear_left": ((-f[0] - r[0]) * s, (-f[1] - r[1]) * s)}

    def cross(o, d, q):
        return d[0] * (q[1] - o[1]) - d[1] * (q[0] - o[0])

    out = set()
    for name, (a, b) in {"front": ("front_left", "front_right"),
                         "right": ("front_right", "rear_right"),
                         "rear": ("rear_right", "rear_left"),
                         "left": ("rear_left", "front_left")}.items():
        # Inside the wedge: right of ray a, left of ray b, and beyond the facing a->b.
        edge = (c[b][0] - c[a][0], c[b][1] - c[a][1])
        tol = 1e-6
        if (cross(c[a], rays[a], p) <= tol and cross(c[b], rays[b], p) >= -tol
                and cross(c[a], edge, p) >= -tol):
            out.add(name)
    return out


@given(formations, poses, st.floats(-1500, 1500), st.floats(-1500, 1500))
def test_point_arc_agrees_with_independent_wedge_test(form, pose, dx, dy):
    p = (pose.x + dx, pose.y + dy)
    if g.boundary(form, pose).buffer(1e-3).contains(shapely.Point(p)):
        return
    got = g.arcs_of_point(form, pose, p, tol=1e-6)
    want = _wedge(form, pose, p)
    assert got == want
    # And the polygons agree with the closed form away from the rays.
    arcs = g.arc_polygons(form, pose)
    inside = {n for n, a in arcs.items() if a.intersects(shapely.Point(p).buffer(1e-3))}
    assert want <= inside


def test_rays_are_not_diagonals():
    """A 5x2 unit of 25x50 bases (125 x 100 mm): a point ahead of the front-right corner at 40
    degrees off the facing line lies in the right arc of the 45-degree rays, while the diagonal
    from the centre through that corner (38.7 degrees) would put it in the front arc."""
    form = g.Formation.full((25, 50), 5, 2)
    pose = g.Pose(0, 0, 90)  # facing +y; front-right corner at (62.5, 50)
    p = (62.5 + 100 * math.cos(math.radians(40)), 50 + 100 * math.sin(math.radians(40)))
    assert g.arcs_of_point(form, pose, p) == {"right"}
    q = (62.5 + 100, 50 + 100)  # exactly on the ray: both arcs
    assert g.arcs_of_point(form, pose, q) == {"front", "right"}


def test_arc_shares_sum_to_one_and_pick_the_majority():
    target = g.Formation.full((20, 20), 5, 4)  # 100 x 80
    tpose = g.Pose(0, 0, 90)
    charger = g.boundary(g.Formation.full((25, 50), 5, 2), g.Pose(30, 200, -90))
    shares = g.arc_shares(target, tpose, charger)
    assert math.isclose(sum(shares.values()), 1.0, abs_tol=1e-9)
    assert shares["front"] > 0.5
