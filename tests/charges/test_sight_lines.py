"""Sight lines (RULES.md 2): the vectorised separating-axis test against Shapely, and a gap
inside the notch of an L-shaped wood."""

from __future__ import annotations

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

import geometry as g
from charges.declaration import segments_hit, visible

coord = st.floats(-50, 50, allow_nan=False).map(lambda v: round(v, 1))
point = st.tuples(coord, coord)


@given(st.lists(point, min_size=3, max_size=7), st.lists(st.tuples(point, point), min_size=1,
                                                         max_size=20))
@settings(max_examples=200)
def test_segments_hit_agrees_with_shapely(pts, segs):
    hull = shapely.MultiPoint(pts).convex_hull
    if hull.geom_type != "Polygon" or hull.area < 1e-3:
        return
    part = np.asarray(hull.exterior.coords[:-1])
    # Pad to a common size as visible() does, with a second, far away polygon.
    far = np.array([[500.0, 500], [510, 500], [510, 510], [500, 510]])
    k = max(len(part), 4)
    parts = np.stack([np.concatenate([q, np.repeat(q[-1:], k - len(q), axis=0)])
                      for q in (part, far)])
    a = np.array([s[0] for s in segs], dtype=float)
    b = np.array([s[1] for s in segs], dtype=float)
    got = segments_hit(a, b, parts)
    lines = shapely.linestrings(np.stack([a, b], axis=1))
    want = shapely.intersects(hull, lines)
    # Where they differ the segment can only graze the polygon (a vertex or an edge met exactly,
    # decided by rounding either way); the walls are pulled in by EPS_MM, so a graze is moot.
    for i in np.flatnonzero(got != want):
        assert shapely.distance(hull, lines[i]) < 1e-9
        assert shapely.distance(shapely.buffer(hull, -1e-6), lines[i]) > 0


def _scene(wood: list[list[float]]) -> g.Scene:
    unit = {"files": 5, "ranks": 2, "base": [25, 25], "models": 10, "advance_in": 6}
    return g.load_scene({
        "table": {"width_mm": 1200, "depth_mm": 1200},
        "terrain": [{"id": "wood", "kind": "wood", "opaque": True, "polygon": wood}],
        "units": [{"id": "a", "side": "A", "x": 600, "y": 200, "facing": 90, **unit},
                  {"id": "b", "side": "B", "x": 600, "y": 700, "facing": -90, **unit}]})


def test_sight_out_of_the_notch_of_a_u_shaped_wood():
    # a (x 537.5-662.5, y 175-225) stands inside a U-shaped wood whose two thick tops reach
    # into the way (x 450-570 and 630-750, y 300-500), leaving a notch x 570-630 straight up
    # to b. The wood's convex hull covers every sight line; the wood itself not those up the
    # notch, so the test must use the wood's convex pieces, not its hull.
    u_wood = [[450, 100], [750, 100], [750, 500], [630, 500], [630, 300], [700, 300],
              [700, 150], [500, 150], [500, 300], [570, 300], [570, 500], [450, 500]]
    sc = _scene(u_wood)
    assert visible(sc, sc.unit("a"), sc.unit("b"))
    # A bar across the notch's mouth (y 480-500) hides b.
    sc = _scene([[450, 480], [750, 480], [750, 500], [450, 500]])
    assert not visible(sc, sc.unit("a"), sc.unit("b"))
