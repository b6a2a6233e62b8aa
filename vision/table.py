"""Table calibration: from the table markers seen in a photo to a map between pixels and table
millimetres at any height.

The table plane is fitted by a RANSAC homography on the table markers' corners (after the lens
distortion is removed). The camera centre comes from ``solvePnP`` on the same corners with the
intrinsics at hand (a calibration file or nominal ones); it is all the parallax correction needs:
a point at height ``z`` seen through pixel ``p`` lies on the ray from the camera centre ``C``
through the table-plane point ``H(p)``, so ``xy = C + (H(p) - C) * (Cz - z) / Cz``. Keeping the
homography for the plane itself (rather than re-projecting with the pose) keeps the table mapping
exact even when the nominal focal length is a little off.

With 8 or more table markers round the border and no calibration, the radial term ``k1`` is
estimated from the photo: it is the value that makes the markers' corners fit one homography
best (a straight table edge only stays straight through the right lens model).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from .camera import Intrinsics
from .errors import DetectionError
from .markers import MarkerSet

MIN_TABLE_MARKERS = 3
MIN_MARKERS_FOR_DISTORTION = 8


def apply_h(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """A homography applied to points (N, 2), written out per row (no (N, 3) homogeneous copy:
    this runs on ~10^5 profile samples per photo)."""
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    x, y = pts[:, 0], pts[:, 1]
    w = H[2, 0] * x + H[2, 1] * y + H[2, 2]
    out = np.empty_like(pts)
    out[:, 0] = (H[0, 0] * x + H[0, 1] * y + H[0, 2]) / w
    out[:, 1] = (H[1, 0] * x + H[1, 1] * y + H[1, 2]) / w
    return out


def _lens_shift(intr: Intrinsics, px: np.ndarray) -> np.ndarray:
    """Raw minus ideal pixels along rows of samples (R, K, 2) that are short straight lines
    (profiles a dozen pixels long): the lens model is evaluated at a row's two ends and middle
    and interpolated quadratically in between (its third-order change over a dozen pixels is
    far below 10^-3 px), instead of ``projectPoints`` on every sample (80 ms at 4K)."""
    k = px.shape[1]
    if k < 5:
        return intr.distort(px.reshape(-1, 2)).reshape(px.shape) - px
    nodes = np.array([0, k // 2, k - 1])
    ideal = px[:, nodes, :]
    shift = intr.distort(ideal.reshape(-1, 2)).reshape(ideal.shape) - ideal  # (R, 3, 2)
    j = np.arange(k, dtype=np.float64)
    lag = np.empty((k, 3))  # Lagrange basis of the three nodes at every sample
    for n in range(3):
        a, b = (m for m in range(3) if m != n)
        lag[:, n] = ((j - nodes[a]) / (nodes[n] - nodes[a])
                     * (j - nodes[b]) / (nodes[n] - nodes[b]))
    return np.einsum("kn,rnc->rkc", lag, shift)


@dataclass
class TableView:
    """Pixels <-> table millimetres for one photo."""

    H: np.ndarray  # ideal pixels -> table mm on the plane z = 0
    intr: Intrinsics  # intrinsics with the distortion in use
    centre: np.ndarray  # camera centre, table frame (mm), z up
    rvec: np.ndarray
    tvec: np.ndarray
    residual_mm: float  # RMS distance of the table markers' corners from their known places
    residual_px: float
    used: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)
    outliers: list[int] = field(default_factory=list)
    k1_estimated: float | None = None
    fit_ideal: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    """The table markers' corners the plane was fitted to (ideal px, four per marker)..."""
    fit_table: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    """... and where they lie on the table (mm)."""
    fit_raw: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    """The same corners as found in the photo (raw px, before the lens model)."""
    k1_sigma: float = 0.0
    """Standard deviation of the radial lens term in use (:mod:`vision.lens`); 0: known."""
    focal_sigma: float | None = None
    """Relative uncertainty of the focal length in use when the table's perspective measured
    it (:func:`vision.focal.refine_focal`); None: the nominal or calibrated one's."""
    focal_estimate: tuple[float, float] | None = None
    """The focal length (px) the table's perspective alone gives, and its uncertainty."""

    @property
    def residual_dof(self) -> int:
        """Degrees of freedom of the plane fit's residuals (two per corner, less eight)."""
        return max(2 * len(self.fit_ideal) - 8, 0)

    @property
    def residual_ss_px(self) -> float:
        """Sum of squared distances (px^2) of the fitted corners from where the plane puts
        them."""
        if len(self.fit_ideal) == 0:
            return 0.0
        back = apply_h(self.Hinv, self.fit_table) - self.fit_ideal
        return float((back ** 2).sum())

    @property
    def Hinv(self) -> np.ndarray:
        return np.linalg.inv(self.H)

    def to_table(self, raw_px: np.ndarray, z: float | np.ndarray = 0.0) -> np.ndarray:
        """Raw pixels (N, 2) of points at height ``z`` to table coordinates (N, 2)."""
        p0 = apply_h(self.H, self.intr.undistort(raw_px))
        return self.lift(p0, z)

    def lift(self, p0: np.ndarray, z: float | np.ndarray) -> np.ndarray:
        """Table-plane points (where the rays meet z = 0) to the points at height ``z``."""
        c = self.centre
        k = (c[2] - np.asarray(z, np.float64)) / c[2]
        return c[:2] + (p0 - c[:2]) * np.reshape(k, (-1, 1))

    def to_image(self, pts: np.ndarray, z: float | np.ndarray = 0.0) -> np.ndarray:
        """Table points (N, 2) at height ``z`` to raw pixels (N, 2)."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        c = self.centre
        k = c[2] / (c[2] - np.asarray(z, np.float64))
        p0 = c[:2] + (pts - c[:2]) * np.reshape(k, (-1, 1))
        return self.intr.distort(apply_h(self.Hinv, p0))

    def mm_per_px(self, pt: np.ndarray) -> float:
        """Table millimetres per pixel near a table point (geometric mean of the two axes)."""
        return float(self.mm_per_px_at(np.asarray(pt, np.float64).reshape(1, 2))[0])

    def mm_per_px_at(self, pts: np.ndarray) -> np.ndarray:
        """:meth:`mm_per_px` at many table points (N, 2) in one projection."""
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        px = self.to_image(np.vstack([p, p + [1, 0], p + [0, 1]])).reshape(3, -1, 2)
        a = np.linalg.norm(px[1] - px[0], axis=1)
        b = np.linalg.norm(px[2] - px[0], axis=1)
        return 1.0 / np.sqrt(np.maximum(a * b, 1e-12))

    def image_lines(self, base: np.ndarray, direction: np.ndarray, z: np.ndarray,
                    offsets: np.ndarray) -> np.ndarray:
        """Raw pixels (R, K, 2) of the table points ``base + offsets * direction`` at height
        ``z`` (base, direction (R, 2); z (R,); offsets (R, K) mm).

        Lifting to height z and the homography are both projective, so each row is one
        homogeneous start and direction: x(s) = (B + s D) / (B_w + s D_w), exact, without
        mapping every sample on its own (the profiles of a photo are ~10^5 points)."""
        c = self.centre
        k = (c[2] / (c[2] - np.asarray(z, np.float64)))[:, None]
        p0 = c[:2] + (np.asarray(base, np.float64) - c[:2]) * k
        dd = np.asarray(direction, np.float64) * k
        Hi = self.Hinv
        B = p0 @ Hi[:, :2].T + Hi[:, 2]  # (R, 3)
        D = dd @ Hi[:, :2].T  # (R, 3)
        w = B[:, 2:3] + offsets * D[:, 2:3]
        px = np.empty((*offsets.shape, 2))
        px[..., 0] = (B[:, 0:1] + offsets * D[:, 0:1]) / w
        px[..., 1] = (B[:, 1:2] + offsets * D[:, 1:2]) / w
        if self.intr.distorted:
            px = px + _lens_shift(self.intr, px)
        return px


def _fit_h(img: np.ndarray, tab: np.ndarray, thr_mm: float) -> tuple[np.ndarray, np.ndarray]:
    H, mask = cv2.findHomography(img, tab, cv2.RANSAC, thr_mm, maxIters=2000,
                                 confidence=0.999)
    if H is None:
        raise DetectionError("table markers: no consistent table plane (homography failed)")
    inl = mask.ravel().astype(bool)
    H2, _ = cv2.findHomography(img[inl], tab[inl], 0)
    return (H2 if H2 is not None else H), inl


def _h_residual(img: np.ndarray, tab: np.ndarray) -> float:
    H, _ = cv2.findHomography(img, tab, 0)
    if H is None:
        return float("inf")
    return float(np.sqrt(np.mean(np.sum((apply_h(H, img) - tab) ** 2, axis=1))))


def estimate_k1(raw: np.ndarray, tab: np.ndarray, intr: Intrinsics) -> float | None:
    """Radial distortion ``k1`` that lets the table markers' corners fit one homography best;
    None when the improvement is too small to be real."""

    def cost(k1: float) -> float:
        return _h_residual(intr.with_dist([k1, 0, 0, 0, 0]).undistort(raw), tab)

    lo, hi = -0.4, 0.4
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = cost(a), cost(b)
    for _ in range(40):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = cost(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = cost(b)
    k1 = (lo + hi) / 2
    base = cost(0.0)
    best = cost(k1)
    if abs(k1) < 0.003 or best > 0.7 * base:
        return None
    return k1


def camera_pose(table_pts: np.ndarray, ideal_pts: np.ndarray, intr: Intrinsics,
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Camera rotation (Rodrigues), translation and centre (table frame, mm) from table points
    and their ideal pixels, for the camera matrix ``intr.K``: ``solvePnP`` (IPPE, for planar
    points) refined by Levenberg-Marquardt."""
    obj = np.c_[table_pts, np.zeros(len(table_pts))]
    ok, rvec, tvec = cv2.solvePnP(obj, ideal_pts, intr.K, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise DetectionError("table markers: the camera pose cannot be solved")
    rvec, tvec = cv2.solvePnPRefineLM(obj, ideal_pts, intr.K, None, rvec, tvec)
    R, _ = cv2.Rodrigues(rvec)
    centre = (-R.T @ tvec).ravel()
    if centre[2] <= 0:
        raise DetectionError("table markers: the camera appears to be under the table "
                             "(markers mirrored?)")
    return rvec.ravel(), tvec.ravel(), centre


def calibrate_table(corners: dict[int, np.ndarray], markers: MarkerSet, intr: Intrinsics,
                    estimate_distortion: bool = True) -> TableView:
    """Table view from the detected table markers (id -> raw 4x2 corners, ArUco order).

    Raises :class:`DetectionError` naming the missing markers when fewer than three are seen.
    """
    expected = [m.id for m in markers.table.markers]
    seen = [i for i in expected if i in corners]
    missing = [i for i in expected if i not in corners]
    if not seen:
        raise DetectionError(f"no table markers found in the photo (expected ids {expected} of "
                             f"{markers.dictionary}); is the whole table in the picture?")
    if len(seen) < MIN_TABLE_MARKERS:
        raise DetectionError(f"too few table markers: found {seen}, missing {missing}; at least "
                             f"{MIN_TABLE_MARKERS} are needed to calibrate the table")
    raw = np.vstack([corners[i] for i in seen]).astype(np.float64)
    tab = np.vstack([markers.table_by_id[i].corners() for i in seen])

    k1_est = None
    if (estimate_distortion and not intr.distorted
            and len(seen) >= MIN_MARKERS_FOR_DISTORTION):
        k1_est = estimate_k1(raw, tab, intr)
        if k1_est is not None:
            intr = intr.with_dist([k1_est, 0, 0, 0, 0])
    ideal = intr.undistort(raw)
    scale = np.median([np.linalg.norm(corners[i][0] - corners[i][2]) /
                       (markers.table_by_id[i].size_mm * math.sqrt(2)) for i in seen])
    H, inl = _fit_h(ideal, tab, thr_mm=max(2.0, 3.0 / max(scale, 1e-6)))
    marker_ok = inl.reshape(-1, 4).all(axis=1)
    if int(marker_ok.sum()) < MIN_TABLE_MARKERS and len(seen) <= 4:
        # Three or four markers bent apart by an uncorrected lens fail the plane's threshold
        # together; with so few there is no telling a moved one anyway: take them all (the
        # lens fit of vision.lens then straightens them).
        H, _ = cv2.findHomography(ideal, tab, 0)
        if H is None:
            raise DetectionError("table markers: no consistent table plane (homography failed)")
        marker_ok = np.ones(len(seen), bool)
    outliers = [i for i, ok in zip(seen, marker_ok, strict=True) if not ok]
    if int(marker_ok.sum()) < MIN_TABLE_MARKERS:
        why = "moved, or not on the table?"
        if len(outliers) * 2 >= len(seen):
            # Most of them at once: more likely a lens that bends the table than markers moved.
            lens = ("the lens model in use" if intr.distorted else "a lens with no distortion")
            why += (f" Or a lens bending the table more than {lens} allows "
                    "(a wide-angle or strongly distorting lens): give --calibration")
        raise DetectionError(f"too few table markers agree on the table plane: {seen} seen, "
                             f"{outliers} do not fit ({why})")
    keep = np.repeat(marker_ok, 4)
    rvec, tvec, centre = camera_pose(tab[keep], ideal[keep], intr)
    view = TableView(H, intr, centre, rvec, tvec, 0.0, 0.0,
                     used=[i for i, ok in zip(seen, marker_ok, strict=True) if ok],
                     missing=missing, outliers=outliers, k1_estimated=k1_est,
                     fit_ideal=ideal[keep], fit_table=tab[keep], fit_raw=raw[keep])
    res = apply_h(H, ideal[keep]) - tab[keep]
    view.residual_mm = float(np.sqrt(np.mean(np.sum(res ** 2, axis=1))))
    back = apply_h(view.Hinv, tab[keep]) - ideal[keep]
    view.residual_px = float(np.sqrt(np.mean(np.sum(back ** 2, axis=1))))
    return view
