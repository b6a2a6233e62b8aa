"""The uncertainty model (vision.uncertainty, vision.focal): linear propagation checked against
Monte Carlo, the 99.7% radius of sigma_mm, the scatter estimates, three markers against four,
and the focal length read from a tilted table."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.camera import Intrinsics
from vision.focal import focal_from_plane
from vision.markers import load_markers
from vision.synth import Shot, border_markers, look_at_camera
from vision.table import calibrate_table
from vision.uncertainty import (
    CORNER_FLOOR_PX,
    Scatter,
    corner_scatter,
    marker_poses,
    pose_covariances,
    sigma_mm,
    table_covariance,
    upper_bound,
)

W, D = 1828.8, 1219.2


def _setup(table_ids: list[int], tilt: float = 25.0):
    """A camera over a table, the table markers' exact corners in the photo, and a grid of
    30 mm tray markers (flat) across the table."""
    shot = Shot(width=1920, height=1080, tilt_deg=tilt)
    cam = look_at_camera(W, D, shot)
    tm = [m for m in border_markers(W, D, 4) if m["id"] in table_ids]
    ms = load_markers({"table": {"width_mm": W, "depth_mm": D, "markers": tm}})
    corners = {m.id: cam.project(np.c_[m.corners(), np.zeros(4)]) for m in ms.table.markers}
    view = calibrate_table(corners, ms, Intrinsics.nominal(1920, 1080, shot.fov_deg))
    xs, ys = np.meshgrid(np.linspace(150, W - 150, 5), np.linspace(150, D - 150, 4))
    h = 15.0
    quads = []
    for x, y in zip(xs.ravel(), ys.ravel(), strict=True):
        q = np.array([[x - h, y + h, 0], [x + h, y + h, 0], [x + h, y - h, 0], [x - h, y - h, 0]])
        quads.append(cam.project(q))
    return view, corners, np.array(quads)


def test_table_covariance_matches_monte_carlo():
    """Corners scattering 0.3 px (and a common shift per marker): the homography's linearised
    covariance, carried to 20 tray poses, gives the spread that refitting the plane to noisy
    corners 400 times gives, within 15%."""
    view, corners, quads = _setup([0, 1, 2, 3])
    sc = Scatter(0.3, 0.3, 100)
    tc = table_covariance(view.H, view.fit_ideal, view.fit_table, sc)
    m = len(quads)
    z, off = np.zeros(m), np.zeros((m, 2))
    lin = pose_covariances(view, quads, z, off, 1e-9, tc, 0.0)["table"]
    rng = np.random.default_rng(0)
    base = marker_poses(view, quads, z, off)
    draws = []
    for _ in range(400):
        noise = rng.normal(0, sc.px, view.fit_ideal.shape)
        noise += np.repeat(rng.normal(0, sc.shift_px, (len(noise) // 4, 2)), 4, axis=0)
        H, _ = cv2.findHomography(view.fit_ideal + noise, view.fit_table, 0)
        draws.append(marker_poses(replace(view, H=H), quads, z, off) - base)
    mc = np.array(draws)
    for k in range(3):
        ratio = np.sqrt(lin[:, k, k]) / mc[..., k].std(axis=0)
        assert np.all(np.abs(ratio - 1) < 0.15), (k, ratio)


def test_three_table_markers_extrapolate_and_the_sigma_says_so():
    """Leave out the far-right marker: with four the table's sigma is about even over the
    table; with three it grows with the distance from them, to several times the four-marker
    one at the far corner."""
    sc = Scatter(0.3, 0.3, 100)
    sigmas = {}
    for ids in ([0, 1, 2, 3], [0, 1, 3]):
        view, _, quads = _setup(ids)
        tc = table_covariance(view.H, view.fit_ideal, view.fit_table, sc)
        m = len(quads)
        cov = pose_covariances(view, quads, np.zeros(m), np.zeros((m, 2)), 1e-9, tc, 0.0)
        sigmas[len(ids)] = np.array([sigma_mm(c[:2, :2]) for c in cov["table"]])
    far = 4 * 5 - 1  # the grid's last point: x = W - 150, y = D - 150, next to marker 2
    near = 0  # x = 150, y = 150, next to marker 0
    assert sigmas[4][far] < 1.5 * sigmas[4][near]
    assert sigmas[3][far] > 5 * sigmas[3][near]
    assert sigmas[3][far] > 10 * sigmas[4][far]


@pytest.mark.parametrize("a, b, angle", [(1.0, 1.0, 0.0), (1.0, 0.3, 30.0), (2.0, 0.0, 70.0),
                                         (0.5, 0.5, 0.0)])
def test_three_sigma_mm_is_the_997_radius(a, b, angle):
    """3 sigma_mm holds 99.7% of a 2D Gaussian position error, round or elongated (never
    fewer; at most a few tenths of a percent more)."""
    t = math.radians(angle)
    R = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    cov = R @ np.diag([a * a, b * b]) @ R.T
    e = np.random.default_rng(1).multivariate_normal([0, 0], cov, 400_000)
    inside = np.mean(np.hypot(e[:, 0], e[:, 1]) <= 3 * sigma_mm(cov))
    assert 0.9968 <= inside <= 0.9990, inside


def test_corner_scatter_is_measured_bounded_and_floored():
    # 0.3 px per axis measured over 100 degrees of freedom: used, a little raised (90% bound).
    sc = corner_scatter([(0.09 * 60, 60), (0.09 * 40, 40)])
    assert sc.measured_px == pytest.approx(0.3)
    assert 0.3 < sc.px < 0.34
    # A clean rendering measures almost nothing: the floor holds.
    assert corner_scatter([(1e-6, 100)]).px == CORNER_FLOOR_PX
    # Few degrees of freedom: the bound is wide.
    assert upper_bound(0.09 * 4, 4) > 1.5 * 0.3
    assert upper_bound(0.09 * 4000, 4000) == pytest.approx(0.3, rel=0.03)


def test_a_markers_own_scatter_widens_only_its_own_sigma():
    sc = Scatter(0.2, 0.2, 100)
    own = sc.per_marker(np.array([0.0, 0.16, 4 * 9 * 0.04]))  # quiet, typical, 3x the photo's
    assert own[0] == own[1] == pytest.approx(0.2)
    assert own[2] > 0.35


@pytest.mark.parametrize("tilt", [10.0, 25.0, 40.0])
def test_focal_length_is_read_from_a_tilted_table(tilt):
    for fov in (55.0, 65.0, 75.0):
        cam = look_at_camera(W, D, Shot(width=1920, height=1080, tilt_deg=tilt, fov_deg=fov))
        H = cam.plane_homography(0.0)
        K = cam.intr.K
        assert focal_from_plane(H, K[0, 2], K[1, 2]) == pytest.approx(K[0, 0], rel=1e-6)


def test_a_table_seen_straight_down_says_nothing_of_the_focal_length():
    cam = look_at_camera(W, D, Shot(width=1920, height=1080, tilt_deg=0.0))
    K = cam.intr.K
    assert focal_from_plane(cam.plane_homography(0.0), K[0, 2], K[1, 2]) is None


def test_the_focal_priors_share_of_the_sigma_is_earned_straight_down():
    """A camera whose field of view is not the nominal one (58 deg where the detector assumes
    65: a 12% longer focal length), straight down, where the table cannot tell: every 3 mm
    tray's parallax correction is off by up to a few tenths of a millimetre, and the sigmas
    (which carry the focal prior, vision.uncertainty.FOCAL_PRIOR) cover it. Measured: position
    median 0.10 mm, median error/sigma 0.89, every unit within 3 sigma (at the nominal field
    of view the same table is off by 0.017 mm at the median)."""
    from vision import detect
    from vision.synth import random_table, render

    scene, markers = random_table(1000, 16, 40.0)
    r = render(scene, markers, Shot(width=1920, height=1080, tilt_deg=0, fov_deg=58.0, seed=0))
    out = detect(r.image, markers)
    truth = {u["id"]: u for u in r.scene["units"]}
    e = np.array([math.hypot(u["x"] - truth[u["id"]]["x"], u["y"] - truth[u["id"]]["y"])
                  for u in out["units"]])
    s = np.array([u["sigma_mm"] for u in out["units"]])
    assert len(e) == 16
    assert np.median(e) > 0.08  # the error is real...
    assert (e <= 3 * s).all()  # ...and the sigma says so
    assert np.median(e / s) > 0.5
    parts = [d["sigma_mm_from"]["camera"] for d in out["detection"]["units"].values()]
    assert np.median(parts) > 0.05  # it is the camera term that says so
