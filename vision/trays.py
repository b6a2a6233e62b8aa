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
    q = view.to_table(raw, unit.height_mm)
    sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    side = float(sides.mean())
    size = unit.marker_size_mm
    px_side = float(np.linalg.norm(raw - np.roll(raw, -1, axis=0), axis=1).mean())
    problem = None
    if abs(side - size) > SIZE_TOL * size or np.any(np.abs(sides - size) > 1.5 * SIZE_TOL * size):
        problem = (f"marker {unit.marker} ('{unit.id}') measures {side:.1f} mm on the table, "
                   f"not {size:g} mm: not that tray's marker, rejected")
    else:
        for k in range(4):
            a = q[k - 1] - q[k]
            b = q[(k + 1) % 4] - q[k]
            ang = math.degrees(math.acos(np.clip(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)),
                                                 -1, 1)))
            if abs(ang - 90) > SQUARE_TOL_DEG:
                problem = (f"marker {unit.marker} ('{unit.id}') is not square on the table "
                           f"(a corner of {ang:.0f} degrees): rejected")
                break
    # Diagonal intersection.
    d1, d2 = q[2] - q[0], q[3] - q[1]
    A = np.array([d1, -d2]).T
    try:
        s, _ = np.linalg.solve(A, q[1] - q[0])
        centre = q[0] + s * d1
    except np.linalg.LinAlgError:
        centre = q.mean(axis=0)
    # Top edge towards the unit's front: TL-BL and TR-BR point forward, TL->TR is "right".
    def unit_vec(v: np.ndarray) -> np.ndarray:
        return v / (np.linalg.norm(v) + 1e-12)

    def turn_left(v: np.ndarray) -> np.ndarray:
        return np.array([-v[1], v[0]])

    fwd = (unit_vec(q[0] - q[3]) + unit_vec(q[1] - q[2])
           + turn_left(unit_vec(q[1] - q[0])) + turn_left(unit_vec(q[2] - q[3])))
    facing = math.degrees(math.atan2(fwd[1], fwd[0]))
    return MarkerFix(centre, facing, side, q, px_side / side, problem)


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


def _side_geometry(pose: Pose, w: float, d: float) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """(start, end, half-extent) of the front, right, rear, left sides with outward normals
    implied by their order round the centre."""
    fl, fr = pose.to_world(-w / 2, d / 2), pose.to_world(w / 2, d / 2)
    rr, rl = pose.to_world(w / 2, -d / 2), pose.to_world(-w / 2, -d / 2)
    return [(np.array(fl), np.array(fr), d / 2), (np.array(fr), np.array(rr), w / 2),
            (np.array(rr), np.array(rl), d / 2), (np.array(rl), np.array(fl), w / 2)]


def _normals(facing_deg: float) -> np.ndarray:
    """Outward normals of front, right, rear, left."""
    a = math.radians(facing_deg)
    f = np.array([math.cos(a), math.sin(a)])
    r = np.array([math.sin(a), -math.cos(a)])
    return np.array([f, r, -f, -r])


PROFILE_STEP_PX = 0.5
PROFILE_HALF_PX = 6.0


