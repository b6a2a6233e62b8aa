"""The lens's radial distortion read from every marker of the photo, and how uncertain it is.

Without a calibration a lens is unknown, and its barrel or pincushion distortion bends the
table: the plane through four corner markers is right at the markers and wrong between them
(a webcam's k1 = -0.05 puts a 4K photo's trays 5 mm off). Eight border markers let the table
alone measure it (:func:`vision.table.estimate_k1`); fewer cannot. The trays' markers can: each
is printed at a known size, and through the wrong lens model the plane maps them too small or
too large by how far they lie from the image centre. So ``k1`` is fitted to the table markers'
corners (how well one plane holds them, up to one print scale for all of them) and the tray
markers' sides (how well the plane keeps their printed size, up to one print scale for all of
them), by Gauss-Newton in the one
parameter, with a prior (:data:`K1_PRIOR`: most lenses are within 0.05 of none); its
uncertainty is carried to every pose (:func:`vision.uncertainty.lens_covariance`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .camera import Intrinsics
from .table import TableView, apply_h

K1_PRIOR = 0.05
"""Standard deviation of an unknown lens's radial term k1 (OpenCV's model, normalised by the
focal length): phone cameras correct theirs to near 0, webcams leave -0.02 to -0.1."""
STEP = 0.01
ITERATIONS = 8
SIGNIFICANT = 5.0
"""A radial term within this many of its standard deviations of none is not modelled (every
point through an undistorting lens model costs time; the uncertainty still covers it). The
estimate has a bias its statistics do not know: on straight renderings seen straight down it
came out at -1 to -3.5 of its standard deviation at every resolution and appearance (centred
on none at 20 and 40 degrees of tilt), and modelled at 3 it moved whole tables: 4K poses by
0.13 mm at the median, a 1080p club table with one glare-struck table marker by 1.4 mm. A
webcam's k1 = -0.05 to -0.08 reads at 20-100 standard deviations."""
RESIDUAL_CORRELATION = 1.0
"""How many residuals count as one independent one (a marker's sides share its corners). Kept
at 1: on rendered tables with no distortion the fitted term scattered by 0.6-0.8 of its
standard deviation (1080p and 4K, both appearances, six tables each)."""
MODEL_SHARE = 0.05
"""A lens is not exactly one radial term, and edges blur differently across a photo: on
rendered tables with k1 = -0.05 (exactly that lens) the fit came out 2-3% off, 7 of its
statistical standard deviations. A twentieth of the term is added to its uncertainty."""


@dataclass(frozen=True)
class LensFit:
    """The radial term in use, its standard deviation, and whether the photo measured it."""

    k1: float
    sigma: float
    measured: bool


def _lens(intr: Intrinsics, k1: float) -> Intrinsics:
    return intr.with_dist([k1, 0, 0, 0, 0])


def _table_plane(ti: np.ndarray, table_mm: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray] | None:
    """The plane through the table markers' corners (ideal px, four per marker) and the
    corners' residuals (px), up to one print scale for all the table markers: printed a
    fraction of a percent large (a printer's scaling, toner spreading 0.1 mm at each edge),
    markers near the image's corners would all look a little too big, which is what a
    pincushion lens does to them; without the scale the lens fit took the one for the other
    and moved every unit by 0.5-1 mm (outside testing, round 2). A lens still shows: it
    stretches a marker along the radius three times as much as across it, and bends the
    tray markers' sides."""
    m = len(table_mm) // 4
    tm = table_mm.reshape(m, 4, 2)
    c = tm.mean(axis=1, keepdims=True)
    o = tm - c
    oo = float((o * o).sum())
    scale = 1.0
    for _ in range(3):
        target = (c + o * scale).reshape(-1, 2)
        H, _ = cv2.findHomography(ti, target, 0)
        if H is None:
            return None
        p = apply_h(H, ti).reshape(m, 4, 2)
        new = float(((p - c) * o).sum()) / oo if oo > 0 else 1.0
        if abs(new - scale) < 1e-9:
            break
        scale = new
    target = (c + o * scale).reshape(-1, 2)
    H, _ = cv2.findHomography(ti, target, 0)
    if H is None:
        return None
    return H, (apply_h(np.linalg.inv(H), target) - ti).ravel()


def residuals(k1: float, intr: Intrinsics, table_raw: np.ndarray, table_mm: np.ndarray,
              quads_raw: np.ndarray, sizes: np.ndarray, z: np.ndarray,
              centre: np.ndarray) -> np.ndarray:
    """How badly the lens model ``k1`` fits the photo, in pixels: the table markers' corners
    against the plane through them, and the tray markers' sides against their printed sizes
    (times one common print scale) where that plane puts them."""
    lens = _lens(intr, k1)
    ti = lens.undistort(table_raw)
    fitted = _table_plane(ti, table_mm)
    if fitted is None:
        return np.full(2 * len(table_raw) + 4 * len(quads_raw), 1e3)
    H, r_table = fitted
    if len(quads_raw) == 0:
        return r_table
    qi = lens.undistort(quads_raw.reshape(-1, 2))
    p0 = apply_h(H, qi).reshape(-1, 4, 2)
    k = ((centre[2] - z) / centre[2])[:, None, None]
    q = centre[:2] + (p0 - centre[:2]) * k
    sides = np.linalg.norm(q - np.roll(q, -1, axis=1), axis=2)  # (M, 4) mm
    px = np.linalg.norm(quads_raw - np.roll(quads_raw, -1, axis=1), axis=2)
    # Each side as long as the printed one would be here (px), up to one print scale for all
    # and one edge bias in pixels (blur makes every marker look a fraction of a pixel small,
    # and small far markers relatively smaller: without it the bias passes for a lens).
    expect = (sizes[:, None] * px / np.maximum(sides, 1e-9)).ravel()
    A = np.c_[expect, np.ones(len(expect))]
    coef, *_ = np.linalg.lstsq(A, px.ravel(), rcond=None)
    r_tray = px.ravel() - A @ coef
    return np.concatenate([r_table, r_tray])


