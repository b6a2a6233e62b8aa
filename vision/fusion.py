"""Marker and tray outline, fused by their uncertainties: the outline can only help.

A tray's pose has two independent witnesses: its marker (:mod:`vision.trays`, with the
covariance of :mod:`vision.uncertainty`) and its outline (:mod:`vision.outline`). The outline
sees a far longer edge, so it can pin the facing down better than a small marker; but it is
only the tray's edge if the photo shows one. A hard shadow along a side, model bases just inside
it or a side face seen edge-on put the step a millimetre or so off the tray's edge, *parallel* to
it: the facing survives that, the position does not (on rendered club tables the outline's
position was off by 0.4 mm at the median, its facing by 0.07 deg). So the outline is a witness
of the facing only, and it is believed only when

1. it is independent of the marker (a tray no larger than its marker's sticker has no outline
   of its own: the edges found are the marker's);
2. its own residuals look like an edge: most profiles kept (:data:`MIN_KEPT`) and a scatter of
   the edge points no larger than :data:`MAX_RMS_PX`;
3. its centre lies within :data:`SANE_MM` of the marker's (else it found some other edge);
4. its facing agrees with the marker's within their combined uncertainty (chi-square of one
   degree of freedom below :data:`CHI2_95`, the marker's part capped at
   :data:`MARKER_SHARE_CAP` times the outline's).

Then the outline's facing updates the marker's pose as an independent Gaussian measurement (a
facing change also moves the unit's centre when the marker sits off-centre: the covariance
carries that). When the two facings disagree by no more than a marker can be off (by its noise,
:data:`MARKER_PLAUSIBLE`, or its sticker stuck askew, :data:`STICKER_SKEW_DEG`), either may be
the wrong one: the marker's pose stands with an uncertainty that covers both. Otherwise the
marker's pose stands alone, and the unit says why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from geometry import Pose, normalize_deg

from .markers import UnitMarker
from .outline import OutlineFit

PROFILE_CORRELATION = 4.0
"""Neighbouring edge profiles share blur, texture and JPEG blocks: the information of the edge
points counts as that of one profile in four."""
EDGE_TILT_PX = 0.3
"""Standard deviation (px) by which a side's edge can be found further out at one end than at
the other (a model leaning over part of it, a shadow across it, uneven blur): it turns the
outline by EDGE_TILT_PX / side length. Fitted on rendered tables of both appearances
(bench/vision.py): without it 4% of the outline facings lay beyond 3 sigma at 1080p, with
0.15 px 1%, with 0.25 px 1.5% of the fused facings (errors at 3.2-3.5 sigma)."""
MIN_KEPT = 0.5
MAX_RMS_PX = 1.0
SANE_MM = 1.5
"""An outline centred further than this from where the marker puts the tray is some other edge
(the next tray, a shadow's edge on one side and not the other)."""
MARKER_PLAUSIBLE = 6.0
"""How many of the marker's own standard deviations its facing can be off in the worst case
seen on rendered tables (5.1 in ~800 markers): an outline that disagrees by more found some
other edge."""
STICKER_SKEW_DEG = 3.0
"""How far a marker stuck on its tray by hand may be turned from the tray: commonly 1-2 degrees
(outside testing, round 2: stickers 1-4 degrees askew). markers.json gives the sticker no
tolerance and the marker's covariance knows nothing of it, so a clean outline that disagrees
by up to this much may be the truth; beyond it, it found some other edge."""
CHI2_99 = 6.63
"""99% point of the chi-square distribution with 1 degree of freedom."""
CHI2_95 = 3.84
"""... its 95% point: the outline's facing, which takes over the fused one, is accepted only
below it (at the 99% point, outlines turned 0.7-0.9 degrees by clipped white passed at
chi-square 4.0-4.9 of 1, outside testing round 3; those between go to the marker, uncertain
by the difference)."""
CHI2_3_99 = 11.34
"""... and with 3."""


MARKER_SHARE_CAP = 2.0
"""In the consistency test the marker's facing variance counts at most this many squared
times the outline's: a marker made noisy (clipped white blooming over its black, blur) says
little about where the tray's edge should be, and a test against it passed outlines turned
0.5-1.5 degrees by the same clipping where their own statistics said 0.2 (outside testing,
round 3: exposure x1.5-x3 left 95-98% of the facings within 3 sigma with the outline, 100%
without). The outline is then accepted only where it agrees with the marker to about its own
precision; otherwise the marker stands, uncertain by the difference (below)."""


@dataclass
class Fused:
    """A unit's pose and covariance (x, y mm; facing rad), which evidence decided it and why."""

    pose: Pose
    cov: np.ndarray
    evidence: str
    why: str
    info: dict[str, Any] = field(default_factory=dict)


def outline_independent(unit: UnitMarker) -> bool:
    """Whether the tray shows an outline of its own: some side lies farther from the marker's
    parallel edge than a third of the marker (its quiet zone and then some)."""
    ox, oy = unit.marker_offset_mm
    h = unit.marker_size_mm / 2
    gaps = (unit.width_mm / 2 - (ox + h), unit.width_mm / 2 + (ox - h),
            unit.depth_mm / 2 - (oy + h), unit.depth_mm / 2 + (oy - h))
    return max(gaps) > unit.marker_size_mm / 3


OWN_EDGE_MM = 0.5
"""A unit whose boundary lies within this of its marker's printed square on every side, at
the table (height 0: a marker sheet, a token), has the marker's own black border as its
outline."""


def outline_is_marker(unit: UnitMarker) -> bool:
    """Whether the unit's outline is its marker's own border: a marker lying on the table as
    its own unit, its boundary the printed square."""
    ox, oy = unit.marker_offset_mm
    s = unit.marker_size_mm
    return (unit.height_mm == 0 and abs(ox) <= OWN_EDGE_MM and abs(oy) <= OWN_EDGE_MM
            and abs(unit.width_mm - s) <= OWN_EDGE_MM and abs(unit.depth_mm - s) <= OWN_EDGE_MM)


def _marker_edges(alone: Fused, fit: OutlineFit | None, marker_cov: np.ndarray,
                  unit: UnitMarker, px_per_mm: float) -> Fused:
    """A unit whose outline is its marker's border: the known-size square fitted to its four
    whole sides (:func:`vision.outline.fit_outlines`, the marker pose as prior) reads the
    facing from every edge point against one rigid square, where the corners come from four
    lines fitted apart; on the real photos of tests/vision/data that took the facing p95 from
    0.52 to 0.45 deg (its position was no better than the corners': the position stays
    theirs, moved with the facing where the covariance couples them). Not a second witness,
    so the uncertainty stays the marker's; the fit is taken only when it is a clean edge on
    all four sides and agrees with the corners within their uncertainty."""
    if fit is None:
        return alone
    d = _wrap(_vec(fit.pose) - _vec(alone.pose))
    rms_px = fit.rms_mm * px_per_mm
    chi2 = float(d @ np.linalg.solve(marker_cov, d))
    if fit.kept < MIN_KEPT or rms_px > MAX_RMS_PX or fit.sides < 4 or chi2 > CHI2_3_99:
        return alone
    why = (alone.why + "; it is its marker (a printed square on the table): the facing of "
           f"the square fitted to its border's {fit.points} edge points on all four sides, the "
           "uncertainty the marker's (the same edges as its corners)")
    info = {"edge_points": fit.points, "sides": fit.sides,
            "edge_rms_mm": round(fit.rms_mm, 3), "chi2": round(chi2, 2)}
    m = _vec(alone.pose)
    x = m + marker_cov[:, 2] / marker_cov[2, 2] * d[2]
    pose = Pose(float(x[0]), float(x[1]), normalize_deg(math.degrees(x[2])))
    _, cov_o = outline_estimate(fit, m, marker_cov, unit, px_per_mm)
    cov = marker_cov.copy()
    if cov_o[2, 2] < cov[2, 2]:
        k = math.sqrt(cov_o[2, 2] / cov[2, 2])
        cov[2, :] *= k
        cov[:, 2] *= k
    return Fused(pose, cov, "marker", why, info)


def _vec(p: Pose) -> np.ndarray:
    return np.array([p.x, p.y, math.radians(p.facing)])


def _wrap(d: np.ndarray) -> np.ndarray:
    d = d.copy()
    d[2] = (d[2] + math.pi) % (2 * math.pi) - math.pi
    return d


def outline_estimate(fit: OutlineFit, marker: np.ndarray, marker_cov: np.ndarray,
                     unit: UnitMarker, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """What the outline alone says: the pose (x, y, rad) and its covariance, the facing's with
    the tilt of its edges. The fit ran with the marker as a prior (``fit.info`` is what its
    edge points alone carry); in the linearised problem the outline-only estimate is
    x_fit + I_o^-1 P (x_fit - x_marker)."""
    info = fit.info + np.eye(3) * 1e-9 * max(float(np.trace(fit.info)), 1.0)
    prior = np.linalg.inv(marker_cov)
    d_fit = _wrap(_vec(fit.pose) - marker)
    x_o = marker + np.linalg.solve(info, (info + prior) @ d_fit)
    cov = np.linalg.inv(info) * PROFILE_CORRELATION
    tilt = EDGE_TILT_PX / max(px_per_mm, 1e-6) / max(unit.width_mm, unit.depth_mm)
    cov[2, 2] += tilt ** 2
    return x_o, cov


def fuse(marker_pose: Pose, marker_cov: np.ndarray, fit: OutlineFit | None, unit: UnitMarker,
         px_per_mm: float) -> Fused:
    """The unit's pose from its marker and (when it passes the tests above) its outline's
    facing."""
    alone = Fused(marker_pose, marker_cov, "marker", "")
    if not outline_independent(unit):
        alone.why = "the tray is no larger than its marker's sticker: no outline of its own"
        if outline_is_marker(unit):
            return _marker_edges(alone, fit, marker_cov, unit, px_per_mm)
        return alone
    if fit is None:
        alone.why = "too few edge points on the tray's outline (hidden, or no clear edge)"
        return alone
    alone.info = {"edge_points": fit.points, "sides": fit.sides,
                  "edge_rms_mm": round(fit.rms_mm, 3), "edge_kept": round(fit.kept, 2)}
    rms_px = fit.rms_mm * px_per_mm
    if fit.kept < MIN_KEPT or rms_px > MAX_RMS_PX:
        alone.why = (f"the tray's outline is ragged ({fit.kept:.0%} of its edge profiles kept, "
                     f"{rms_px:.2f} px scatter): not a clean edge")
        return alone
    m = _vec(marker_pose)
    x_o, cov_o = outline_estimate(fit, m, marker_cov, unit, px_per_mm)
    d = _wrap(x_o - m)
    moved, turned = math.hypot(d[0], d[1]), math.degrees(d[2])
    if moved > SANE_MM:
        alone.why = (f"the tray's outline is centred {moved:.1f} mm from where the marker puts "
                     "the tray: some other edge")
        return alone
    s = marker_cov[2, 2] + cov_o[2, 2]
    chi2 = d[2] ** 2 / min(s, (1 + MARKER_SHARE_CAP ** 2) * cov_o[2, 2])
    alone.info["chi2"] = round(float(chi2), 2)
    # What the marker's pose becomes when its facing moves by d[2]: the centre moves with it
    # where the marker sits off the tray's centre (their covariance).
    along = marker_cov[:, 2] / marker_cov[2, 2]
    if chi2 > CHI2_95:
        apart = (f"the tray's outline turns {turned:+.2f} deg from the marker's facing "
                 f"(chi-square {chi2:.1f} of 1 degree of freedom)")
        if d[2] ** 2 / marker_cov[2, 2] <= MARKER_PLAUSIBLE ** 2 or \
                abs(turned) <= STICKER_SKEW_DEG:
            # Either witness may be the one that is off (the marker by its noise, or its
            # sticker stuck askew): keep the marker, uncertain by the difference, so that the
            # sigma covers both.
            shift = along * d[2]
            alone.cov = marker_cov + np.outer(shift, shift)
            alone.why = apart + ": which is right cannot be told (the marker's noise, or its " \
                "sticker stuck askew), so the uncertainty covers both"
        else:
            alone.why = apart + (f": more than a marker can be off, even stuck "
                                 f"{STICKER_SKEW_DEG:.0f} deg askew, so not the tray's edge")
        return alone
    gain = marker_cov[:, 2] / s
    x = m + gain * d[2]
    cov = marker_cov - np.outer(gain, marker_cov[2, :])
    cov = (cov + cov.T) / 2
    pose = Pose(float(x[0]), float(x[1]), normalize_deg(math.degrees(x[2])))
    why = (f"the tray's outline ({fit.points} edge points on {fit.sides} sides) agrees with the "
           f"marker's facing ({turned:+.2f} deg; chi-square {chi2:.1f} of 1): its facing, the "
           "longer edge's, is combined with the marker's by their uncertainties")
    return Fused(pose, cov, "marker+outline", why, alone.info)
