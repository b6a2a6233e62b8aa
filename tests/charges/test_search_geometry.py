"""Geometric facts the charge-move search relies on to skip exact tests (RULES.md 4)."""

from __future__ import annotations

import math

import numpy as np
import shapely

import geometry as g
from geometry.formation import boundary_coords
from tests.charges import engine as S
from tests.charges.random_charges import random_facings


def test_align_about_a_charger_corner_never_enters_the_target():
    """S.ALIGN_OUTSIDE_TARGET: for the families that align about a charger front corner, with
    an align of at most 90 degrees, the align's swept area never overlaps the target, on any
    facing, for any formations and start poses; the families about a target corner can (so
    the skip is limited to the first two)."""
    rng = np.random.default_rng(3)
    rows, worst = 0, 0.0
    worst_corner = 0.0
    untested = corner_rows = overlapped = 0
    for tbody, cform, start, frame, offs in random_facings(rng, 12):
        t = S.candidate_table(cform, start, frame, offs, theta_step=10.0)
        # arrival_clear skips the rows this fact covers: the same verdicts as testing all.
        rects = g.contact.rect_corners(t.pre[:, 0], t.pre[:, 1], t.pre[:, 2], cform.width,
                                       cform.depth)
        every = g.contact.rect_penetrations(
            rects, np.asarray(boundary_coords(tbody.form, tbody.pose))) <= g.EPS_MM
        assert np.array_equal(S.arrival_clear(t, cform, tbody), every)
        turned = (t.family != 0) & (np.abs(t.alpha) <= 90)  # the rows it does not test
        untested += int(turned.sum())
        corner_rows += int((turned & (t.family == S.FAMILIES.index("target_corner"))).sum())
        overlapped += int((~every & ~turned).sum())
        for i in np.flatnonzero((t.family != 0) & (np.abs(t.alpha) <= 90)):
            pre = boundary_coords(cform, g.Pose(*t.pre[i]))
            sweep = g.rotation_sweep(pre, (t.px[i], t.py[i]), t.alpha[i])
            depth = g.penetration_mm(sweep, tbody.polygon)
            if S.FAMILIES[int(t.family[i])] in S.ALIGN_OUTSIDE_TARGET:
                rows += 1
                worst = max(worst, depth)
            else:
                worst_corner = max(worst_corner, depth)
    assert rows > 300
    assert worst < 1e-9
    assert worst_corner > 1.0
    # Arrivals turned at most 90 degrees never overlap the target, about either pivot; the
    # arrivals turned further often do.
    assert untested > 500 and corner_rows > 100 and overlapped > 20, \
        (untested, corner_rows, overlapped)


def test_footprints_agree_with_the_exact_test():
    """World.footprints (boxes, then separating axes, the exact test only when unsure) says a
    footprint is clear exactly when World.blocked does, near units of either side, the target
    and a concave wood, including footprints touching them."""
    from charges.world import CLEAR, World

    unit = {"base": [25, 25], "files": 4, "ranks": 2, "advance_in": 5}
    scene = g.load_scene({
        "table": {"width_mm": 900, "depth_mm": 900},
        "terrain": [{"id": "wood", "kind": "wood", "impassable": True, "polygon": [
            [500, 500], [700, 500], [700, 560], [560, 560], [560, 700], [500, 700]]}],
        "units": [{"id": "me", "side": "a", "x": 200, "y": 200, "facing": 90, **unit},
                  {"id": "pal", "side": "a", "x": 400, "y": 200, "facing": 30, **unit},
                  {"id": "foe", "side": "b", "x": 300, "y": 450, "facing": -90, **unit},
                  {"id": "tgt", "side": "b", "x": 650, "y": 300, "facing": 180, **unit}]})
    world = World.for_unit(scene, scene.unit("me"), "tgt")
    rng = np.random.default_rng(5)
    rects = []
    for o in world.obstacles:
        ring = np.asarray(o.polygon.exterior.coords[:-1])
        for _ in range(60):
            # A footprint square to an edge, slid along it, at a small gap (negative:
            # overlapping), so touching and near-touching cases are common; some turned.
            k = rng.integers(len(ring))
            a, b = ring[k], ring[(k + 1) % len(ring)]
            e = (b - a) / np.linalg.norm(b - a)
            n = np.array([e[1], -e[0]])
            p = a + rng.uniform(0, 1) * (b - a)
            if o.polygon.contains(shapely.Point(p + 0.5 * n)):
                n = -n  # outward
            gap = float(rng.choice([0.0, 0.005, 0.01, 0.02, -0.005, -0.02, 0.5, -2.0]))
            turn = float(rng.choice([0.0, 0.0, 3.0, -40.0]))
            centre = p + n * (25 + gap)
            ang = math.degrees(math.atan2(e[1], e[0])) + turn
            rects.append(g.contact.rect_corners(np.array([centre[0]]), np.array([centre[1]]),
                                                np.array([ang]), 50.0, 50.0)[0])
    rects_a = np.asarray(rects)
    got = world.footprints(rects_a) == CLEAR
    want = np.asarray([world.blocked(shapely.Polygon(r)) is None for r in rects_a])
    assert np.array_equal(got, want)
    assert want.sum() > 20 and (~want).sum() > 20
