"""How far a detected pose can be off: the covariance of every unit's pose from what the photo
itself says about its precision.

DESIGN.md makes the sigmas a promise: on any photo, at least 99 units in 100 must lie within 3
sigma of the truth, the table calibration's own error included. Three things move a tray's
pose, and each is propagated to the pose by the exact (linearised) mapping the detector uses:

1. **Corner scatter** of the markers' corners in the photo. It is measured on the photo: the
   table markers' corners against the fitted table plane (``2N - 8`` degrees of freedom) and
   each tray marker's corners against the best square (4 each), pooled. Real photos of printed
   markers scatter by 0.23-0.42 px, rendered ones by ~0.1 px; the measured value is used,
   never below :data:`CORNER_FLOOR_PX`, and raised when few degrees of freedom measured it.
   Print and paper also shift a marker's four corners together (a shift its shape does not
   show): :data:`MARKER_SHIFT` of the corner scatter, common to the four corners.
2. **The table calibration**: the homography is fitted to the table markers' corners, so the
   corner scatter (and the markers' common shifts) makes it uncertain. Its 8x8 covariance is
   propagated to each unit from the very corners the unit rests on: near the markers it is
   small, far from them (three markers in one corner) it grows, as the extrapolation does.
3. **The camera centre** behind the parallax correction (a tray marker stands ``height_mm``
   above the table): without a calibration the focal length is nominal, known to about
   :data:`FOCAL_PRIOR` (or better, when the table's perspective measures it), and a focal error
   scales the parallax shift.

:func:`sigma_mm` turns a 2x2 position covariance into one number whose 3-fold is the 99.7%
radius of the position error (as 3 ``sigma_deg`` is for the facing): for a round error that is
1.15 standard deviations per axis, for a long thin one 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from .table import TableView, apply_h
from .trays import quad_poses, unit_centres

CORNER_FLOOR_PX = 0.03
"""Smallest corner scatter (per axis, px) believed whatever the photo measures (already taken
at its upper 90% bound, :func:`upper_bound`): the edge fits of :mod:`vision.edges` measure
0.017-0.03 px on clean renderings, real photos 0.23-0.42 px. At 0.05 px the floor made the
position sigmas of clean renderings 4-5x their errors (median error/sigma 0.19 at 1080p tilt
20); at 0.03 px 0.27, every unit still within 3 sigma."""
MARKER_SHIFT = 0.5
"""A marker's four corners also move together (print, paper not flat, the sticker's own
placement), by this share of the corner scatter per axis: on the real photos of
tests/vision/data the markers' centres scatter about a fitted plane by ~0.18 px against the
0.13 px their independent corner scatter (0.26 px) explains."""
THREE_MARKER_FACTOR = 2.0
"""A table fitted to only three markers counts their corners as scattering this many times the
photo's corner scatter. Four markers pin the plane by where they are; three leave its
perspective to the markers' own small shapes, and on real photos those carry more than
independent corner noise (ink, paper that is not quite flat, the lens): on the real photos of
tests/vision/data, three table markers left 89% of the units within 3 sigma with the scatter as
measured, 100% with twice it (median error/sigma 0.7); four left 100% with it as measured."""
MARKER_PRIOR_DOF = 8
"""Weight (degrees of freedom) of the photo's corner scatter against a tray marker's own four
when that marker's scatter is estimated: on rendered tables a sixth of the marker facings beyond
3 sigma came from markers whose own corners scattered two to three times the photo's."""
CHI2_4_999 = 18.47
"""99.9% point of the chi-square distribution with 4 degrees of freedom."""
FOCAL_PRIOR = 0.10
"""Relative standard deviation of a nominal focal length (no calibration): phone main cameras
and webcams span roughly 60-72 degrees of horizontal field."""
FOCAL_CALIBRATED = 0.01
"""... and of a calibrated one."""


