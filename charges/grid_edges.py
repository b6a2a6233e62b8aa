"""Paths the wheel grid steps over (RULES.md 4; RULES-editions.md 5, X5).

The search tries wheel angles on a 1-degree grid. For one end offset and one family the paths
exist over a range of wheel angles whose ends lie where a forward distance reaches 0 (the
wheel must then start at once, or the align at once). A legal window at such an end may be
narrower than a grid step: in X5 a wheel past a rock is legal from 48.016 degrees (the least
wheel that reaches the end position, with no forward move first) to about 48.9, and the grid's
first row there, 49 degrees, needs a forward move first that brings the rock into the sweep.

So when the grid finds no legal path into a group of end positions, the search also tries the
paths at those ends: for each end offset and family of the group's rows, its rows of least
and greatest wheel moved to where the path stops existing, in closed form. For an end pose
fixed, the pre-align pose turns with the wheel about the align pivot, so the vector the two
forward moves must cover is ``v(theta) = P + R(theta - base) W - R(theta) S`` (P, W, S fixed
vectors) and ``d1 = cross(v, f_theta) / sin(theta)``, ``d2 = cross(f_0, v) / sin(theta)``:
rotations keep cross products, so each numerator is ``A cos(theta) + B sin(theta) + K`` and
its zeros are ``atan2(B, A) +- acos(-K / hypot(A, B))``. The zero nearest the grid row, between
it and the next grid angle, is the edge. The paths are built as one table, pass the
vectorised first pass, and the survivors get the exact test, best group first, then
shortest.
"""

from __future__ import annotations

import numpy as np

import geometry as g

from .candidates import CandidateTable, _wrap
from .facing_frame import THETA_GRID_DEG, FacingFrame, _flush_centres
from .shortest import FLUSH, pivot_t

#: A zero of a forward distance counts as the edge if the path exists there to within this
#: (mm; rounding of the closed form).
EDGE_TOL_MM = 1e-7


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
    d1, d2, exists = f.both(theta)
    with np.errstate(invalid="ignore"):
        there = exists & (d1 >= -EDGE_TOL_MM) & (d2 >= -EDGE_TOL_MM)
    src, sl, ss, theta = src[there], sl[there], ss[there], theta[there]
    return _paths(form, start, frame, sl, ss, theta, np.maximum(d1[there], 0.0),
                  np.maximum(d2[there], 0.0)), src


class _Distances:
    """The forward distances of paths with a fixed end offset and family, as functions of
    the wheel angle alone: what does not depend on the angle (the final centre, the align
    pivot, the wheel's pivot corner, on the side the wheel turns to) is computed once; the
    rest is candidates._path_distances, and :func:`_edge` solves for their zeros."""

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


def _cross(ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    return ax * by - ay * bx


def _zeros(a: np.ndarray, b: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two zeros (degrees, nan when none) of a cos(theta) + b sin(theta) + k."""
    r = np.hypot(a, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = -k / r
    phi = np.arctan2(b, a)
    half = np.arccos(np.where(np.abs(c) <= 1.0, c, np.nan))
    return np.degrees(phi + half), np.degrees(phi - half)


def _edge(f: _Distances, inside: np.ndarray, outside: np.ndarray) -> np.ndarray:
    """The wheel angle between ``inside`` (the path exists) and ``outside`` (a forward
    distance is negative) where the path stops existing: the zero of d1 or d2 nearest
    ``inside`` (module doc); nan where the closed form finds none."""
    fx, fy = f.f0
    b = np.radians(f.base)
    wx = np.cos(b) * f.dx + np.sin(b) * f.dy  # W' = R(-base) W
    wy = -np.sin(b) * f.dx + np.cos(b) * f.dy
    px, py = f.px - f.cx, f.py - f.cy  # P: the align pivot from the wheel's pivot corner
    sx, sy = f.ddx, f.ddy  # S: the start centre from the wheel's pivot corner
    # d1's numerator cross(v, f_theta) and d2's cross(f_0, v), as a cos + b sin + k.
    d1 = (_cross(px, py, fx, fy), _cross(px, py, -fy, fx),
          _cross(wx, wy, fx, fy) - _cross(sx, sy, fx, fy))
    d2 = (_cross(fx, fy, wx, wy) - _cross(fx, fy, sx, sy),
          _cross(fx, fy, -wy, wx) - _cross(fx, fy, -sy, sx), _cross(fx, fy, px, py))
    lo, hi = np.minimum(inside, outside), np.maximum(inside, outside)
    best = np.full(len(inside), np.nan)
    for z in (*_zeros(*d1), *_zeros(*d2)):
        z = z + 360.0 * np.round((inside - z) / 360.0)  # the turn nearest the grid row
        with np.errstate(invalid="ignore"):
            near = (z >= lo - 1e-9) & (z <= hi + 1e-9) & \
                ~(np.abs(z - inside) >= np.abs(best - inside))
        best = np.where(near, np.clip(z, lo, hi), best)
    return best


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
