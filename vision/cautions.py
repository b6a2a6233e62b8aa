"""What a detection says about its own trustworthiness: warnings in plain words, naming the
markers, units and files concerned (they end up in ``detection.warnings``, the CLI's stderr and
the web page)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .camera import Intrinsics
from .table import TableView

if TYPE_CHECKING:
    from .poses import TrayPose

USUAL_TABLE_RESIDUAL_PX = 0.5
"""A table plane fitted to well-printed markers leaves their corners within ~0.1-0.45 px (RMS)
on rendered and real photos alike; several times that means the lens model does not fit."""


def three_marker_warning(view: TableView, trays: list[TrayPose]) -> list[str]:
    """With only three table markers the table plane is extrapolated from them: say so, by
    name, with how uncertain that makes the units far from them."""
    if len(view.used) != 3:
        return []
    text = (f"only three table markers ({', '.join(map(str, view.used))}) calibrate the table: "
            "a plane through three markers is poorly held far from them")
    if trays:
        worst = max(trays, key=lambda tp: tp.sigma_parts.get("table", 0.0))
        best = min(tp.sigma_parts.get("table", 0.0) for tp in trays)
        text += (f" (the table alone puts {3 * worst.sigma_parts['table']:.1f} mm of "
                 f"uncertainty on unit '{worst.unit.id}', {3 * best:.1f} mm on the best placed)")
    return [text + "; a fourth table marker in view makes every position firmer"]


def lens_bend_warning(view: TableView, scatter_px: float | None = None) -> str:
    """The table markers fit their plane far worse than the photo's corners scatter (the tray
    markers' about their squares, ``scatter_px``) with no calibration given: the lens bends
    the table more than the fitted radial term explains."""
    k1 = float(view.intr.dist[0]) if view.intr.distorted else 0.0
    usual = (f"the photo's corners scatter by {scatter_px:.2f} px" if scatter_px is not None
             else f"usually under {USUAL_TABLE_RESIDUAL_PX:g} px")
    return (f"the lens bends the table: the table markers fit the table plane to "
            f"{view.residual_px:.2f} px through the lens model fitted (k1 = {k1:+.3f}; "
            f"{usual}), so positions between the markers are "
            "uncertain (the sigmas are widened for it); a wide-angle or strongly distorting "
            "lens needs --calibration, or 8 table markers round the border")


def assumed_focal_warning(view: TableView, heights: list[float], fov_deg: float,
                          told: bool) -> list[str]:
    """Without a calibration, a photo straight down cannot show the focal length (focal.py):
    the nominal lens stands, and the raised trays' parallax correction and their sigmas rest
    on it. Say so when trays are raised and nobody gave the lens (``told``): a narrower lens
    than assumed leaves errors the sigmas do not cover (an outside tester measured 14-82% of
    units within 3 sigma with 40-45 degree lenses)."""
    if told or view.focal_sigma is not None or not any(h > 0 for h in heights):
        return []
    return [f"the photo looks straight down, so the camera's focal length cannot be read from "
            f"the table: a {fov_deg:g}-degree lens (horizontal field) is assumed, as a phone's "
            "or webcam's main camera; the raised trays' parallax correction rests on it. For "
            "another lens (a zoom, a narrow webcam) give --fov or --calibration"]


def calibration_warnings(calibration: Intrinsics | None, size: tuple[int, int],
                         view: TableView, nominal: TableView | None) -> list[str]:
    """A camera calibration that does not fit the photo: another image size (scaled, which is
    right only for the same camera and zoom), or a table plane that fits worse through the
    calibration's lens model than through none (``nominal``): a larger residual, or table
    markers that no longer fit the others."""
    if calibration is None:
        return []
    out = []
    w, h = size
    if calibration.size not in ((0, 0), (w, h)):
        cw, ch = calibration.size
        out.append(f"the camera calibration is for {cw}x{ch} photos and this one is {w}x{h}: it "
                   "was scaled, which is right only for the same camera at the same zoom")
    res = view.residual_px
    worse = nominal is not None and (res > 1.5 * nominal.residual_px + 0.1
                                     or len(view.outliers) > len(nominal.outliers))
    if res > 3 * USUAL_TABLE_RESIDUAL_PX or worse:
        text = (f"the table markers fit the table plane to {res:.2f} px through the camera "
                f"calibration (usually under {USUAL_TABLE_RESIDUAL_PX:g} px")
        if nominal is not None:
            text += f"; {nominal.residual_px:.2f} px without it"
            if len(view.outliers) > len(nominal.outliers):
                text += f", and markers {view.outliers} no longer fit the others"
        out.append(text + "): the calibration may be of another camera or zoom")
    return out