@dataclass(frozen=True)
class Scatter:
    """Corner scatter of a photo: per-axis standard deviation (px) used, as measured, and the
    degrees of freedom that measured it."""

    px: float
    measured_px: float | None
    dof: int

    @property
    def shift_px(self) -> float:
        """Per-axis standard deviation of a shift common to a marker's four corners."""
        return MARKER_SHIFT * self.px

    def per_marker(self, ss: np.ndarray, dof: int = 4) -> np.ndarray:
        """Each tray marker's own corner scatter (px): the photo's, moved towards what the
        marker's own square fit shows (``ss``, px^2, ``dof`` each) as far as its few degrees of
        freedom allow (a marker under glare, in a shadow or blurred further shows more than
        the photo's typical scatter), never below the photo's. A marker whose corners are no
        square at all (``ss`` beyond the 99.9% point of the photo's scatter: a shadow or a
        model across a corner) may have all of that error in one corner: its scatter is then
        the whole residual in one corner's two coordinates."""
        ss = np.asarray(ss, np.float64)
        own = np.sqrt((MARKER_PRIOR_DOF * self.px ** 2 + ss) / (MARKER_PRIOR_DOF + dof))
        broken = ss > CHI2_4_999 * self.px ** 2
        return np.maximum(np.where(broken, np.sqrt(ss / 2), own), self.px)


def square_residuals(view: TableView, raw: np.ndarray, q: np.ndarray,
                     z: np.ndarray) -> np.ndarray:
    """Sum of squared distances (px^2) of each marker's corners (raw px, (M, 4, 2)) from the
    best square (free centre, turn and size) fitted to its table-frame corners ``q`` at
    height ``z`` (M,) and projected back into the photo: 4 degrees of freedom each."""
    if len(q) == 0:
        return np.zeros(0)
    c = q.mean(axis=1, keepdims=True)
    d = q - c
    t = np.array([[-1.0, 1.0], [1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]])
    # Orthogonal Procrustes in 2D: the best turn and scale of the template onto d.
    a = np.einsum("mkj,kj->m", d, t)
    b = np.einsum("mk,k->m", d[..., 1], t[:, 0]) - np.einsum("mk,k->m", d[..., 0], t[:, 1])
    ang = np.arctan2(b, a)
    scale = np.hypot(a, b) / float((t ** 2).sum())
    cs, sn = np.cos(ang), np.sin(ang)
    fit = c + scale[:, None, None] * np.stack(
        [cs[:, None] * t[:, 0] - sn[:, None] * t[:, 1],
         sn[:, None] * t[:, 0] + cs[:, None] * t[:, 1]], axis=2)
    back = view.to_image(fit.reshape(-1, 2), np.repeat(z, 4)).reshape(-1, 4, 2)
    return ((back - raw) ** 2).sum(axis=(1, 2))


def upper_bound(ss: float, dof: int) -> float:
    """An upper 90% confidence bound of a standard deviation measured as ``sqrt(ss / dof)``
    (the Wilson-Hilferty approximation of the chi-square quantile): with few degrees of
    freedom a scatter can come out small by luck."""
    if dof <= 0:
        return math.inf
    z = 1.2816  # the 10% point of the normal
    k = 2 / (9 * dof)
    q10 = dof * (1 - k - z * math.sqrt(k)) ** 3  # 10% quantile of chi-square(dof)
    return math.sqrt(ss / max(q10, 1e-9))


def corner_scatter(sums: list[tuple[float, int]], floor_px: float = CORNER_FLOOR_PX) -> Scatter:
    """The photo's corner scatter from (sum of squares px^2, degrees of freedom) pairs."""
    ss = sum(s for s, _ in sums)
    dof = sum(d for _, d in sums)
    if dof <= 0:
        return Scatter(floor_px, None, 0)
    measured = math.sqrt(ss / dof)
    return Scatter(max(floor_px, upper_bound(ss, dof)), measured, dof)


@dataclass(frozen=True)
class TableCovariance:
    """The homography's uncertainty as perturbed homographies: ``plus[k]`` and ``minus[k]``
    are the fit moved by +- one standard deviation along the k-th principal direction of its
    parameter covariance, so a pose's covariance is the sum of the outer products of its
    central differences."""

    plus: list[np.ndarray]
    minus: list[np.ndarray]


