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


def step_positions(prof: np.ndarray, step: float, window_px: float | np.ndarray = 1.5,
                   reach: np.ndarray | None = None, recentre: int = 0,
                   within: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Where each profile (rows, sampled every ``step`` pixels) rises most steeply, in samples
    from the first one, and the rise's height per pixel. With ``reach`` (per row, samples) the
    steepest rise is looked for only that far either side of the profile's middle. With
    ``within`` (per row: first and end sample) a row's profile is only that stretch of it
    (profiles of several reaches sampled in one batch), and ``window_px`` may be one per row.

    The position is the centroid of the rise (the derivative's first moment) within
    ``window_px`` of its steepest point: for an area-sampled step blurred by any symmetric
    kernel this is the edge itself, whereas the maximum of a bilinearly sampled derivative is
    flat across a whole pixel and would be off by up to half of one. With ``recentre`` the
    window is then centred on the centroid found and the centroid taken again, that many
    times: a rise wider than the window (a small marker under blur and motion blur) has a flat
    top whose steepest sample falls anywhere on it, and a window round that sample cuts the
    rise unevenly; one centred on the rise's middle cuts it evenly.
    """
    der = np.diff(prof, axis=1)
    rows, n = der.shape
    idx = np.arange(n)[None, :]
    if within is None:
        lo, hi = 0, n + 1
        valid = None
        masked = der
    else:
        lo, hi = within[:, 0], within[:, 1]
        valid = (idx >= lo[:, None]) & (idx < hi[:, None] - 1)
        masked = np.where(valid, der, -np.inf)
    if reach is not None:
        mid = (n - 1) / 2
        masked = np.where(np.abs(idx - mid) <= np.asarray(reach)[:, None], masked, -np.inf)
    j = np.argmax(masked, axis=1)
    r = np.arange(rows)
    peak = der[r, j]
    half = np.maximum(1, np.round(np.broadcast_to(np.asarray(window_px, np.float64) / step,
                                                   (rows,)))).astype(np.int64)
    rise = np.clip(der - 0.1 * peak[:, None], 0, None)
    if valid is not None:
        rise *= valid
    mom = rise * (idx + 0.5)

    def centroid(win: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tot = np.where(win, rise, 0).sum(axis=1)
        return np.where(win, mom, 0).sum(axis=1) / np.where(tot > 0, tot, 1.0), tot

    pos, tot = centroid(np.abs(idx - j[:, None]) <= half[:, None])
    for _ in range(recentre):
        again, t2 = centroid(np.abs(idx + 0.5 - pos[:, None]) <= half[:, None] + 0.5)
        pos, tot = np.where(t2 > 0, again, pos), t2
    ok = (j - lo >= half) & (j < hi - 1 - half) & (tot > 0)
    return np.where(ok, pos, np.nan), np.where(ok, peak / step, 0.0)


EDGE_WINDOW_PX = 2.5
"""Half-width of the centroid window of a marker edge's rise. The window must hold the whole
rise: a blurred edge (the issue's degraded photos: blur sigma 1 px on top of the optics') is
wider than +-1.5 px, and a window that cuts its flanks pulls the centroid towards the steepest
sample, whose place on a bilinearly sampled profile depends on the pixel grid: on rendered 4K
tilt-40 photos with blur 1 px every table-marker corner came out ~0.06-0.15 px high in the
photo, which moved the whole table calibration (and every tray) by ~0.1 mm."""
RECENTRE = 2
"""Times a marker edge's centroid window is centred again on the centroid
(:func:`step_positions`). On 10 rendered tables per setting: club 4K tilt 40 degraded corner
error p50 0.131 -> 0.083 px, pose p95 0.244 -> 0.231 mm and 0.312 -> 0.276 deg; classic
1080p tilt 20 degraded 0.202 -> 0.128 mm, 0.288 -> 0.197 deg (one recentring: 0.141 mm,
0.205 deg)."""
SEARCH_PX = 3.5
"""How far either side of the detector's edge the profiles reach (the window above must fit
inside them)."""


def _line_fit(pts: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted total-least-squares lines through batches of points (B, N, 2) with weights
    (B, N): centre (B, 2), unit direction (B, 2), RMS distance (B,)."""
    sw = np.maximum(w.sum(axis=1), 1e-9)
    c = (pts * w[..., None]).sum(axis=1) / sw[:, None]
    d = pts - c[:, None, :]
    sxx = (w * d[..., 0] ** 2).sum(axis=1) / sw
    syy = (w * d[..., 1] ** 2).sum(axis=1) / sw
    sxy = (w * d[..., 0] * d[..., 1]).sum(axis=1) / sw
    ang = 0.5 * np.arctan2(2 * sxy, sxx - syy)
    dirv = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    nrm = np.stack([-dirv[:, 1], dirv[:, 0]], axis=1)
    r = np.einsum("bnk,bk->bn", d, nrm)
    rms = np.sqrt((w * r ** 2).sum(axis=1) / sw)
    return c, dirv, rms


def refine_quads(gray: np.ndarray, quads: np.ndarray, search_px: float | np.ndarray = 2.5,
                 step_px: float = 0.25, samples: int = 24,
                 window_px: float | np.ndarray = 1.5,
                 ends: float | np.ndarray = 0.15,
                 recentre: int = RECENTRE) -> tuple[np.ndarray, np.ndarray]:
    """Corners (M, 4, 2) of dark squares on a light surround from their four edge lines, all
    markers in one batch (``search_px``, ``window_px`` and ``ends`` one for all or one per
    quad, the reaches whole multiples of ``step_px``); and a mask of the quads whose fit is
    trusted (the others keep the detector's corners). The profiles run along each side from
    ``ends`` of its length after its first corner to ``ends`` before its second: near a corner
    a profile meets the other side's edge, and the corners given can be a pixel or more off.
    ``recentre``: see :func:`step_positions`."""
    quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    m = len(quads)
    if m == 0:
        return quads.copy(), np.zeros(0, bool)
    search = np.broadcast_to(np.asarray(search_px, np.float64), (m,))
    window = np.broadcast_to(np.asarray(window_px, np.float64), (m,))
    a = quads
    b = np.roll(quads, -1, axis=1)
    centre = quads.mean(axis=1, keepdims=True)
    d = b - a
    length = np.linalg.norm(d, axis=2)
    n = np.stack([d[..., 1], -d[..., 0]], axis=2) / np.maximum(length, 1e-9)[..., None]
    flip = np.einsum("mkj,mkj->mk", n, (a + b) / 2 - centre) < 0
    n[flip] *= -1  # outward
    reach = float(search.max())
    offs = np.arange(-reach, reach + step_px / 2, step_px)
    # Each quad's own profile is the middle stretch of the batch's widest one.
    first = np.round((reach - search) / step_px).astype(np.int64)
    within = np.repeat(np.c_[first, len(offs) - first], 4 * samples, axis=0)
    e = np.broadcast_to(np.asarray(ends, np.float64), (m,))[:, None]
    t = e + (1 - 2 * e) * np.linspace(0.0, 1.0, samples)[None, :]  # (m, S)
    base = a[:, :, None, :] + t[:, None, :, None] * d[:, :, None, :]  # (m, 4, S, 2)
    # The profiles' sample points (m * 4 * S rows of O), x and y apart for cv2.remap.
    o = offs.astype(np.float32)
    nn = n.astype(np.float32)[:, :, None, None, :]
    bb = base.astype(np.float32)[..., None, :]
    mx = (bb[..., 0] + o * nn[..., 0]).reshape(-1, len(offs))
    my = (bb[..., 1] + o * nn[..., 1]).reshape(-1, len(offs))
    prof = cv2.remap(gray, mx, my, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    pos, height = step_positions(prof, step_px, np.repeat(window, 4 * samples),
                                 recentre=recentre, within=within)
    rows = np.arange(len(prof))
    contrast = prof[rows, within[:, 1] - 1] - prof[rows, within[:, 0]]
    pos = pos.reshape(m, 4, samples)
    height = height.reshape(m, 4, samples)
    contrast = contrast.reshape(m, 4, samples)
    med = np.median(height, axis=2, keepdims=True)
    good = np.isfinite(pos) & (height > 0.25 * med) & (contrast > 15)
    s = offs[0] + np.nan_to_num(pos) * step_px
    pts = (base + s[..., None] * n[:, :, None, :]).reshape(m * 4, samples, 2)
    w = good.reshape(m * 4, samples).astype(np.float64)
    c, dirv, rms = _line_fit(pts, w)
    for _ in range(2):  # drop samples far from the line (a nick, a speck of dust)
        nrm = np.stack([-dirv[:, 1], dirv[:, 0]], axis=1)
        r = np.abs(np.einsum("bnk,bk->bn", pts - c[:, None, :], nrm))
        w = w * (r < 3 * np.maximum(rms, 0.03)[:, None])
        c, dirv, rms = _line_fit(pts, w)
    c = c.reshape(m, 4, 2)
    dirv = dirv.reshape(m, 4, 2)
    # Corner k joins side k-1 (corner k-1 to k) and side k (corner k to k+1).
    c1, d1 = np.roll(c, 1, axis=1), np.roll(dirv, 1, axis=1)
    c2, d2 = c, dirv
    det = d1[..., 0] * (-d2[..., 1]) - d1[..., 1] * (-d2[..., 0])
    rhs = c2 - c1
    s1 = (rhs[..., 0] * (-d2[..., 1]) - rhs[..., 1] * (-d2[..., 0])) / np.where(
        np.abs(det) > 1e-6, det, 1.0)
    out = c1 + s1[..., None] * d1
    enough = (w.reshape(m, 4, samples).sum(axis=2) >= 4).all(axis=1)
    ok = (enough & (np.abs(det) > 1e-6).all(axis=1) & (length > 8).all(axis=1)
          & (np.linalg.norm(out - quads, axis=2).max(axis=1) < search * 1.5))
    out[~ok] = quads[~ok]
    return out, ok
