"""Marker and outline fused by their uncertainties (vision.fusion): the outline is believed only
when it is the tray's own, looks like an edge and agrees with the marker; the unit says which
evidence decided and why."""

from __future__ import annotations

import math

import numpy as np

from geometry import Pose
from vision.fusion import fuse, outline_estimate, outline_independent
from vision.markers import UnitMarker
from vision.outline import OutlineFit

UNIT = UnitMarker(marker=10, marker_size_mm=25, height_mm=3, id="spears", side="red",
                  base=(20, 20), files=5, ranks=4)
SQUARE = UnitMarker(marker=11, marker_size_mm=25, height_mm=3, id="sheet", side="red",
                    base=(30, 30), files=1, ranks=1)
"""A tray no larger than its marker's sticker: the edges found round it are the sticker's."""
MARKER = Pose(500.0, 400.0, 30.0)
MARKER_COV = np.diag([0.05 ** 2, 0.05 ** 2, math.radians(0.1) ** 2])
PPM = 2.0  # px per mm (a 4K photo of a whole table)


def _fit(outline: np.ndarray, info: np.ndarray, rms_mm: float = 0.05,
         kept: float = 0.95) -> OutlineFit:
    """An outline fit whose edges alone say ``outline`` (x, y, rad) with information ``info``:
    the fit itself ran with the marker as a prior, so its pose is the two combined."""
    m = np.array([MARKER.x, MARKER.y, math.radians(MARKER.facing)])
    prior = np.linalg.inv(MARKER_COV)
    x = np.linalg.solve(info + prior, info @ outline + prior @ m)
    return OutlineFit(Pose(x[0], x[1], math.degrees(x[2])), info, 240, 4, rms_mm, kept)


STRONG = np.diag([1 / 0.02 ** 2, 1 / 0.02 ** 2, 1 / math.radians(0.01) ** 2])


def test_an_outline_of_its_own_needs_a_tray_larger_than_the_sticker():
    assert outline_independent(UNIT)
    assert not outline_independent(SQUARE)
    f = fuse(MARKER, MARKER_COV, _fit(np.array([500.0, 400.0, math.radians(30)]), STRONG),
             SQUARE, PPM)
    assert f.evidence == "marker" and "no larger than its marker" in f.why
    assert f.pose == MARKER and np.array_equal(f.cov, MARKER_COV)


SHEET = UnitMarker(marker=12, marker_size_mm=25, height_mm=0, id="token", side="red",
                   base=(25, 25), files=1, ranks=1)


def test_a_marker_that_is_its_unit_takes_its_borders_facing_and_keeps_its_uncertainty():
    """A printed square lying on the table as its own unit: the square fitted to its whole
    border gives the facing (not a second witness: the covariance may only shrink to what
    those edges alone carry, never below it by fusion); a fit that disagrees with the corners
    beyond their uncertainty, or misses a side, is not taken."""
    target = np.array([500.02, 399.99, math.radians(30.06)])
    f = fuse(MARKER, MARKER_COV, _fit(target, STRONG), SHEET, PPM)
    assert f.evidence == "marker" and "fitted to its border" in f.why
    assert abs(f.pose.facing - 30.06) < 0.005
    assert (f.pose.x, f.pose.y) == (MARKER.x, MARKER.y)  # the corners' position
    assert np.allclose(f.cov[:2, :2], MARKER_COV[:2, :2])
    assert f.cov[2, 2] <= MARKER_COV[2, 2]
    far = np.array([500.0, 400.0, math.radians(30.6)])  # 6 of the marker's sigmas
    assert fuse(MARKER, MARKER_COV, _fit(far, STRONG), SHEET, PPM).pose == MARKER
    fit = _fit(target, STRONG)
    fit.sides = 3
    assert fuse(MARKER, MARKER_COV, fit, SHEET, PPM).pose == MARKER


def test_the_outline_alone_is_recovered_from_the_prior_fit():
    target = np.array([500.03, 399.98, math.radians(30.05)])
    x_o, _ = outline_estimate(_fit(target, STRONG), np.array([500.0, 400.0, math.radians(30)]),
                              MARKER_COV, UNIT, PPM)
    assert np.allclose(x_o, target, atol=1e-6)


def test_an_agreeing_outline_sharpens_the_facing_only():
    """Its edges say 0.3 mm and 0.08 deg off: the facing moves towards the outline's and is
    surer; the position stays the marker's (an outline's position is the first thing a shadow
    or a base's edge spoils)."""
    target = np.array([500.3, 400.0, math.radians(30.08)])
    f = fuse(MARKER, MARKER_COV, _fit(target, STRONG), UNIT, PPM)
    assert f.evidence == "marker+outline" and "agrees with the marker's facing" in f.why
    assert f.cov[2, 2] < 0.5 * MARKER_COV[2, 2]
    assert 30.04 < f.pose.facing <= 30.08
    assert (f.pose.x, f.pose.y) == (MARKER.x, MARKER.y)
    assert f.info["chi2"] < 6.63


