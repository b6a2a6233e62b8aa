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
from .shortest import FLUSH, _raw, pivot_t, slots_of

#: A zero of a forward distance counts as the edge if the path exists there to within this
#: (mm; rounding of the closed form).
EDGE_TOL_MM = 1e-7


def edge_paths(form: g.Formation, start: g.Pose, frame: FacingFrame, table: CandidateTable,
               rows: np.ndarray) -> tuple[CandidateTable, np.ndarray]:
    """The paths at the ends of each (end offset, family) run of wheel angles among ``rows``
    of ``table`` (module doc), and for each the row it comes from."""
    empty = (CandidateTable.concat([]), np.zeros(0, dtype=int))
    if not len(rows):
        return empty
    slots = slots_of(frame, table.family[rows], table.px[rows], table.py[rows])
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
    d1, d2, exists = _raw(form, start, frame, sl, ss, outside)
    # Only where the next grid angle has no path because a forward distance is negative
    # (not because the wheel would pass 90 degrees or the align change sides).
    with np.errstate(invalid="ignore"):
        lost = exists & ((d1 < -1e-6) | (d2 < -1e-6))
    if not lost.any():
        return empty
    src, sl, ss = src[lost], sl[lost], ss[lost]
    theta = _edge(form, start, frame, sl, ss, inside[lost], outside[lost])
    d1, d2, exists = _raw(form, start, frame, sl, ss, theta)
    with np.errstate(invalid="ignore"):
        there = exists & (d1 >= -EDGE_TOL_MM) & (d2 >= -EDGE_TOL_MM)
    src, sl, ss, theta = src[there], sl[there], ss[there], theta[there]
    return _paths(form, start, frame, sl, ss, theta, np.maximum(d1[there], 0.0),
                  np.maximum(d2[there], 0.0)), src


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


def _edge(form: g.Formation, start: g.Pose, frame: FacingFrame, slots: np.ndarray,
          s: np.ndarray, inside: np.ndarray, outside: np.ndarray) -> np.ndarray:
    """The wheel angle between ``inside`` (the path exists) and ``outside`` (a forward
    distance is negative) where the path of family ``slots`` ending at offset ``s`` stops
    existing: the zero of d1 or d2 nearest ``inside`` (module doc); nan where the closed
    form finds none. The vectors are those of candidates._path_distances: the align pivot
    and the final centre, and the wheel's pivot corner on the side it turns to."""
    fx, fy = start.forward
    t = pivot_t(slots, s, form.width, frame.length)
    ax, ay = frame.o[0] + t * frame.r[0], frame.o[1] + t * frame.r[1]  # the align pivot
    ex, ey = _flush_centres(frame, form, s)  # the final centre
    c0 = g.corners(form, start)
    corner = np.where((inside > 0)[:, None], c0["front_left"], c0["front_right"])
    b = np.radians(g.normalize_deg(frame.facing_deg - start.facing))
    wx = np.cos(b) * (ex - ax) + np.sin(b) * (ey - ay)  # W' = R(-base) W
    wy = -np.sin(b) * (ex - ax) + np.cos(b) * (ey - ay)
    px, py = ax - corner[:, 0], ay - corner[:, 1]  # P: the align pivot from the corner
    sx, sy = start.x - corner[:, 0], start.y - corner[:, 1]  # S: the start from the corner
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
