"""The drawing surface of :mod:`vision.synth`: a float image in ideal pixels on which convex
polygons are painted with exact-area anti-aliasing (a flat colour, a colour with grain, or a
darkening for shadows)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from .camera import Camera, Intrinsics

Poly = tuple[np.ndarray, tuple[int, int, int]]
Group = tuple[list[np.ndarray], tuple[int, int, int]]  # pieces of one shape, one colour


class Canvas:
    """Float image in ideal pixels (a margin ``pad`` wider than the photo when the lens
    distorts, so that the distortion can be applied afterwards)."""

    def __init__(self, camera: Camera, pad: int):
        intr = camera.intr
        K = intr.K.copy()
        K[0, 2] += pad
        K[1, 2] += pad
        self.cam = Camera(Intrinsics(K, np.zeros(5), (intr.size[0] + 2 * pad,
                                                       intr.size[1] + 2 * pad)),
                          camera.R, camera.t)
        self.w, self.h = self.cam.intr.size
        self.img = np.zeros((self.h, self.w, 3), np.float32)

    def px(self, pts3: np.ndarray) -> np.ndarray:
        return self.cam.project(pts3, distort=False)

    def _box(self, pts: np.ndarray) -> tuple[int, int, int, int] | None:
        x0 = max(int(math.floor(pts[:, 0].min())) - 1, 0)
        y0 = max(int(math.floor(pts[:, 1].min())) - 1, 0)
        x1 = min(int(math.ceil(pts[:, 0].max())) + 2, self.w)
        y1 = min(int(math.ceil(pts[:, 1].max())) + 2, self.h)
        if x1 <= x0 or y1 <= y0:
            return None
        return x0, y0, x1, y1

    def draw_polys(self, polys: list[Poly], grain: tuple[np.random.Generator, float] | None = None,
                   ) -> None:
        """Draw convex ideal-pixel polygons, in order, with exact-area anti-aliasing: each
        pixel's coverage is counted on a grid of 16 sample points (cv2.fillPoly's rule grows
        shapes by half a pixel, which would bias every edge the detector measures). With
        ``grain`` (generator, amplitude in grey levels) the colour carries a fine texture
        (flock), a pixel or so across."""
        for pts, colour in polys:
            box = self._box(pts)
            if box is None:
                continue
            x0, y0, x1, y1 = box
            a = coverage(pts, x0, y0, x1 - x0, y1 - y0)
            roi = self.img[y0:y1, x0:x1]
            col = np.asarray(colour, np.float32)
            if grain is not None:
                rng, amp = grain
                g = rng.normal(0, amp, (y1 - y0, x1 - x0, 1)).astype(np.float32)
                g = cv2.GaussianBlur(g, (0, 0), 0.8).reshape(y1 - y0, x1 - x0, 1)
                tint = rng.normal(0, amp * 0.6, (y1 - y0, x1 - x0, 3)).astype(np.float32)
                col = col + g * 1.6 + cv2.GaussianBlur(tint, (0, 0), 1.2)
            roi += (col - roi) * a[..., None]

    def draw_groups(self, groups: list[Group]) -> None:
        """Draw shapes cut in convex pieces that do not overlap (a curled sheet in strips), in
        order: a shape's coverage is the sum of its pieces', so no seam shows where two meet."""
        for pieces, colour in groups:
            if len(pieces) == 1:
                self.draw_polys([(pieces[0], colour)])
                continue
            box = self._box(np.vstack(pieces))
            if box is None:
                continue
            x0, y0, x1, y1 = box
            a = np.zeros((y1 - y0, x1 - x0), np.float32)
            for pts in pieces:
                b = self._box(pts)
                if b is None:
                    continue
                a[b[1] - y0:b[3] - y0, b[0] - x0:b[2] - x0] += coverage(
                    pts, b[0], b[1], b[2] - b[0], b[3] - b[1])
            roi = self.img[y0:y1, x0:x1]
            roi += (np.asarray(colour, np.float32) - roi) * np.minimum(a, 1.0)[..., None]

    def darken_polys(self, polys: list[np.ndarray], factor: float) -> None:
        """Multiply the image by ``factor`` inside convex ideal-pixel polygons (a hard shadow;
        overlapping shadows do not darken twice)."""
        boxes = [b for b in (self._box(p) for p in polys) if b is not None]
        if not boxes:
            return
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        for pts in polys:
            box = self._box(pts)
            if box is None:
                continue
            bx0, by0, bx1, by1 = box
            a = coverage(pts, bx0, by0, bx1 - bx0, by1 - by0)
            sub = mask[by0 - y0:by1 - y0, bx0 - x0:bx1 - x0]
            np.maximum(sub, a, out=sub)
        roi = self.img[y0:y1, x0:x1]
        roi *= (1 - (1 - factor) * mask)[..., None]


# Sixteen sample points per pixel in an n-rooks pattern: every sample has its own row and
# column, so an edge parallel to the pixel grid is resolved to 1/16 pixel, not 1/4.
_ROOKS = [((k + 0.5) / 16 - 0.5, ((k * 5) % 16 + 0.5) / 16 - 0.5) for k in range(16)]


def coverage(pts: np.ndarray, x0: int, y0: int, bw: int, bh: int) -> np.ndarray:
    """Fraction of each pixel (centres at integer coordinates) inside a convex polygon."""
    p = np.asarray(pts, np.float64)
    area2 = np.sum(p[:, 0] * np.roll(p[:, 1], -1) - np.roll(p[:, 0], -1) * p[:, 1])
    sign = 1.0 if area2 > 0 else -1.0
    xs = (x0 + np.arange(bw, dtype=np.float64))[None, :]
    ys = (y0 + np.arange(bh, dtype=np.float64))[:, None]
    # Signed distance-like value of every pixel centre to every edge, then shifted per sample.
    edges = []
    for i in range(len(p)):
        ax, ay = p[i]
        bx, by = p[(i + 1) % len(p)]
        ex, ey = (bx - ax) * sign, (by - ay) * sign
        base = (ex * (ys - ay) - ey * (xs - ax)).astype(np.float32)
        edges.append((base, float(ex), float(ey)))
    cov = np.zeros((bh, bw), np.float32)
    for dx, dy in _ROOKS:
        inside = np.ones((bh, bw), bool)
        for base, ex, ey in edges:
            inside &= base >= (ey * dx - ex * dy)
        cov += inside
    return cov / len(_ROOKS)
