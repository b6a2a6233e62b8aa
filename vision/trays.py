"""Tray poses: from a tray marker's corners to the unit's pose, then refined on the tray outline.

1. The marker's four corners are mapped to the table at the marker's height (parallax
   corrected). A quad must then be the printed size and square, else it is another thing that
   happened to decode as that id (a whole tray with a white sticker can): it is rejected.
2. Centre = diagonal intersection; facing = the mean direction of the marker's two side edges
   and of its top and bottom edges turned by 90 degrees (its top edge points to the unit's
   front); the unit centre is the marker centre minus ``marker_offset_mm`` in the unit frame.
3. The tray's own outline is far longer than the marker, so it pins the facing down much
   better: along each side, intensity profiles across the predicted edge find the step from the
   dark rim to the mat. Sides facing the camera show their dark side face, so the outline there
   is the tray's bottom edge (z = 0); sides facing away show the top edge (z = tray height).
   A robust Gauss-Newton fit of the known-size rectangle to those edge points, with the marker
   pose as a prior, gives the pose and its covariance. The marker alone decides front from back
   (the fit only moves the pose by small amounts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from geometry import Pose, normalize_deg

from .edges import step_positions
from .markers import UnitMarker
from .table import TableView

SIZE_TOL = 0.12  # relative tolerance on the marker's printed size
SQUARE_TOL_DEG = 8.0  # tolerance on the marker's corner angles


@dataclass
class MarkerFix:
    """A tray marker measured on the table."""

    centre: np.ndarray
    facing: float
    side_mm: float
    corners_mm: np.ndarray
    px_per_mm: float
    problem: str | None = None


def measure_marker(raw: np.ndarray, view: TableView, unit: UnitMarker) -> MarkerFix:
    """Marker corners (raw pixels, ArUco order) to its pose on the table at its height, with a
    ``problem`` when the quad is not the printed square."""
    return measure_markers([raw], view, [unit])[0]


def measure_markers(raws: list[np.ndarray], view: TableView,
                    units: list[UnitMarker]) -> list[MarkerFix]:
    """:func:`measure_marker` for every tray marker of a photo in one set of array operations
    (one table projection for all corners; a call per marker cost ~0.6 ms of numpy
    overhead)."""
    if not raws:
        return []
    raw = np.asarray(raws, np.float64).reshape(-1, 4, 2)
    z = np.repeat([u.height_mm for u in units], 4)
    q = view.to_table(raw.reshape(-1, 2), z).reshape(-1, 4, 2)
    sides = np.linalg.norm(q - np.roll(q, -1, axis=1), axis=2)
    side = sides.mean(axis=1)
    px_side = np.linalg.norm(raw - np.roll(raw, -1, axis=1), axis=2).mean(axis=1)
    # Corner angles: corner k between the edges to corners k-1 and k+1.
    va, vb = np.roll(q, 1, axis=1) - q, np.roll(q, -1, axis=1) - q
    cos = np.einsum("mkj,mkj->mk", va, vb) / (np.linalg.norm(va, axis=2)
                                             * np.linalg.norm(vb, axis=2))
    ang = np.degrees(np.arccos(np.clip(cos, -1, 1)))
    # Diagonal intersection: q0 + s (q2 - q0) = q1 + u (q3 - q1).
    d1, d2, rhs = q[:, 2] - q[:, 0], q[:, 3] - q[:, 1], q[:, 1] - q[:, 0]
    det = d2[:, 0] * d1[:, 1] - d1[:, 0] * d2[:, 1]
    ok = np.abs(det) > 1e-12
    s = (d2[:, 0] * rhs[:, 1] - rhs[:, 0] * d2[:, 1]) / np.where(ok, det, 1.0)
    centre = np.where(ok[:, None], q[:, 0] + s[:, None] * d1, q.mean(axis=1))

    # Top edge towards the unit's front: TL-BL and TR-BR point forward, TL->TR is "right".
    def unit_vec(v: np.ndarray) -> np.ndarray:
        return v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-12)

    def turn_left(v: np.ndarray) -> np.ndarray:
        return np.stack([-v[:, 1], v[:, 0]], axis=1)

    fwd = (unit_vec(q[:, 0] - q[:, 3]) + unit_vec(q[:, 1] - q[:, 2])
           + turn_left(unit_vec(q[:, 1] - q[:, 0])) + turn_left(unit_vec(q[:, 2] - q[:, 3])))
    facing = np.degrees(np.arctan2(fwd[:, 1], fwd[:, 0]))
    out = []
    for i, unit in enumerate(units):
        size = unit.marker_size_mm
        problem = None
        if (abs(side[i] - size) > SIZE_TOL * size
                or np.any(np.abs(sides[i] - size) > 1.5 * SIZE_TOL * size)):
            problem = (f"marker {unit.marker} ('{unit.id}') measures {side[i]:.1f} mm on the "
                       f"table, not {size:g} mm: not that tray's marker, rejected")
        else:
            off = np.flatnonzero(np.abs(ang[i] - 90) > SQUARE_TOL_DEG)
            if off.size:
                problem = (f"marker {unit.marker} ('{unit.id}') is not square on the table "
                           f"(a corner of {ang[i, off[0]]:.0f} degrees): rejected")
        out.append(MarkerFix(centre[i], float(facing[i]), float(side[i]), q[i],
                             float(px_side[i] / side[i]), problem))
    return out


def pose_from_marker(fix: MarkerFix, unit: UnitMarker) -> Pose:
    """The unit boundary centre: the marker centre minus its offset in the unit frame."""
    ox, oy = unit.marker_offset_mm
    p = Pose(0.0, 0.0, fix.facing)
    dx, dy = p.to_world(ox, oy)
    return Pose(float(fix.centre[0] - dx), float(fix.centre[1] - dy), normalize_deg(fix.facing))


def marker_sigmas(fix: MarkerFix, unit: UnitMarker, view: TableView,
                  corner_px: float = 0.12) -> tuple[float, float]:
    """Standard deviation of the marker-only pose: position (mm) and facing (deg), from the
    corner precision in pixels (CONTOUR refinement on a sharp photo), the marker's size in
    pixels and the table calibration's residual."""
    corner_mm = corner_px / max(fix.px_per_mm, 1e-6)
    sig_c = corner_mm / 2  # mean of four corners
    sig_th = corner_mm / (unit.marker_size_mm * math.sqrt(2))  # radians
    off = math.hypot(*unit.marker_offset_mm)
    sig_pos = math.hypot(sig_c, off * sig_th, view.residual_mm / 2)
    return sig_pos, math.degrees(sig_th)


