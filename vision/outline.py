"""The tray's outline: where each tray's edges are in the photo, and the known-size rectangle
fitted to them.

A tray's outline is far longer than its marker, so it can pin the facing down better than the
marker alone: along each side, intensity profiles across the predicted edge find the step from
the tray to the mat. Sides facing the camera show their side face, so the outline there is the
tray's bottom edge (z = 0); sides facing away show the top edge (z = tray height). A robust
Gauss-Newton fit of the known-size rectangle to those edge points, with the marker pose as a
prior, gives the pose and the information the edges carry. The marker alone decides front from
back (the fit only moves the pose by small amounts); whether the outline is believed at all is
decided by :mod:`vision.fusion`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from geometry import Pose, normalize_deg

from .edges import step_positions
from .markers import UnitMarker
from .table import TableView


@dataclass
class OutlineFit:
    """A rectangle fitted to a tray's edge points: the pose with the marker prior (``pose``),
    the information (inverse covariance, x and y in mm, facing in radians) of the edge points
    alone, how many points on how many sides were used, their RMS distance from the rectangle
    and the share of the profiles that were kept."""

    pose: Pose
    info: np.ndarray
    points: int
    sides: int
    rms_mm: float
    kept: float


PROFILE_STEP_PX = 0.5
PROFILE_HALF_PX = 6.0
MIN_REACH_PX = 1.5
TRAY_TOLERANCE_MM = 0.3
"""How far a tray's real edge may lie from where its marker and declared size put it: the cut
tray's tolerance and the sticker's placement, beyond the marker's own uncertainty."""


def search_reach_mm(unit: UnitMarker, cov: np.ndarray) -> float:
    """How far from where the marker puts it a tray's edge is looked for (mm): 3 standard
    deviations of the predicted edge (the marker's position, and its facing at the ends of the
    longest side) and :data:`TRAY_TOLERANCE_MM`. Further out lie the things next to an edge
    that are not it: a hard shadow's edge on the mat, the next tray."""
    a, b, c = cov[0, 0], cov[1, 1], cov[0, 1]
    top = (a + b) / 2 + math.sqrt(max(((a - b) / 2) ** 2 + c * c, 0.0))
    lever = max(unit.width_mm, unit.depth_mm) / 2
    return 3 * math.sqrt(max(top, 0.0) + lever ** 2 * max(cov[2, 2], 0.0)) + TRAY_TOLERANCE_MM