def test_an_off_centre_marker_moves_with_the_facing():
    """A marker 40 mm in front of the tray's centre: turning the facing swings the centre
    computed from it, and the covariance knows (a correlated x/facing term), so the outline's
    facing moves the centre too."""
    off = UnitMarker(marker=12, marker_size_mm=25, height_mm=3, id="long", side="red",
                     base=(20, 20), files=5, ranks=6, marker_offset_mm=(0, 40))
    a = math.radians(30.0)
    lever = 40 * math.radians(0.1)
    cov = MARKER_COV.copy()
    cov[0, 0] += (lever * math.cos(a)) ** 2
    cov[0, 2] = cov[2, 0] = lever * math.cos(a) * math.radians(0.1)
    target = np.array([500.0, 400.0, math.radians(30.08)])
    m = np.array([MARKER.x, MARKER.y, math.radians(MARKER.facing)])
    info = STRONG
    x = np.linalg.solve(info + np.linalg.inv(cov), info @ target + np.linalg.inv(cov) @ m)
    fit = OutlineFit(Pose(x[0], x[1], math.degrees(x[2])), info, 240, 4, 0.05, 0.95)
    f = fuse(MARKER, cov, fit, off, PPM)
    assert f.evidence == "marker+outline"
    assert f.pose.x != MARKER.x


def test_an_outline_off_the_trays_place_found_another_edge():
    """3 mm off: a shadow's edge or the next tray, not this tray's outline."""
    target = np.array([503.0, 400.0, math.radians(30.0)])
    f = fuse(MARKER, MARKER_COV, _fit(target, STRONG), UNIT, PPM)
    assert f.evidence == "marker" and "some other edge" in f.why
    assert f.pose == MARKER and np.array_equal(f.cov, MARKER_COV)


def test_an_outline_turned_too_far_is_not_the_trays_edge():
    """5 degrees off: no marker is that far off, not even a sticker stuck askew."""
    target = np.array([500.0, 400.0, math.radians(35.0)])
    f = fuse(MARKER, MARKER_COV, _fit(target, STRONG), UNIT, PPM)
    assert f.evidence == "marker" and "not the tray's edge" in f.why
    assert f.pose == MARKER and np.array_equal(f.cov, MARKER_COV)


def test_a_sticker_stuck_askew_widens_the_uncertainty_to_cover_the_outline():
    """1 degree off, ten of the marker's standard deviations: more than its noise, but a
    sticker stuck by hand is commonly 1-2 degrees askew (outside testing, round 2): the
    marker's pose stands with a facing sigma that covers the outline's 1 degree."""
    target = np.array([500.0, 400.0, math.radians(31.0)])
    f = fuse(MARKER, MARKER_COV, _fit(target, STRONG), UNIT, PPM)
    assert f.evidence == "marker" and "sticker stuck askew" in f.why
    assert f.pose == MARKER
    assert math.degrees(math.sqrt(f.cov[2, 2])) >= 0.95


def test_a_near_disagreement_widens_the_uncertainty_to_cover_both():
    """0.5 degrees apart, five of the marker's standard deviations: either may be the one
    that is off, so the marker's pose is kept with a sigma that covers the outline's."""
    target = np.array([500.0, 400.0, math.radians(30.5)])
    f = fuse(MARKER, MARKER_COV, _fit(target, STRONG), UNIT, PPM)
    assert f.evidence == "marker" and "covers both" in f.why
    assert f.pose == MARKER
    assert math.degrees(math.sqrt(f.cov[2, 2])) >= 0.5


def test_a_ragged_outline_is_not_believed():
    target = np.array([500.0, 400.0, math.radians(30.02)])
    f = fuse(MARKER, MARKER_COV, _fit(target, STRONG, rms_mm=0.8), UNIT, PPM)
    assert f.evidence == "marker" and "ragged" in f.why
    f = fuse(MARKER, MARKER_COV, _fit(target, STRONG, kept=0.3), UNIT, PPM)
    assert f.evidence == "marker" and "ragged" in f.why


def test_no_outline_points_leaves_the_marker():
    f = fuse(MARKER, MARKER_COV, None, UNIT, PPM)
    assert f.evidence == "marker" and "too few edge points" in f.why


def test_a_noisy_marker_does_not_let_a_turned_outline_take_over():
    """A marker made noisy (clipped white blooming over its black: 0.34 deg) and an outline
    0.85 deg off that claims 0.2 deg: against the marker's noise they agreed (chi-square 4.6
    of 1) and the outline took the facing over at 4 sigma from the truth (outside testing,
    round 3, overexposed photos). It agrees with the marker only to about its own precision:
    the marker stands, its sigma covering both."""
    cov = np.diag([0.05 ** 2, 0.05 ** 2, math.radians(0.34) ** 2])
    info = np.diag([1 / 0.05 ** 2, 1 / 0.05 ** 2, 4 / math.radians(0.18) ** 2])
    m = np.array([MARKER.x, MARKER.y, math.radians(MARKER.facing)])
    outline = m + [0.0, 0.0, math.radians(0.85)]
    x = np.linalg.solve(info + np.linalg.inv(cov), info @ outline + np.linalg.inv(cov) @ m)
    fit = OutlineFit(Pose(x[0], x[1], math.degrees(x[2])), info, 240, 4, 0.05, 0.95)
    f = fuse(MARKER, cov, fit, UNIT, PPM)
    assert f.evidence == "marker" and "covers both" in f.why
    assert f.pose == MARKER
    assert math.degrees(math.sqrt(f.cov[2, 2])) >= 0.85 / 3