@dataclass
class OutlineFit:
    pose: Pose
    sigma_mm: float
    sigma_deg: float
    points: int
    sides: int
    rms_mm: float
    info: dict = field(default_factory=dict)


PROFILE_STEP_PX = 0.5
PROFILE_HALF_PX = 6.0


def edge_points(gray: np.ndarray, view: TableView,
                trays: list[tuple[UnitMarker, Pose]],
                ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Where each tray's outline crosses intensity profiles along its four sides, all trays in
    one batch (array arithmetic over every profile of the photo, one ``cv2.remap``: a Python
    loop per tray and side cost more than the sampling itself). Returns per tray (points
    (N, 2) table mm, side index (N,))."""
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
    pos, peak = step_positions(prof, PROFILE_STEP_PX)
    s = (-half + np.nan_to_num(pos, nan=-1e6)) * step  # mm from the predicted edge
    # The rise across the edge (1.5 px either side): dark rim to mat, not texture.
    jj = np.clip(np.round(np.nan_to_num(pos)).astype(int), 3, len(k) - 4)
    rows = np.arange(len(prof))
    rise = prof[rows, jj + 3] - prof[rows, jj - 3]
    good = (np.isfinite(pos) & (peak > 4.0) & (rise > 12.0)
            & (np.abs(s) < (half - 3) * step))
    pts = (base + s[:, None] * nn)[good]
    side_g, owner_g = side_a[good], owner_a[good]
    cuts = np.searchsorted(owner_g, np.arange(1, len(trays)))
    return list(zip(np.split(pts, cuts), np.split(side_g, cuts), strict=True))


def _masked_median(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Median of each row of ``x`` over ``mask`` (0 for an empty row)."""
    k = mask.sum(axis=1)
    srt = np.sort(np.where(mask, x, np.inf), axis=1)
    lo = np.take_along_axis(srt, np.maximum((k - 1) // 2, 0)[:, None], axis=1)[:, 0]
    hi = np.take_along_axis(srt, np.maximum(k // 2, 0)[:, None], axis=1)[:, 0]
    return np.where(k > 0, (lo + hi) / 2, 0.0)


def fit_outline(pts: np.ndarray, side: np.ndarray, unit: UnitMarker, prior: Pose,
                prior_sigma_mm: float, prior_sigma_deg: float) -> OutlineFit | None:
    """Robust fit of the known-size rectangle to edge points, with the marker pose as a prior.
    None when too few points survive on fewer than two sides."""
    return fit_outlines([(pts, side)], [unit], [prior], [prior_sigma_mm], [prior_sigma_deg])[0]


def fit_outlines(edges: list[tuple[np.ndarray, np.ndarray]], units: list[UnitMarker],
                 priors: list[Pose], prior_sigma_mm: list[float],
                 prior_sigma_deg: list[float]) -> list[OutlineFit | None]:
    """:func:`fit_outline` for every tray of a photo at once.

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
    sig_prior = np.c_[prior_sigma_mm, prior_sigma_mm, np.radians(prior_sigma_deg)]
    ip = 1 / sig_prior ** 2
    weights = V.astype(np.float64)
    keep = V.copy()
    scale = np.full(T, 0.5)
    active = np.ones(T, bool)
    failed = np.zeros(T, bool)
    A_last = np.zeros((T, 3, 3))
    r_last = np.zeros((T, n))
    w_last = np.zeros((T, n))
    eye = np.eye(3)
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
        A = (J * sw[..., None]).transpose(0, 2, 1) @ J + ip[:, :, None] * eye
        g = (J * (sw * r)[..., None]).sum(axis=1) + (p - p0) * ip
        delta = -np.linalg.solve(A, g[..., None])[..., 0]
        A_last[active], r_last[active], w_last[active] = A[active], r[active], weights[active]
        p = np.where(active[:, None], p + delta, p)
        if it >= 3:
            active &= ~((np.abs(delta[:, :2]).max(axis=1) < 1e-3) & (np.abs(delta[:, 2]) < 1e-5))
    out: list[OutlineFit | None] = []
    for t in range(T):
        if failed[t]:
            out.append(None)
            continue
        cov = np.linalg.inv(A_last[t])
        used = w_last[t] > 0
        rms = float(np.sqrt(np.average(r_last[t][used] ** 2, weights=w_last[t][used])))
        # Neighbouring profiles share blur and texture: count one independent sample per ~4.
        inflate = 2.0
        a, b, cc = cov[0, 0], cov[1, 1], cov[0, 1]
        top = (a + b) / 2 + math.sqrt(max(((a - b) / 2) ** 2 + cc * cc, 0.0))  # largest eig.
        sig_xy = math.sqrt(max(top, 0.0)) * inflate
        sig_th = math.degrees(math.sqrt(max(cov[2, 2], 0))) * inflate
        x, y, th = p[t]
        out.append(OutlineFit(Pose(float(x), float(y), normalize_deg(math.degrees(th))), sig_xy,
                              sig_th, int(used.sum()), len(set(S[t][used].tolist())), rms))
    return out