def edge_points(gray: np.ndarray, view: TableView,
                trays: list[tuple[UnitMarker, Pose]], reach_mm: np.ndarray | None = None,
                ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Where each tray's outline crosses intensity profiles along its four sides, all trays in
    one batch (array arithmetic over every profile of the photo, one ``cv2.remap``: a Python
    loop per tray and side cost more than the sampling itself). ``reach_mm`` (per tray) limits
    how far from the predicted edge a step counts (:func:`search_reach_mm`; at least
    :data:`MIN_REACH_PX`). Returns per tray (points (N, 2) table mm, side index (N,))."""
    out = [(np.zeros((0, 2)), np.zeros(0, int)) for _ in trays]
    if not trays:
        return out
    w = np.array([u.width_mm for u, _ in trays])
    d = np.array([u.depth_mm for u, _ in trays])
    h = np.array([u.height_mm for u, _ in trays])
    ctr = np.array([p.centre for _, p in trays], np.float64)
    a = np.radians([p.facing for _, p in trays])
    f = np.stack([np.cos(a), np.sin(a)], axis=1)  # forward
    r = np.stack([np.sin(a), -np.cos(a)], axis=1)  # right
    hw, hd = (w / 2)[:, None], (d / 2)[:, None]
    fl, fr = ctr - hw * r + hd * f, ctr + hw * r + hd * f
    rr, rl = ctr + hw * r - hd * f, ctr - hw * r - hd * f
    # Sides front, right, rear, left (T, 4, 2): start, end, outward normal.
    sa = np.stack([fl, fr, rr, rl], axis=1)
    sb = np.stack([fr, rr, rl, fl], axis=1)
    nrm = np.stack([f, r, -f, -r], axis=1)
    mmpp = view.mm_per_px_at(ctr)
    cam = view.centre
    facing_cam = np.einsum("tkj,tkj->tk", nrm, cam[:2] - (sa + sb) / 2) > 0
    zs = np.where(facing_cam, 0.0, h[:, None])  # visible face: bottom edge
    length = np.linalg.norm(sb - sa, axis=2)
    m = np.clip(length * 0.88 / np.maximum(1.5 * mmpp, 0.8)[:, None], 0, 80).astype(int)
    m = np.where(m < 3, 0, m).ravel()
    if not m.any():
        return out
    sid = np.repeat(np.arange(m.size), m)  # side (tray * 4 + k) of each profile
    j = np.arange(sid.size) - (np.cumsum(m) - m)[sid]
    tt = 0.06 + 0.88 * j / (m[sid] - 1)
    sa, sb, nrm = sa.reshape(-1, 2), sb.reshape(-1, 2), nrm.reshape(-1, 2)
    base = sa[sid] + (sb - sa)[sid] * tt[:, None]
    nn = nrm[sid]
    owner_a, side_a = sid // 4, sid % 4
    step = PROFILE_STEP_PX * mmpp[owner_a]
    half = int(round(PROFILE_HALF_PX / PROFILE_STEP_PX))
    k = np.arange(-half, half + 1)
    px = view.image_lines(base, nn, zs.ravel()[sid], k[None, :] * step[:, None])
    px = px.astype(np.float32)
    prof = cv2.remap(gray, px[..., 0], px[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    reach = None
    if reach_mm is not None:
        px_reach = np.asarray(reach_mm, np.float64)[owner_a] / mmpp[owner_a]
        reach = np.clip(px_reach, MIN_REACH_PX, PROFILE_HALF_PX - 2.5) / PROFILE_STEP_PX
    pos, peak, rise = _steps(prof, sid, m.size, reach)
    s = (-half + np.nan_to_num(pos, nan=-1e6)) * step  # mm from the predicted edge
    good = (np.isfinite(pos) & (peak > 4.0) & (rise > 12.0)
            & (np.abs(s) < (half - 3) * step))
    pts = (base + s[:, None] * nn)[good]
    side_g, owner_g = side_a[good], owner_a[good]
    cuts = np.searchsorted(owner_g, np.arange(1, len(trays)))
    return list(zip(np.split(pts, cuts), np.split(side_g, cuts), strict=True))


def _steps(prof: np.ndarray, sid: np.ndarray, sides: int, reach: np.ndarray | None,
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each profile (inside to outside) steps, its steepness and the size of the step
    (grey levels across 3 px either side), in the polarity each side shows: a dark rim on a
    light mat rises outwards, a pale tray on a dark mat falls. A side's polarity is the one
    whose steps are the steeper for most of its profiles (texture steps either way)."""
    pos_r, peak_r = step_positions(prof, PROFILE_STEP_PX, reach=reach)
    pos_f, peak_f = step_positions(-prof, PROFILE_STEP_PX, reach=reach)
    votes = np.bincount(sid, weights=np.sign(peak_r - peak_f), minlength=sides)
    rising = votes[sid] >= 0
    pos = np.where(rising, pos_r, pos_f)
    peak = np.where(rising, peak_r, peak_f)
    jj = np.clip(np.round(np.nan_to_num(pos)).astype(int), 3, prof.shape[1] - 4)
    rows = np.arange(len(prof))
    rise = (prof[rows, jj + 3] - prof[rows, jj - 3]) * np.where(rising, 1.0, -1.0)
    return pos, peak, rise


def _masked_median(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Median of each row of ``x`` over ``mask`` (0 for an empty row)."""
    k = mask.sum(axis=1)
    srt = np.sort(np.where(mask, x, np.inf), axis=1)
    lo = np.take_along_axis(srt, np.maximum((k - 1) // 2, 0)[:, None], axis=1)[:, 0]
    hi = np.take_along_axis(srt, np.maximum(k // 2, 0)[:, None], axis=1)[:, 0]
    return np.where(k > 0, (lo + hi) / 2, 0.0)


def fit_outlines(edges: list[tuple[np.ndarray, np.ndarray]], units: list[UnitMarker],
                 priors: list[Pose], prior_info: np.ndarray) -> list[OutlineFit | None]:
    """Robust fits of the known-size rectangles to the edge points of every tray of a photo at
    once, each with its marker pose as a prior (``prior_info``: (T, 3, 3) inverse covariances,
    x, y mm and facing rad). None for a tray whose points leave fewer than 6 on two sides.

    The trays' points are padded into (trays, points) arrays and every Gauss-Newton step runs
    on all of them together: per tray the arrays are a few hundred points, so a loop per tray
    spent its time in numpy call overhead (~5 ms per tray, most of the pose time at 1080p). A
    tray leaves the batch when it converges or fails, exactly where the one-tray loop stopped.
    """
    T = len(units)
    if T == 0:
        return []
    n = max(len(p) for p, _ in edges)
    if n == 0:
        return [None] * T
    P = np.zeros((T, n, 2))
    S = np.zeros((T, n), int)
    V = np.zeros((T, n), bool)
    for t, (pts, side) in enumerate(edges):
        P[t, :len(pts)] = pts
        S[t, :len(pts)] = side
        V[t, :len(pts)] = True
    wd = np.array([[u.depth_mm / 2, u.width_mm / 2] for u in units])
    hs = np.take_along_axis(np.c_[wd, wd], S, axis=1)  # half extent across each point's side
    p = np.array([[q.x, q.y, math.radians(q.facing)] for q in priors])
    p0 = p.copy()
    ip = np.asarray(prior_info, np.float64).reshape(T, 3, 3)
    weights = V.astype(np.float64)
    keep = V.copy()
    scale = np.full(T, 0.5)
    active = np.ones(T, bool)
    failed = np.zeros(T, bool)
    A_last = np.zeros((T, 3, 3))
    r_last = np.zeros((T, n))
    w_last = np.zeros((T, n))
    side_masks = [S == k for k in range(4)]
    for it in range(6):
        c, s = np.cos(p[:, 2]), np.sin(p[:, 2])
        # Outward normals of the front, right, rear and left sides.
        nx = np.take_along_axis(np.stack([c, s, -c, -s], axis=1), S, axis=1)
        ny = np.take_along_axis(np.stack([s, -c, -s, c], axis=1), S, axis=1)
        rx, ry = P[..., 0] - p[:, :1], P[..., 1] - p[:, 1:2]
        r = nx * rx + ny * ry - hs
        if it in (1, 3):
            med = _masked_median(r, keep)
            mad = _masked_median(np.abs(r - med[:, None]), keep) * 1.4826
            scale = np.maximum(np.where(keep.any(axis=1), mad, 1.0), 0.03)
        if it >= 1:
            keep = V & (np.abs(r) < np.maximum(4 * scale, 0.15)[:, None])
            u = r / (4.685 * scale[:, None])
            weights = np.where(np.abs(u) < 1, (1 - u ** 2) ** 2, 0.0) * keep
        pos = weights > 0
        sides_seen = sum((pos & m).any(axis=1).astype(int) for m in side_masks)
        bad = active & ((pos.sum(axis=1) < 6) | (sides_seen < 2))
        failed |= bad
        active &= ~bad
        if not active.any():
            break
        J = np.stack([-nx, -ny, -ny * rx + nx * ry], axis=2)  # d r / d (x, y, theta)
        sw = weights / scale[:, None] ** 2
        A = (J * sw[..., None]).transpose(0, 2, 1) @ J
        g = (J * (sw * r)[..., None]).sum(axis=1) + np.einsum("tij,tj->ti", ip, p - p0)
        delta = -np.linalg.solve(A + ip, g[..., None])[..., 0]
        A_last[active], r_last[active], w_last[active] = A[active], r[active], weights[active]
        p = np.where(active[:, None], p + delta, p)
        if it >= 3:
            active &= ~((np.abs(delta[:, :2]).max(axis=1) < 1e-3) & (np.abs(delta[:, 2]) < 1e-5))
    out: list[OutlineFit | None] = []
    for t in range(T):
        if failed[t]:
            out.append(None)
            continue
        used = w_last[t] > 0
        rms = float(np.sqrt(np.average(r_last[t][used] ** 2, weights=w_last[t][used])))
        x, y, th = p[t]
        out.append(OutlineFit(Pose(float(x), float(y), normalize_deg(math.degrees(th))),
                              A_last[t], int(used.sum()), len(set(S[t][used].tolist())), rms,
                              float(used.sum() / max(V[t].sum(), 1))))
    return out