def edge_points(gray: np.ndarray, view: TableView,
                trays: list[tuple[UnitMarker, Pose]],
                ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Where each tray's outline crosses intensity profiles along its four sides, all trays in
    one batch. Returns per tray (points (N, 2) table mm, side index (N,))."""
    rows_base, rows_n, rows_step, rows_z, owner, sides = [], [], [], [], [], []
    cam = view.centre
    for t, (unit, pose) in enumerate(trays):
        w, d, h = unit.width_mm, unit.depth_mm, unit.height_mm
        normals = _normals(pose.facing)
        mmpp = view.mm_per_px(np.array(pose.centre))
        for k, (a, b, _) in enumerate(_side_geometry(pose, w, d)):
            n = normals[k]
            z = 0.0 if n @ (cam[:2] - (a + b) / 2) > 0 else h  # visible face: bottom edge
            length = float(np.linalg.norm(b - a))
            m = int(np.clip(length * 0.88 / max(1.5 * mmpp, 0.8), 0, 80))
            if m < 3:
                continue
            tt = np.linspace(0.06, 0.94, m)
            rows_base.append(a + (b - a) * tt[:, None])
            rows_n.append(np.repeat(n[None], m, axis=0))
            rows_step.append(np.full(m, PROFILE_STEP_PX * mmpp))
            rows_z.append(np.full(m, z))
            owner.append(np.full(m, t))
            sides.append(np.full(m, k))
    out = [(np.zeros((0, 2)), np.zeros(0, int)) for _ in trays]
    if not rows_base:
        return out
    base = np.vstack(rows_base)
    nn = np.vstack(rows_n)
    step = np.concatenate(rows_step)
    z = np.concatenate(rows_z)
    owner_a = np.concatenate(owner)
    side_a = np.concatenate(sides)
    half = int(round(PROFILE_HALF_PX / PROFILE_STEP_PX))
    k = np.arange(-half, half + 1)
    offs = k[None, :] * step[:, None]  # mm
    grid = base[:, None, :] + offs[..., None] * nn[:, None, :]
    zz = np.repeat(z, len(k))
    px = view.to_image(grid.reshape(-1, 2), zz).reshape(len(base), len(k), 2)
    px = px.astype(np.float32)
    prof = cv2.remap(gray, px[..., 0], px[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    pos, peak = step_positions(prof, PROFILE_STEP_PX)
    s = (-half + np.nan_to_num(pos, nan=-1e6)) * step  # mm from the predicted edge
    # The rise across the edge (1.5 px either side): dark rim to mat, not texture.
    j = np.clip(np.round(np.nan_to_num(pos)).astype(int), 3, len(k) - 4)
    rows = np.arange(len(prof))
    rise = prof[rows, j + 3] - prof[rows, j - 3]
    good = (np.isfinite(pos) & (peak > 4.0) & (rise > 12.0)
            & (np.abs(s) < (half - 3) * step))
    pts = base + s[:, None] * nn
    for t in range(len(trays)):
        sel = good & (owner_a == t)
        out[t] = (pts[sel], side_a[sel])
    return out


def fit_outline(pts: np.ndarray, side: np.ndarray, unit: UnitMarker, prior: Pose,
                prior_sigma_mm: float, prior_sigma_deg: float) -> OutlineFit | None:
    """Robust fit of the known-size rectangle to edge points, with the marker pose as a prior.
    None when too few points survive on fewer than two sides."""
    w, d = unit.width_mm, unit.depth_mm
    half = np.array([d / 2, w / 2, d / 2, w / 2])
    x, y, th = prior.x, prior.y, math.radians(prior.facing)
    p0 = np.array([x, y, th])
    sig_prior = np.array([prior_sigma_mm, prior_sigma_mm, math.radians(prior_sigma_deg)])
    weights = np.ones(len(pts))
    keep = np.ones(len(pts), bool)
    scale = 0.5
    cov = np.diag(sig_prior ** 2)
    r = np.zeros(len(pts))
    for it in range(6):
        normals = _normals(math.degrees(th))
        n = normals[side]
        nd = np.c_[-n[:, 1], n[:, 0]]  # d n / d theta
        rel = pts - [x, y]
        r = np.sum(n * rel, axis=1) - half[side]
        if it in (1, 3):
            mad = np.median(np.abs(r[keep] - np.median(r[keep]))) * 1.4826 if keep.any() else 1
            scale = max(mad, 0.03)
        if it >= 1:
            keep = np.abs(r) < max(4 * scale, 0.15)
            u = r / (4.685 * scale)
            weights = np.where(np.abs(u) < 1, (1 - u ** 2) ** 2, 0.0) * keep
        if np.count_nonzero(weights > 0) < 6 or len(set(side[weights > 0].tolist())) < 2:
            return None
        J = np.c_[-n[:, 0], -n[:, 1], np.sum(nd * rel, axis=1)]
        sw = weights / scale ** 2
        A = J.T @ (J * sw[:, None]) + np.diag(1 / sig_prior ** 2)
        g = J.T @ (sw * r) + (np.array([x, y, th]) - p0) / sig_prior ** 2
        delta = -np.linalg.solve(A, g)
        x, y, th = x + delta[0], y + delta[1], th + delta[2]
        if it >= 3 and np.max(np.abs(delta[:2])) < 1e-3 and abs(delta[2]) < 1e-5:
            break
    cov = np.linalg.inv(A)
    used = weights > 0
    rms = float(np.sqrt(np.average(r[used] ** 2, weights=weights[used])))
    # Neighbouring profiles share blur and texture: count one independent sample per ~4.
    inflate = 2.0
    a, b, c = cov[0, 0], cov[1, 1], cov[0, 1]
    top = (a + b) / 2 + math.sqrt(max(((a - b) / 2) ** 2 + c * c, 0.0))  # largest eigenvalue
    sig_xy = math.sqrt(max(top, 0.0)) * inflate
    sig_th = math.degrees(math.sqrt(max(cov[2, 2], 0))) * inflate
    return OutlineFit(Pose(float(x), float(y), normalize_deg(math.degrees(th))), sig_xy, sig_th,
                      int(used.sum()), len(set(side[used].tolist())), rms)
