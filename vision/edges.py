"""Sub-pixel marker corners from fits of the marker's four outer edges.

CONTOUR refinement finds the right marker and a centre free of bias, but its corners lie on the
thresholded contour, which sits inside the black square by about 0.5-0.9 px (it grows with the
blur): markers then measure 2-3% small and a homography from those corners is off by most of a
millimetre. The black square's outer edge against the white quiet zone is a clean step; the
position of the steepest intensity rise across it, found on dozens of profiles per side and
fitted with one straight line per side, gives corners (line intersections) to a few hundredths
of a pixel.
"""

from __future__ import annotations

import cv2
import numpy as np


def step_positions(prof: np.ndarray, step: float, window_px: float = 1.5,
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Where each profile (rows, sampled every ``step`` pixels) rises most steeply, in samples
    from the first one, and the rise's height per pixel.

    The position is the centroid of the rise (the derivative's first moment) within
    ``window_px`` of its steepest point: for an area-sampled step blurred by any symmetric
    kernel this is the edge itself, whereas the maximum of a bilinearly sampled derivative is
    flat across a whole pixel and would be off by up to half of one.
    """
    der = np.diff(prof, axis=1)
    n = der.shape[1]
    j = np.argmax(der, axis=1)
    peak = der[np.arange(der.shape[0]), j]
    half = max(1, int(round(window_px / step)))
    idx = np.arange(n)[None, :]
    win = np.abs(idx - j[:, None]) <= half
    wts = np.where(win, np.clip(der - 0.1 * peak[:, None], 0, None), 0.0)
    tot = wts.sum(axis=1)
    pos = (wts * (idx + 0.5)).sum(axis=1) / np.where(tot > 0, tot, 1.0)
    ok = (j >= half) & (j < n - half) & (tot > 0)
    return np.where(ok, pos, np.nan), np.where(ok, peak / step, 0.0)


def refine_quad(gray: np.ndarray, quad: np.ndarray, search_px: float = 2.5,
                step_px: float = 0.25) -> tuple[np.ndarray, float] | None:
    """Corners (4x2, same order) of a dark square on a light surround from its edge lines;
    also the RMS distance of the edge samples from their lines (px). None if a side gives too
    few clean samples (the caller keeps the detector's corners)."""
    quad = np.asarray(quad, np.float64).reshape(4, 2)
    centre = quad.mean(axis=0)
    lines = []
    rms = []
    offs = np.arange(-search_px, search_px + step_px / 2, step_px)
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        d = b - a
        length = float(np.linalg.norm(d))
        if length < 8:
            return None
        d /= length
        n = np.array([d[1], -d[0]])
        if n @ ((a + b) / 2 - centre) < 0:
            n = -n  # outward
        m = max(6, int(length * 0.7 / 1.0))
        t = np.linspace(0.15, 0.85, m)
        base = a + np.outer(t, quad[(k + 1) % 4] - a)
        grid = base[:, None, :] + offs[None, :, None] * n
        prof = cv2.remap(gray, grid[..., 0].astype(np.float32), grid[..., 1].astype(np.float32),
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        pos, height = step_positions(prof, step_px)
        s = offs[0] + pos * step_px
        contrast = prof[:, -1] - prof[:, 0]
        good = np.isfinite(pos) & (height > 0.25 * np.median(height)) & (contrast > 15)
        if good.sum() < 4:
            return None
        pts = base[good] + s[good, None] * n
        # Total least squares line through the points (refit once without outliers).
        for _ in range(2):
            c = pts.mean(axis=0)
            _, _, vt = np.linalg.svd(pts - c)
            dirv = vt[0]
            nn = np.array([-dirv[1], dirv[0]])
            r = (pts - c) @ nn
            sd = max(float(np.sqrt(np.mean(r ** 2))), 0.02)
            keep = np.abs(r) < 3 * sd
            if keep.all() or keep.sum() < 4:
                break
            pts = pts[keep]
        lines.append((c, dirv))
        rms.append(float(np.sqrt(np.mean(r[np.abs(r) < 3 * sd] ** 2))) if np.any(
            np.abs(r) < 3 * sd) else sd)
    out = np.empty((4, 2))
    for k in range(4):
        # Corner k joins side k-1 (from corner k-1 to k) and side k (from k to k+1).
        c1, d1 = lines[k - 1]
        c2, d2 = lines[k]
        A = np.array([d1, -d2]).T
        if abs(np.linalg.det(A)) < 1e-6:
            return None
        s1, _ = np.linalg.solve(A, c2 - c1)
        out[k] = c1 + s1 * d1
    if np.max(np.linalg.norm(out - quad, axis=1)) > search_px * 1.5:
        return None
    return out, float(np.sqrt(np.mean(np.square(rms))))
