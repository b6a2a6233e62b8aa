"""Where the target turns least (RULES.md 4, priority 2: "as little as possible"; tow 1.5 and
whfb8 2.5 [D]: the target rotates about the contact point as little as possible).

The target turns by what the charger's wheel leaves of the way to the charged facing, so the
least turn comes with the greatest wheel that still reaches first contact. For one wheel angle
and one kind of arrival (shortest.py's slots: a charger corner on the facing, a facing's end on
the charger's front) both forward distances are affine in the end offset along the facing
(candidates.candidate_table), so the offsets the angle can reach form an interval whose ends
are where a forward distance is 0: the wheel at once, or contact as the wheel ends. The search
plan's offsets are the contact breakpoints and points between them; a charger that stands close
to its target reaches none of them after a wheel, and the grid then only offers turning the
target the whole way (outside testing, round 2: 30 degrees where a 7.8-degree pre-wheel leaves
22.2). So when the grid's fallback has found a turn, the paths at those two ends are tried for
every wheel of the grid, and the wheel of the best legal one is bisected towards the next grid
angle. (Not when it found none: most such charges have no move at all, and the table would
cost every one of them a tenth more; a move that only an interval's end reaches is missed.)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import geometry as g
from geometry.formation import boundary_coords

from .candidates import Candidate, CandidateTable
from .exact_check import check_candidate
from .facing_frame import THETA_GRID_DEG, FacingFrame, contact_counts_many
from .first_pass import path_prefilter
from .grid_edges import _paths
from .plan import SearchPlan
from .shortest import CHARGER_LEFT, CHARGER_RIGHT, FACING_HIGH, FACING_LOW, _raw, slot_offsets
from .world import CLEAR, World

#: Forward distances this far below 0 still count as 0 (rounding of the closed form, mm).
ZERO_TOL_MM = 1e-7
#: Halvings of a grid step when the least turn is bisected: 1 degree / 2**8 < 0.005 degree.
BISECT_STEPS = 8


def _ends(form: g.Formation, start: g.Pose, frame: FacingFrame, slots: np.ndarray,
          theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For each (slot, wheel) the end offsets where d1 = 0 and where d2 = 0 (nan where the
    distance does not change with the offset), each as (slots, offsets, wheels, which)."""
    n = len(theta)
    d1a, d2a, _ = _raw(form, start, frame, slots, np.zeros(n), theta)
    d1b, d2b, _ = _raw(form, start, frame, slots, np.ones(n), theta)
    out_s, which = [], []
    for a, b, k in ((d1a, d1b, 1), (d2a, d2b, 2)):
        slope = b - a
        with np.errstate(divide="ignore", invalid="ignore"):
            out_s.append(np.where(np.abs(slope) > 1e-12, -a / slope, np.nan))
        which.append(np.full(n, k))
    return (np.concatenate([slots, slots]), np.concatenate(out_s),
            np.concatenate([theta, theta]), np.concatenate(which))


def turn_edge_table(form: g.Formation, start: g.Pose, frame: FacingFrame,
                    thetas: np.ndarray | None = None) -> tuple[CandidateTable, np.ndarray,
                                                                np.ndarray]:
    """The paths at the two ends of every grid wheel's interval of reachable end offsets, for
    each kind of angled arrival (module doc), as candidate rows; with each row's slot and
    which distance is 0 there (1 or 2)."""
    if thetas is None:
        thetas = np.arange(-90.0, 90.0 + 1e-9, THETA_GRID_DEG)
    thetas = thetas[np.abs(thetas) > 1e-9]
    slots = np.repeat([CHARGER_LEFT, CHARGER_RIGHT, FACING_LOW, FACING_HIGH], len(thetas))
    th = np.tile(thetas, 4)
    sl, s, th, which = _ends(form, start, frame, slots, th)
    bounds = {k: slot_offsets(k, form.width, frame.length)
              for k in (CHARGER_LEFT, CHARGER_RIGHT, FACING_LOW, FACING_HIGH)}
    lo = np.select([sl == k for k in bounds], [b[0] for b in bounds.values()])
    hi = np.select([sl == k for k in bounds], [b[1] for b in bounds.values()])
    with np.errstate(invalid="ignore"):
        keep = np.isfinite(s) & (s >= lo) & (s <= hi)
    sl, s, th, which = sl[keep], s[keep], th[keep], which[keep]
    d1, d2, exists = _raw(form, start, frame, sl, s, th)
    with np.errstate(invalid="ignore"):
        ok = exists & (d1 >= -ZERO_TOL_MM) & (d2 >= -ZERO_TOL_MM)
    sl, s, th, which = sl[ok], s[ok], th[ok], which[ok]
    table = _paths(form, start, frame, sl, s, th, np.maximum(d1[ok], 0.0),
                   np.maximum(d2[ok], 0.0))
    return table, sl, which


