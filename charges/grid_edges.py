"""Paths the wheel grid steps over (RULES.md 4; RULES-editions.md 5, X5).

The search tries wheel angles on a 1-degree grid. For one end offset and one family the paths
exist over a range of wheel angles whose ends lie where a forward distance reaches 0 (the
wheel must then start at once, or the align at once). A legal window at such an end may be
narrower than a grid step: in X5 a wheel past a rock is legal from 48.016 degrees (the least
wheel that reaches the end position, with no forward move first) to about 48.9, and the grid's
first row there, 49 degrees, needs a forward move first that brings the rock into the sweep.

So when the grid finds no legal path into a group of end positions, the search also tries the
paths at those ends: for each end offset and family of the group's rows, its rows of least
and greatest wheel moved to where the path stops existing (a root of d1 or d2 between the row
and the next grid angle, by bisection: the forward distances are smooth in the angle). They
are built as one table, pass the vectorised first pass, and the survivors get the exact test,
best group first, then shortest.
"""

from __future__ import annotations

import numpy as np

import geometry as g

from .candidates import CandidateTable, _wrap
from .facing_frame import THETA_GRID_DEG, FacingFrame, _flush_centres
from .shortest import FLUSH, pivot_t

#: Steps of the root search (regula falsi, Illinois variant) for where a path stops
#: existing: the forward distances are smooth in the wheel angle, so a few steps leave the
#: bracket's existing end with a distance far below 1e-6 mm (the path's steps drop it).
EDGE_STEPS = 14


def _slots(frame: FacingFrame, table: CandidateTable, rows: np.ndarray) -> np.ndarray:
    """The family slot of each row (shortest.py numbering: a target-corner align pivots at
    the facing's low or high end)."""
    fam = table.family[rows]
    t = (table.px[rows] - frame.o[0]) * frame.r[0] + (table.py[rows] - frame.o[1]) * frame.r[1]
    return np.where(fam == 3, np.where(np.abs(t - frame.length) < np.abs(t), 4, 3), fam)


def edge_paths(form: g.Formation, start: g.Pose, frame: FacingFrame, table: CandidateTable,
               rows: np.ndarray) -> tuple[CandidateTable, np.ndarray]:
    """The paths at the ends of each (end offset, family) run of wheel angles among ``rows``
    of ``table`` (module doc), and for each the row it comes from."""
    empty = (CandidateTable.concat([]), np.zeros(0, dtype=int))
    if not len(rows):
        return empty
    slots = _slots(frame, table, rows)
    keep = slots != FLUSH  # a flush arrival has one wheel: nothing between grid angles
    rows, slots = rows[keep], slots[keep]
    if not len(rows):
        return empty
    s, th = table.s[rows], table.theta[rows]
    order = np.lexsort((th, s, slots))
    rows, slots, s, th = rows[order], slots[order], s[order], th[order]
    new = np.ones(len(rows), dtype=bool)
    new[1:] = (slots[1:] != slots[:-1]) | (np.abs(s[1:] - s[:-1]) > 1e-9)
    last = np.roll(new, -1)
    ends = np.concatenate([np.flatnonzero(new), np.flatnonzero(last)])
    side = np.concatenate([np.full(new.sum(), -1.0), np.full(last.sum(), 1.0)])
    # (A run's row with no wheel moves straight in: no other angle reaches its end that way.)
    ends, side = ends[np.abs(th[ends]) > 1e-9], side[np.abs(th[ends]) > 1e-9]
    src, sl, ss, inside = rows[ends], slots[ends], s[ends], th[ends]
    outside = inside + side * THETA_GRID_DEG
    f = _Distances(form, start, frame, sl, ss, np.sign(inside))
    d1, d2, exists = f.both(outside)
    # Only where the next grid angle has no path because a forward distance is negative
    # (not because the wheel would pass 90 degrees or the align change sides).
    with np.errstate(invalid="ignore"):
        lost = exists & ((d1 < -1e-6) | (d2 < -1e-6))
    if not lost.any():
        return empty
    f = _Distances(form, start, frame, sl[lost], ss[lost], np.sign(inside[lost]))
    src, sl, ss = src[lost], sl[lost], ss[lost]
    theta = _edge(f, inside[lost], outside[lost])
    d1, d2, _ = f.both(theta)
    return _paths(form, start, frame, sl, ss, theta, np.maximum(d1, 0.0),
                  np.maximum(d2, 0.0)), src


