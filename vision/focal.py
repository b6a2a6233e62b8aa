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
from .uncertainty import FOCAL_PRIOR, TableCovariance


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


def refine_focal(view: TableView, table: TableCovariance) -> TableView:
    """The view with the focal length combined from the nominal one and the table's
    perspective, its camera centre solved again with it, and ``focal_sigma`` (relative) set.
    Unchanged when the perspective says nothing usable."""
    K = view.intr.K
    f0, cx, cy = float(K[0, 0]), float(K[0, 2]), float(K[1, 2])
    fe = focal_from_plane(view.Hinv, cx, cy)
    if fe is None:
        return view
    spread = []
    for hp, hm in zip(table.plus, table.minus, strict=True):
        a, b = focal_from_plane(np.linalg.inv(hp), cx, cy), focal_from_plane(np.linalg.inv(hm),
                                                                             cx, cy)
        if a is None or b is None:
            return view
        spread.append((a - b) / 2)
    var_e = float(np.sum(np.square(spread)))
    var_0 = (FOCAL_PRIOR * f0) ** 2
    if var_e <= 0 or var_e > 4 * var_0:
        return replace(view, focal_estimate=(fe, math.sqrt(max(var_e, 0.0))))
    f = (f0 / var_0 + fe / var_e) / (1 / var_0 + 1 / var_e)
    sigma = math.sqrt(1 / (1 / var_0 + 1 / var_e)) / f
    K2 = K.copy()
    K2[0, 0] = K2[1, 1] = f
    intr = replace(view.intr, K=K2)
    rvec, tvec, centre = camera_pose(view.fit_table, view.fit_ideal, intr)
    return replace(view, intr=intr, rvec=rvec, tvec=tvec, centre=centre, focal_sigma=sigma,
                   focal_estimate=(fe, math.sqrt(var_e)))