def turn_edge_at(form: g.Formation, start: g.Pose, frame: FacingFrame, slot: int,
                 which: int, theta: float) -> Candidate | None:
    """The path of ``slot`` after a wheel of ``theta`` whose forward distance ``which`` is 0
    (module doc), or None where there is none."""
    table, slots, w = turn_edge_table(form, start, frame, np.array([theta]))
    rows = np.flatnonzero((slots == slot) & (w == which))
    return table.row(int(rows[0])) if len(rows) else None


def least_turn_at_edge(form: g.Formation, start: g.Pose, frame: FacingFrame, cand: Candidate,
                       slot: int, which: int, legal: Callable[[Candidate], bool]) -> Candidate:
    """``cand`` (legal, at an interval's end) with its wheel moved towards the charged facing
    as far as a legal path of the same end stays legal, bisected within one grid step."""
    base = g.normalize_deg(frame.facing_deg - start.facing)
    toward = np.sign(base - cand.wheel_deg) or 1.0
    good, lo, hi = cand, 0.0, float(toward) * THETA_GRID_DEG
    for _ in range(BISECT_STEPS):
        mid = (lo + hi) / 2
        c = turn_edge_at(form, start, frame, slot, which, cand.wheel_deg + mid)
        if c is not None and abs(c.align_deg) < abs(good.align_deg) and legal(c):
            good, lo = c, mid
        else:
            hi = mid
    return good


def least_edge_turn(form: g.Formation, start: g.Pose, plan: SearchPlan, target: g.Unit,
                    world: World, target_world: World, best_turn: float, max_length: float,
                    exclude: frozenset[tuple[int, int]]) -> Candidate | None:
    """The legal path at an interval's end (module doc) that turns the target less than
    ``best_turn`` (degrees): the least turn first, then the priorities (models, path length,
    wheel), its wheel then bisected towards the facing; None when there is none. The same
    tests as the grid's fallback (search.MoveSearch.target_turns): the path without the align,
    the turned target's footprint, then the exact test with the target's turn swept."""
    tbody = target.body
    table, slots, which = turn_edge_table(form, start, plan.frame)
    alpha = np.abs(table.alpha)
    idx = np.flatnonzero((alpha < best_turn - 1e-6) & (table.length <= max_length + 1e-6))
    if not len(idx):
        return None
    idx = idx[path_prefilter(table.subset(idx), form, start, tbody, world, with_align=False)]
    tcorners = np.asarray(boundary_coords(target.formation, target.pose))
    turned = _rotated(tcorners, table.px[idx], table.py[idx], -table.alpha[idx])
    idx = idx[target_world.footprints(turned) == CLEAR]
    if not len(idx):
        return None
    ch, tm = contact_counts_many(plan.frame, form, table.s[idx], exclude)
    idx, models = idx[ch > 0], (ch + tm)[ch > 0]  # as the plan's groups: some contact
    idx = idx[np.lexsort((np.round(np.abs(table.theta[idx]), 6),
                          np.round(table.length[idx], 6), -models, np.round(alpha[idx], 6)))]

    def legal(c: Candidate) -> bool:
        return c.length <= max_length + 1e-6 and check_candidate(
            form, start, c, tbody, world, target_turns=True, target_world=target_world,
            end_form=plan.end_form).ok

    for i in idx.tolist():
        c = table.row(i)
        if legal(c):
            return least_turn_at_edge(form, start, plan.frame, c, int(slots[i]),
                                      int(which[i]), legal)
    return None


def _rotated(corners: np.ndarray, cx: np.ndarray, cy: np.ndarray, angle_deg: np.ndarray
             ) -> np.ndarray:
    """(n, 4, 2): ``corners`` (4, 2) turned counter-clockwise by each angle about each centre
    (as geometry.rotate_point)."""
    a = np.radians(angle_deg)[:, None]
    c, s = np.cos(a), np.sin(a)
    dx = corners[None, :, 0] - cx[:, None]
    dy = corners[None, :, 1] - cy[:, None]
    return np.stack([cx[:, None] + c * dx - s * dy, cy[:, None] + s * dx + c * dy], axis=2)