SEARCH = np.linspace(-0.4, 0.3, 8)
"""Radial terms tried before the Gauss-Newton steps (a wide-angle webcam's -0.15 included):
the residuals are far from linear in k1 over that range, and Gauss-Newton from none with the
derivative taken there overshot strong lenses (k1 = -0.97 for a true -0.10 on a 100-degree
photo, outside testing round 3)."""


#: A lens fit whose residual RMS (px) is above this is searched again from a wide grid
#: (:data:`SEARCH`): real corner scatter is 0.2-0.45 px, a strong lens missed leaves 3-6 px.
WIDE_SEARCH_PX = 1.0


def _fit(args: tuple, start: float) -> tuple[float, np.ndarray, float]:
    """The least-squares radial term near ``start``, its residuals and the squared norm of
    their derivative there: Gauss-Newton re-linearised at every step, each step halved until
    it lowers the residuals."""
    k = start
    r = residuals(k, *args)
    cost = float(r @ r)
    jj = 0.0
    for _ in range(ITERATIONS):
        h = STEP / 4
        J = (residuals(k + h, *args) - residuals(k - h, *args)) / (2 * h)
        jj = float(J @ J)
        if jj <= 0:
            break
        step = float(J @ r) / jj
        for _ in range(6):
            r_new = residuals(k - step, *args)
            c_new = float(r_new @ r_new)
            if c_new <= cost:
                break
            step /= 2
        else:
            break
        k, r, cost = k - step, r_new, c_new
        if abs(step) < 1e-5:
            break
    h = STEP / 4
    J = (residuals(k + h, *args) - residuals(k - h, *args)) / (2 * h)
    return k, r, float(J @ J)


def fit_k1(view: TableView, table_raw: np.ndarray, quads_raw: np.ndarray, sizes: np.ndarray,
           z: np.ndarray, start: float | None = None) -> LensFit:
    """The radial term that fits the photo's markers best, combined with the prior, and its
    standard deviation; ``measured`` when it is told from none. ``start``: an estimate to
    start from (the table's own, :func:`vision.table.estimate_k1`), tried with the best of
    :data:`SEARCH`."""
    intr = view.intr.with_dist([0, 0, 0, 0, 0])
    args = (intr, table_raw, view.fit_table, quads_raw, sizes, z, view.centre)
    n = 2 * len(table_raw) + 4 * len(quads_raw)
    if n <= 12:
        return LensFit(0.0, K1_PRIOR, False)
    # From the table's estimate (or none) first: on most photos that fit is as good as the
    # markers' scatter, and the wider search below would only cost time.
    k, r, jj = _fit(args, start if start is not None else 0.0)
    if float(r @ r) / max(n - 11, 1) > WIDE_SEARCH_PX ** 2:
        # Far worse than any corner scatter: a strong lens Gauss-Newton did not reach from
        # there. Start again from the best of a wide grid of radial terms.
        tries = [0.0, *SEARCH]
        costs = [float(np.sum(residuals(t, *args) ** 2)) for t in tries]
        k2, r2, jj2 = _fit(args, tries[int(np.argmin(costs))])
        if float(r2 @ r2) < float(r @ r):
            k, r, jj = k2, r2, jj2
    if jj <= 0:
        return LensFit(0.0, K1_PRIOR, False)
    # The plane (8), the table markers' print scale (1), the tray markers' print scale and
    # edge bias (2).
    s2 = float(r @ r) / max(n - 11, 1)
    precision = jj / (s2 * RESIDUAL_CORRELATION) + 1 / K1_PRIOR ** 2
    k_post = (jj / (s2 * RESIDUAL_CORRELATION)) * k / precision
    measured = abs(k_post) > SIGNIFICANT * math.sqrt(1 / precision)
    # Eight or more table markers hold the lens by themselves (within 0.1% of the term on the
    # same renderings): the model's share shrinks with the tray markers' part in the fit.
    share = MODEL_SHARE if len(table_raw) < 32 else MODEL_SHARE / 5
    sigma = math.hypot(math.sqrt(1 / precision), share * k_post)
    if not measured:  # no distortion to speak of: none is modelled, and the sigma covers it
        return LensFit(0.0, math.hypot(sigma, k_post), False)
    return LensFit(k_post, sigma, True)


def unexplained_k1(view: TableView) -> float:
    """How much radial term the table markers' leftover misfit amounts to: their residual
    against the plane through the lens model in use (RMS over the corners) over how fast one
    radial term moves them off it. A lens the model leaves bent (a second radial term, a
    wide angle, a calibration of another lens) shows as that misfit at the markers and bends
    the table most between them, where the term's own uncertainty
    (:func:`vision.uncertainty.lens_covariance`) carries it to the units."""
    raw, tab = view.fit_raw, view.fit_table
    if len(raw) < 12:
        return 0.0
    dist = np.array(view.intr.dist, np.float64).ravel()
    k0 = float(dist[0]) if dist.size else 0.0

    def table_res(k1: float) -> np.ndarray:
        d = dist.copy() if dist.size else np.zeros(5)
        d[0] = k1
        fitted = _table_plane(view.intr.with_dist(d).undistort(raw), tab)
        return np.zeros(2 * len(raw)) if fitted is None else fitted[1]

    J = (table_res(k0 + STEP) - table_res(k0 - STEP)) / (2 * STEP)
    jj = float(J @ J)
    r = table_res(k0)
    if jj <= 0:
        return 0.0
    return math.sqrt(float(r @ r) / jj)