def _normaliser(pts: np.ndarray) -> np.ndarray:
    """Hartley's normalisation: centre on the mean, mean distance sqrt(2)."""
    m = pts.mean(axis=0)
    s = math.sqrt(2) / max(float(np.mean(np.linalg.norm(pts - m, axis=1))), 1e-12)
    return np.array([[s, 0, -s * m[0]], [0, s, -s * m[1]], [0, 0, 1.0]])


def table_covariance(H: np.ndarray, ideal: np.ndarray, tab: np.ndarray,
                     scatter: Scatter) -> TableCovariance:
    """Covariance of the table homography ``H`` (ideal px -> table mm) fitted by least squares
    to corners ``ideal`` (N, 2; four per marker, in order) at ``tab`` (N, 2), from a corner
    scatter (independent per corner, plus a shift common to each marker's four).

    Linearised least squares in Hartley-normalised coordinates: with J the residuals' Jacobian
    in the 8 parameters and A the Jacobian in the corners, cov(h) = J+ A S A^T J+^T."""
    Tu, Tx = _normaliser(ideal), _normaliser(tab)
    Hn = Tx @ H @ np.linalg.inv(Tu)
    Hn = Hn / Hn[2, 2]
    un = apply_h(Tu, ideal)
    x, y = un[:, 0], un[:, 1]
    w = Hn[2, 0] * x + Hn[2, 1] * y + 1.0
    px = (Hn[0, 0] * x + Hn[0, 1] * y + Hn[0, 2]) / w
    py = (Hn[1, 0] * x + Hn[1, 1] * y + Hn[1, 2]) / w
    n = len(un)
    J = np.zeros((2 * n, 8))
    J[0::2, 0], J[0::2, 1], J[0::2, 2] = x / w, y / w, 1 / w
    J[1::2, 3], J[1::2, 4], J[1::2, 5] = x / w, y / w, 1 / w
    J[0::2, 6], J[0::2, 7] = -px * x / w, -px * y / w
    J[1::2, 6], J[1::2, 7] = -py * x / w, -py * y / w
    A = np.zeros((2 * n, 2 * n))  # d residual / d corner (normalised units)
    A[0::2, 0::2] = np.diag((Hn[0, 0] - px * Hn[2, 0]) / w)
    A[0::2, 1::2] = np.diag((Hn[0, 1] - px * Hn[2, 1]) / w)
    A[1::2, 0::2] = np.diag((Hn[1, 0] - py * Hn[2, 0]) / w)
    A[1::2, 1::2] = np.diag((Hn[1, 1] - py * Hn[2, 1]) / w)
    s = Tu[0, 0] * (THREE_MARKER_FACTOR if n <= 12 else 1.0)  # px -> normalised units
    S = np.eye(2 * n) * (scatter.px * s) ** 2
    same = np.kron(np.kron(np.eye(n // 4), np.ones((4, 4))), np.eye(2))
    S += same * (scatter.shift_px * s) ** 2
    B = np.linalg.pinv(J)
    C = B @ A @ S @ A.T @ B.T
    vals, vecs = np.linalg.eigh((C + C.T) / 2)
    plus, minus = [], []
    Tx_inv = np.linalg.inv(Tx)
    for lam, v in zip(vals, vecs.T, strict=True):
        if lam <= 0:
            continue
        step = math.sqrt(lam) * v
        for sign, dest in ((1, plus), (-1, minus)):
            h = np.append(Hn.ravel()[:8] + sign * step, 1.0).reshape(3, 3)
            dest.append(Tx_inv @ h @ Tu)
    return TableCovariance(plus, minus)


def marker_poses(view: TableView, raw: np.ndarray, z: np.ndarray,
                 offsets: np.ndarray) -> np.ndarray:
    """Unit poses (M, 3: x mm, y mm, facing rad) from tray-marker corners (raw px, (M, 4, 2))
    at heights ``z`` (M,) with offsets (M, 2): the same mapping as
    :func:`vision.trays.measure_markers` and :func:`vision.trays.pose_from_marker`."""
    q = view.to_table(raw.reshape(-1, 2), np.repeat(z, 4)).reshape(-1, 4, 2)
    return _quad_unit_poses(q, offsets)


def _quad_unit_poses(q: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Unit poses from table-frame marker quads (K * M, 4, 2), offsets (M, 2) repeated."""
    centre, facing = quad_poses(q)
    off = np.tile(offsets, (len(q) // max(len(offsets), 1), 1))
    return np.c_[unit_centres(centre, facing, off), facing]


def _plane_poses(view: TableView, planes: list[np.ndarray], ideal: np.ndarray, z: np.ndarray,
                 offsets: np.ndarray, centres: list[np.ndarray]) -> np.ndarray:
    """Unit poses (K, M, 3) for K variants of the table plane homography and camera centre,
    from the same ideal corner pixels (M, 4, 2): the lens is undone once, and the lifts and the
    quads' poses run on all variants in one batch."""
    zz = np.repeat(z, 4)
    q = []
    for H, c in zip(planes, centres, strict=True):
        p0 = apply_h(H, ideal.reshape(-1, 2))
        k = ((c[2] - zz) / c[2])[:, None]
        q.append(c[:2] + (p0 - c[:2]) * k)
    out = _quad_unit_poses(np.concatenate(q).reshape(-1, 4, 2), offsets)
    return out.reshape(len(planes), -1, 3)


def _outer(d: np.ndarray) -> np.ndarray:
    """Sum over the first axis of outer products of pose differences (K, M, 3) -> (M, 3, 3),
    the facing difference wrapped."""
    d = d.copy()
    d[..., 2] = (d[..., 2] + math.pi) % (2 * math.pi) - math.pi
    return np.einsum("kmi,kmj->mij", d, d)


def focal_shift(view: TableView, rel: float) -> np.ndarray:
    """How far the camera centre moves (mm) if the focal length were ``1 + rel`` times the
    one in use: the plane homography decomposed with the other camera matrix."""
    def centre(f_scale: float) -> np.ndarray:
        K = view.intr.K.copy()
        K[0, 0] *= f_scale
        K[1, 1] *= f_scale
        M = np.linalg.inv(K) @ view.Hinv
        lam = 2 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
        r1, r2 = M[:, 0] * lam, M[:, 1] * lam
        r3 = np.cross(r1, r2)
        R = np.stack([r1, r2, r3], axis=1)
        u, _, vt = np.linalg.svd(R)
        R = u @ vt
        t = M[:, 2] * lam
        c = -R.T @ t
        return c if c[2] > 0 else -c
    return centre(1 + rel) - centre(1.0)


def pose_covariances(view: TableView, raw: np.ndarray, z: np.ndarray, offsets: np.ndarray,
                     scatter_px: float | np.ndarray, table: TableCovariance | None,
                     focal_sigma: float) -> dict[str, np.ndarray]:
    """Covariances (M, 3, 3) of the marker-only poses of :func:`marker_poses` (x, y mm; facing
    rad), one per source: ``corners`` (the marker's own 8 corner coordinates, scattering by
    ``scatter_px`` (per marker or one for all), and their common shift), ``table`` (the
    homography), ``lens`` (:func:`lens_covariance`), ``camera`` (the camera centre behind the
    parallax correction), each by central differences of the exact mapping. Their sum is the
    pose's covariance."""
    raw = np.asarray(raw, np.float64).reshape(-1, 4, 2)
    m = len(raw)
    zero = np.zeros((m, 3, 3))
    if m == 0:
        return {"corners": zero, "table": zero, "lens": zero, "camera": zero}

    # Corner scatter: the 8 coordinates one by one and the common shift in x and y, +- each,
    # all markers and all 20 variants in one projection.
    px = np.broadcast_to(np.asarray(scatter_px, np.float64), (m,))[:, None, None]
    steps = np.zeros((10, 1, 4, 2))
    for k in range(8):
        steps[k].flat[k] = 1.0
    steps[8, ..., 0] = steps[9, ..., 1] = MARKER_SHIFT
    moved = np.concatenate([raw + steps * px, raw - steps * px])  # (20, M, 4, 2)
    zz = np.tile(z, 20)
    q = view.to_table(moved.reshape(-1, 2), np.repeat(zz, 4)).reshape(-1, 4, 2)
    poses = _quad_unit_poses(q, offsets).reshape(2, 10, m, 3)
    out = {"corners": _outer((poses[0] - poses[1]) / 2), "table": zero, "camera": zero}
    ideal = view.intr.undistort(raw.reshape(-1, 2)).reshape(-1, 4, 2)
    if table is not None and table.plus:
        planes = list(table.plus) + list(table.minus)
        poses = _plane_poses(view, planes, ideal, z, offsets, [view.centre] * len(planes))
        k = len(table.plus)
        out["table"] = _outer((poses[:k] - poses[k:]) / 2)
    out["lens"] = lens_covariance(view, raw, z, offsets)
    if focal_sigma > 0 and np.any(z != 0):
        dc = focal_shift(view, focal_sigma)
        poses = _plane_poses(view, [view.H, view.H], ideal, z, offsets,
                             [view.centre + dc, view.centre - dc])
        out["camera"] = _outer((poses[:1] - poses[1:]) / 2)
    return out


FACING_MODEL_FACTOR = 1.15
"""The facing's standard deviation is widened by this much for what the model leaves out: on
rendered tables ~0.5% of the facings lay at 3.1-3.5 of their sigmas, the marker and the
outline turned alike (a tray square to nothing, both edges found a fraction of a pixel off the
same way: the pixel grid, blur and JPEG at 45 degrees), which their combination cannot know.
A marker alone is not widened: on the real photos of tests/vision/data (marker-only units)
the facings' median error/sigma was 0.30 with it, 0.34 without, every one within 3 sigma."""


def widen_facing(cov: np.ndarray) -> np.ndarray:
    """A pose covariance with the facing's standard deviation widened by
    :data:`FACING_MODEL_FACTOR` (its correlations with the position kept)."""
    out = cov.copy()
    out[2, :] *= FACING_MODEL_FACTOR
    out[:, 2] *= FACING_MODEL_FACTOR
    return out


def lens_covariance(view: TableView, raw: np.ndarray, z: np.ndarray,
                    offsets: np.ndarray) -> np.ndarray:
    """Covariance (M, 3, 3) of the poses from the lens's radial term (``view.k1_sigma``, 0 when
    a calibration gives the lens): the table plane refitted and the trays mapped again through
    the lens model moved by +- one standard deviation."""
    m = len(raw)
    if view.k1_sigma <= 0 or len(view.fit_raw) < 8:
        return np.zeros((m, 3, 3))
    dist = np.array(view.intr.dist, np.float64).ravel()
    if dist.size == 0:
        dist = np.zeros(5)
    poses = []
    for step in (view.k1_sigma, -view.k1_sigma):
        moved = dist.copy()
        moved[0] += step  # the calibration's other terms, if any, kept
        intr = view.intr.with_dist(moved)
        H, _ = cv2.findHomography(intr.undistort(view.fit_raw), view.fit_table, 0)
        if H is None:
            return np.zeros((m, 3, 3))
        poses.append(marker_poses(replace(view, H=H, intr=intr), raw, z, offsets))
    return _outer(((poses[0] - poses[1]) / 2)[None])


def sigma_mm(cov: np.ndarray) -> float:
    """One number for a 2x2 position covariance such that 3 of it is the 99.7% radius of the
    position error (within 1% of the exact quantile, never below it by more): the larger
    axis' standard deviation, widened when the error is round (1.147 for a circle)."""
    a, b, c = cov[0, 0], cov[1, 1], cov[0, 1]
    mid, half = (a + b) / 2, math.sqrt(max(((a - b) / 2) ** 2 + c * c, 0.0))
    hi, lo = max(mid + half, 0.0), max(mid - half, 0.0)
    if hi <= 0:
        return 0.0
    rho = math.sqrt(lo / hi)
    return math.sqrt(hi * (1 + 0.316 * rho ** 3))


def sigma_deg(cov: np.ndarray) -> float:
    """Standard deviation of the facing (degrees) from a 3x3 pose covariance (rad^2)."""
    return math.degrees(math.sqrt(max(cov[2, 2], 0.0)))
