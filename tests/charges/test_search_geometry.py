"""Geometric facts the charge-move search relies on to skip exact tests (RULES.md 4)."""

from __future__ import annotations

import math

import numpy as np

import geometry as g
from charges import search as S
from geometry.formation import boundary_coords


def test_align_about_a_charger_corner_never_enters_the_target():
    """S.ALIGN_OUTSIDE_TARGET: for the families that align about a charger front corner, with
    an align of at most 90 degrees, the align's swept area never overlaps the target, on any
    facing, for any formations and start poses; the families about a target corner can (so
    the skip is limited to the first two)."""
    rng = np.random.default_rng(3)
    rows, worst = 0, 0.0
    worst_corner = 0.0
    for _ in range(12):
        def form() -> g.Formation:
            return g.Formation.full((float(rng.choice([20, 25, 40, 50])),
                                     float(rng.choice([20, 25, 50]))),
                                    int(rng.integers(1, 8)), int(rng.integers(1, 5)))
        tbody = g.Body(form(), g.Pose(600, 600, float(rng.uniform(-180, 180))))
        cform = form()
        ang, dist = rng.uniform(0, 2 * math.pi), rng.uniform(200, 550)
        start = g.Pose(600 + math.cos(ang) * dist, 600 + math.sin(ang) * dist,
                       float(rng.uniform(-180, 180)))
        for facing in ("front", "rear", "left", "right"):
            frame = S.facing_frame(tbody, facing)  # type: ignore[arg-type]
            offs = S.offset_candidates(frame, cform,
                                       tuple(S.straight_offsets(frame, cform, start)))
            t = S.candidate_table(cform, start, frame, offs, theta_step=10.0)
            # arrival_clear skips the rows this fact covers: the same verdicts as testing all.
            rects = g.contact.rect_corners(t.pre[:, 0], t.pre[:, 1], t.pre[:, 2], cform.width,
                                           cform.depth)
            every = g.contact.rect_penetrations(
                rects, np.asarray(boundary_coords(tbody.form, tbody.pose))) <= g.EPS_MM
            assert np.array_equal(S.arrival_clear(t, cform, tbody), every)
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