class _Distances:
    """min(d1, d2) of paths with a fixed end offset and family, as a function of the wheel
    angle alone: what does not depend on the angle (the final centre, the align pivot, the
    wheel's pivot corner) is computed once; the rest is candidates._path_distances."""

    def __init__(self, form: g.Formation, start: g.Pose, frame: FacingFrame,
                 slots: np.ndarray, s: np.ndarray, theta_sign: np.ndarray) -> None:
        self.start = start
        self.base = g.normalize_deg(frame.facing_deg - start.facing)
        self.sign = np.where(slots % 2 == 1, 1.0, -1.0)  # the align's (shortest._raw)
        t = pivot_t(slots, s, form.width, frame.length)
        self.px, self.py = frame.o[0] + t * frame.r[0], frame.o[1] + t * frame.r[1]
        fx, fy = _flush_centres(frame, form, s)
        self.dx, self.dy = fx - self.px, fy - self.py
        c0 = g.corners(form, start)
        fl, fr = c0["front_left"], c0["front_right"]
        self.cx = np.where(theta_sign > 0, fl[0], fr[0])
        self.cy = np.where(theta_sign > 0, fl[1], fr[1])
        self.ddx, self.ddy = start.x - self.cx, start.y - self.cy
        self.f0 = start.forward

    def both(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """d1, d2 and whether the path exists at wheel ``theta``."""
        al = _wrap(self.base - theta)
        ar, thr = np.radians(-al), np.radians(theta)
        cs, sn, ct, st = np.cos(ar), np.sin(ar), np.cos(thr), np.sin(thr)
        a = np.radians(self.start.facing) + thr
        ftx, fty = np.cos(a), np.sin(a)
        qx = self.px + cs * self.dx - sn * self.dy
        qy = self.py + sn * self.dx + cs * self.dy
        vx = qx - (self.cx + ct * self.ddx - st * self.ddy)
        vy = qy - (self.cy + st * self.ddx + ct * self.ddy)
        f0x, f0y = self.f0
        det = f0x * fty - f0y * ftx
        exists = (np.abs(det) > 1e-9) & (np.abs(theta) <= 90 + 1e-9) & \
            (al * self.sign > 1e-6) & (np.abs(al) < 180 - 1e-6)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (vx * fty - vy * ftx) / det, (f0x * vy - f0y * vx) / det, exists

    def __call__(self, theta: np.ndarray) -> np.ndarray:
        """min(d1, d2) where the path exists (>= 0 when it does), -inf where it cannot."""
        d1, d2, exists = self.both(theta)
        with np.errstate(invalid="ignore"):
            return np.where(exists & np.isfinite(d1) & np.isfinite(d2), np.minimum(d1, d2),
                            -np.inf)


def _edge(f: _Distances, inside: np.ndarray, outside: np.ndarray) -> np.ndarray:
    """Between ``inside`` (the path exists) and ``outside`` (a forward distance is negative),
    the existing end of a bracket shrunk onto where min(d1, d2) reaches 0 (regula falsi,
    Illinois: the end kept twice running has its value halved, so both ends close in)."""
    a, b = inside.copy(), outside.copy()
    fa, fb = f(a), f(b)
    last = np.zeros(len(a))  # +1: ``a`` moved at the last step, -1: ``b`` did
    for _ in range(EDGE_STEPS):
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            secant = np.isfinite(fa) & np.isfinite(fb) & (fa - fb > 1e-300)
            m = np.where(secant, b - fb * (b - a) / (fb - fa), (a + b) / 2)
            m = np.where((m - a) * (m - b) < 0, m, (a + b) / 2)
        fm = f(m)
        good = fm >= 0.0
        fb = np.where(good & (last == 1), fb / 2, fb)
        fa = np.where(~good & (last == -1), fa / 2, fa)
        a, fa = np.where(good, m, a), np.where(good, fm, fa)
        b, fb = np.where(good, b, m), np.where(good, fb, fm)
        last = np.where(good, 1.0, -1.0)
    return a


def _paths(form: g.Formation, start: g.Pose, frame: FacingFrame, slots: np.ndarray,
           s: np.ndarray, theta: np.ndarray, d1: np.ndarray, d2: np.ndarray
           ) -> CandidateTable:
    """The candidate rows of aligning paths (slots 1-4) ending flush at offsets ``s`` after
    wheels ``theta`` with forward distances d1, d2 (as candidate_table builds its rows)."""
    base = g.normalize_deg(frame.facing_deg - start.facing)
    alpha = _wrap(base - theta)
    t = pivot_t(slots, s, form.width, frame.length)
    px, py = frame.o[0] + t * frame.r[0], frame.o[1] + t * frame.r[1]
    fx, fy = _flush_centres(frame, form, s)
    # The pre-align centre: the final one turned back by alpha about the pivot.
    a = np.radians(-alpha)
    c, sn = np.cos(a), np.sin(a)
    qx = px + c * (fx - px) - sn * (fy - py)
    qy = py + sn * (fx - px) + c * (fy - py)
    n = len(s)
    pre = np.stack([qx, qy, _wrap(start.facing + theta)], axis=1)
    fin = np.stack([fx, fy, np.full(n, frame.facing_deg)], axis=1)
    family = np.minimum(slots, 3).astype(int)
    length = d1 + d2 + form.width * np.radians(np.abs(theta))
    gap = np.hypot(fx - start.x, fy - start.y)
    return CandidateTable(s, family, px, py, alpha, theta, d1, d2, pre, fin, length, gap)
