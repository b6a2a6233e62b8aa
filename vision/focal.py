"""The focal length from the table's own perspective, for the parallax correction.

Without a calibration the focal length is nominal (:data:`vision.camera.DEFAULT_FOV_DEG`), and a
wrong one scales every tray's parallax shift: a 3 mm tray at the edge of a 1080p photo of a
whole table is shifted ~2 mm, so a 10% error costs 0.2 mm. A tilted photo of a plane measures
it: with square pixels and the principal point at the image centre, the homography
H = K [r1 r2 t] must have orthogonal, equally long first two columns once K^-1 is applied
(Zhang's two constraints on one view). Each gives 1/f^2 linearly; their least-squares value,
its spread over the table fit's uncertainty (:class:`vision.uncertainty.TableCovariance`), and
the nominal value with :data:`vision.uncertainty.FOCAL_PRIOR` are combined by their
uncertainties. A view straight down says nothing (both constraints vanish): the nominal value
and its uncertainty stand.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .table import TableView, camera_pose
from .uncertainty import FOCAL_CALIBRATED, FOCAL_PRIOR, TableCovariance


def focal_from_plane(table_to_px: np.ndarray, cx: float, cy: float) -> float | None:
    """Focal length (px) that makes a plane homography (table -> ideal px) a rotation and a
    translation seen through K = [[f, 0, cx], [0, f, cy], [0, 0, 1]]; None when the view is
    too square-on to say."""
    G = np.array([[1.0, 0, -cx], [0, 1.0, -cy], [0, 0, 1.0]]) @ table_to_px
    g1, g2 = G[:, 0], G[:, 1]
    # Scale the perspective row like the others so both equations weigh alike.
    s = math.sqrt(max(float(np.sum(G[:2, :2] ** 2)), 1e-300) / 2)
    a = np.array([g1[0] * g2[0] + g1[1] * g2[1],
                  g1[0] ** 2 + g1[1] ** 2 - g2[0] ** 2 - g2[1] ** 2]) / s ** 2
    b = np.array([g1[2] * g2[2], g1[2] ** 2 - g2[2] ** 2])
    den = float(a @ a)
    if den <= 0:
        return None
    w = -float(a @ b) / den  # 1 / f^2, in units of 1 / s^2
    if w <= 0 or not math.isfinite(w):
        return None
    return s / math.sqrt(w) if s > 0 else None


def measure_focal(view: TableView, table: TableCovariance) -> tuple[float, float] | None:
    """The focal length (px) the table's perspective alone gives, with the principal point in
    use, and its standard deviation over the table fit's uncertainty; None when the view is
    too square-on to say."""
    K = view.intr.K
    cx, cy = float(K[0, 2]), float(K[1, 2])
    fe = focal_from_plane(view.Hinv, cx, cy)
    if fe is None:
        return None
    spread = []
    for hp, hm in zip(table.plus, table.minus, strict=True):
        a, b = focal_from_plane(np.linalg.inv(hp), cx, cy), focal_from_plane(np.linalg.inv(hm),
                                                                             cx, cy)
        if a is None or b is None:
            return None
        spread.append((a - b) / 2)
    return fe, math.sqrt(float(np.sum(np.square(spread))))


def with_focal(view: TableView, f: float, sigma: float, estimate: tuple[float, float],
               ) -> TableView:
    """The view through focal length ``f`` (px): the camera centre solved again with it,
    ``focal_sigma`` (relative) and ``focal_estimate`` set."""
    K2 = view.intr.K.copy()
    K2[0, 0] = K2[1, 1] = f
    intr = replace(view.intr, K=K2)
    rvec, tvec, centre = camera_pose(view.fit_table, view.fit_ideal, intr)
    return replace(view, intr=intr, rvec=rvec, tvec=tvec, centre=centre, focal_sigma=sigma,
                   focal_estimate=estimate)


def refine_focal(view: TableView, table: TableCovariance) -> TableView:
    """The view with the focal length combined from the nominal one and the table's
    perspective, its camera centre solved again with it, and ``focal_sigma`` (relative) set.
    Unchanged when the perspective says nothing usable."""
    f0 = float(view.intr.K[0, 0])
    measured = measure_focal(view, table)
    if measured is None:
        return view
    fe, sd = measured
    var_e = sd ** 2
    var_0 = (FOCAL_PRIOR * f0) ** 2
    if var_e <= 0 or var_e > 4 * var_0:
        return replace(view, focal_estimate=(fe, sd))
    f = (f0 / var_0 + fe / var_e) / (1 / var_0 + 1 / var_e)
    sigma = math.sqrt(1 / (1 / var_0 + 1 / var_e)) / f
    return with_focal(view, f, sigma, (fe, sd))


FOCAL_DISAGREES = 3.0
"""A calibration's focal length this many standard deviations (the table's measurement's and
the calibration's own, :data:`vision.uncertainty.FOCAL_CALIBRATED`, combined) from what the
table's perspective measures is not this photo's: another zoom on the same camera."""


def check_calibrated_focal(view: TableView, table: TableCovariance,
                           ) -> tuple[TableView, list[str]]:
    """A calibrated view checked against the focal length its table's perspective measures
    (tilted photos only): when they disagree the table's measurement is used, with its own
    uncertainty and the calibration's, and said by name."""
    f0 = float(view.intr.K[0, 0])
    measured = measure_focal(view, table)
    if measured is None:
        return view, []
    fe, sd = measured
    view = replace(view, focal_estimate=(fe, sd))
    if sd <= 0 or sd > FOCAL_PRIOR * f0:  # too square-on to tell
        return view, []
    both = math.hypot(sd, FOCAL_CALIBRATED * f0)
    if abs(fe - f0) <= FOCAL_DISAGREES * both:
        return view, []
    text = (f"the table's perspective measures the focal length as {fe:.0f} +- {sd:.0f} px, "
            f"the camera calibration says {f0:.0f} px: the calibration is not of this camera "
            "at this zoom (another zoom, or a cropped or stabilised photo); the table's focal "
            "length is used instead")
    view = with_focal(view, fe, math.hypot(sd / fe, FOCAL_CALIBRATED), (fe, sd))
    return view, [text]
