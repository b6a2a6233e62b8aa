"""Appearances of a rendered table (:mod:`vision.synth`): what the mat, the trays, the stickers
and the light look like.

A detector tuned on one appearance learns what that appearance lets it assume. ``classic`` is the
first one: a green felt mat, dark-rimmed trays with a plain top, a marker with one cell of white
round it, soft even light. ``club`` is chosen to break each of those assumptions, the way a club
table does:

- other mats (sand, earth, grey) with static-grass tufts and stones, and tray materials from dark
  brown to pale sand, so a tray can be lighter than the mat, darker, or about the same;
- no dark rim: the flock runs to the tray's edge, the side faces are bare MDF or plastic; model
  bases with a dark bevel sit just inside the edge; magnets show in the empty slots;
- a white paper sticker margin round the marker's quiet zone;
- miniatures leaning further out over the tray edge and over the sticker margin, their hard
  shadows falling across the tray, the sticker and the marker's quiet zone;
- hard shadows of the trays on the mat (a band along two sides of every tray);
- specular highlights on the glossy print of some markers;
- table-marker paper curled up at two edges (a few tenths of a millimetre);
- motion blur of a couple of pixels.

Every random choice of an appearance is drawn from its own generator (seeded by the shot's
seed), so ``classic`` photos stay exactly what they were before ``club`` existed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class Look:
    """One appearance. Colours are BGR; lengths are table millimetres unless named ``_px``."""

    name: str
    mats: tuple[BGR, ...] = ((58, 104, 74),)
    mat_blotch: float = 14.0  # amplitude of the mat's large blotches (grey levels)
    tufts: float = 0.0  # static-grass tufts and stones per 100 cm^2 of mat
    trays: tuple[BGR, ...] = ((22, 21, 24),)  # tray material: side faces (and the rim)
    rim_mm: float = 3.0  # width of a dark rim round the top; 0: flock to the edge
    rim_bgr: BGR = (28, 27, 30)
    tops: tuple[BGR, ...] = ((70, 118, 140),)  # the top inside the rim (flock colour)
    flock: float = 0.0  # amplitude of the flock texture on the top (grey levels)
    bases: bool = False  # square model bases with a dark bevel on the top
    magnets: bool = False  # magnets in the empty slots
    sticker_margin_mm: float = 0.0  # white paper beyond the marker's one-cell quiet zone
    paper_bgr: BGR = (235, 238, 240)
    minis_on_sticker: bool = False  # models may stand over the sticker margin
    lean: tuple[float, float] = (0.1, 0.3)  # how far edge models lean out (base widths)
    shadow: tuple[float, float] | None = None  # light elevation (deg), shadow brightness
    glossy: float = 0.0  # share of markers with a specular highlight
    curl_mm: tuple[float, float] = (0.0, 0.0)  # table-marker paper lift at two edges
    motion_px: tuple[float, float] = (0.0, 0.0)  # motion blur length range (pixels)


CLASSIC = Look("classic")
CLUB = Look(
    "club",
    mats=((112, 150, 172), (62, 78, 96), (92, 98, 104), (70, 118, 112)),
    mat_blotch=20.0, tufts=6.0,
    trays=((96, 126, 152), (124, 124, 120), (150, 174, 190), (42, 56, 76), (70, 92, 62)),
    rim_mm=0.0,
    tops=((62, 112, 92), (70, 100, 124), (96, 130, 140), (58, 84, 70)),
    flock=22.0, bases=True, magnets=True, sticker_margin_mm=2.0, paper_bgr=(238, 242, 246),
    minis_on_sticker=True, lean=(0.2, 0.45), shadow=(48.0, 0.58), glossy=0.3,
    curl_mm=(0.1, 0.35), motion_px=(1.0, 2.5),
)
LOOKS = {look.name: look for look in (CLASSIC, CLUB)}


def find_look(name: str) -> Look:
    """The appearance called ``name``, or ValueError listing the known ones."""
    try:
        return LOOKS[name]
    except KeyError:
        raise ValueError(f"unknown appearance '{name}' (one of {sorted(LOOKS)})") from None


def look_rng(seed: int) -> np.random.Generator:
    """The generator of an appearance's own choices (apart from the photo's main one)."""
    return np.random.default_rng((seed, 0x10C))


def noise_field(rng: np.random.Generator, w: int, h: int, cell: float) -> np.ndarray:
    """Smooth noise in [-1, 1] with features about ``cell`` pixels wide."""
    gw, gh = max(2, int(w / cell) + 2), max(2, int(h / cell) + 2)
    g = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def tufts(look: Look, rng: np.random.Generator, tex: np.ndarray, px_per_mm: float) -> None:
    """Static-grass tufts and small stones scattered over a top-down mat texture (in place)."""
    h, w = tex.shape[:2]
    area_cm2 = w * h / (px_per_mm * 10) ** 2
    n = int(rng.poisson(look.tufts * area_cm2 / 100))
    xs, ys = rng.uniform(0, w, n), rng.uniform(0, h, n)
    radii = rng.uniform(1.5, 4.0, n) * px_per_mm
    kinds = rng.random(n)
    for x, y, r, k in zip(xs, ys, radii, kinds, strict=True):
        if k < 0.6:  # a grass tuft: a cluster of short strokes
            col = (40 + 30 * rng.random(), 110 + 50 * rng.random(), 90 + 50 * rng.random())
            for _ in range(6):
                a = rng.uniform(0, 2 * math.pi)
                p2 = (x + r * math.cos(a), y + r * math.sin(a))
                cv2.line(tex, (int(x * 16), int(y * 16)), (int(p2[0] * 16), int(p2[1] * 16)),
                         col, max(1, int(px_per_mm * 0.6)), cv2.LINE_AA, 4)
        else:  # a stone
            g = 90 + 80 * rng.random()
            cv2.circle(tex, (int(x * 16), int(y * 16)), max(1, int(r * 0.5 * 16)),
                       (g, g, g * 1.05), -1, cv2.LINE_AA, 4)


def shadow_shift(look: Look, azimuth_deg: float) -> np.ndarray:
    """Where the shadow of a point 1 mm high falls, relative to the point (table mm)."""
    assert look.shadow is not None
    elev = math.radians(look.shadow[0])
    a = math.radians(azimuth_deg)
    return -np.array([math.cos(a), math.sin(a)]) / math.tan(elev)


def hull(points: np.ndarray) -> np.ndarray:
    """Convex hull of 2D points, counter-clockwise (cv2.convexHull), as an (N, 2) array."""
    return cv2.convexHull(np.asarray(points, np.float32)).reshape(-1, 2).astype(np.float64)


def motion_kernel(length_px: float, angle_deg: float) -> np.ndarray:
    """A normalised straight-line blur kernel (anti-aliased), ``length_px`` long."""
    size = int(math.ceil(length_px)) * 2 + 3
    k = np.zeros((size * 8, size * 8), np.float32)
    c = size * 4
    a = math.radians(angle_deg)
    dx, dy = math.cos(a) * length_px * 4, math.sin(a) * length_px * 4
    cv2.line(k, (int(c - dx), int(c - dy)), (int(c + dx), int(c + dy)), 1.0, 8, cv2.LINE_AA)
    k = cv2.resize(k, (size, size), interpolation=cv2.INTER_AREA)
    return k / k.sum()


def speculars(rng: np.random.Generator, look: Look, shape: tuple[int, int],
              centres_px: list[tuple[float, float, float]]) -> np.ndarray:
    """Additive glare (grey levels, float32 H x W) of glossy print: a bright soft ellipse over
    some of the markers, given as (x, y, marker side) in pixels."""
    h, w = shape
    glare = np.zeros((h, w), np.float32)
    for x, y, side in centres_px:
        if rng.random() >= look.glossy:
            continue
        cx = x + rng.uniform(-0.4, 0.4) * side
        cy = y + rng.uniform(-0.4, 0.4) * side
        sx, sy = side * rng.uniform(0.15, 0.35), side * rng.uniform(0.08, 0.2)
        amp = rng.uniform(30, 80)
        r = int(3 * max(sx, sy)) + 2
        x0, x1 = max(int(cx) - r, 0), min(int(cx) + r + 1, w)
        y0, y1 = max(int(cy) - r, 0), min(int(cy) + r + 1, h)
        if x1 <= x0 or y1 <= y0:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        t = rng.uniform(0, math.pi)
        u = (xx - cx) * math.cos(t) + (yy - cy) * math.sin(t)
        v = -(xx - cx) * math.sin(t) + (yy - cy) * math.cos(t)
        glare[y0:y1, x0:x1] += amp * np.exp(-0.5 * ((u / sx) ** 2 + (v / sy) ** 2))
    return glare
