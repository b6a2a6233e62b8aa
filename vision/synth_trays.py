"""Trays, stickers, model bases, magnets, miniatures and their shadows for :mod:`vision.synth`,
drawn in the appearance (:class:`~vision.synth_look.Look`) of the photo."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from geometry import Pose, load_scene
from geometry.formation import corners

from .markers import MarkerSet, UnitMarker
from .synth_canvas import Canvas, Group, Poly
from .synth_look import Look, hull

WHITE_BGR = (235, 238, 240)
BLACK_BGR = (18, 18, 20)


def marker_bits(markers: MarkerSet, marker_id: int) -> np.ndarray:
    """The marker's cells including its black border (6x6 for a 4x4 dictionary), 1 = white."""
    n = markers.aruco_dictionary.markerSize + 2
    img = cv2.aruco.generateImageMarker(markers.aruco_dictionary, marker_id, n, borderBits=1)
    return (img > 127).astype(np.uint8)


def marker_quads(bits: np.ndarray, centre: tuple[float, float], facing: float, size: float,
                 margin_mm: float = 0.0, paper: tuple[int, int, int] = WHITE_BGR,
                 z: float = 0.0, curl_mm: float = 0.0) -> list[Group]:
    """Table-frame quads (4, 3) of a marker sticker at height ``z``, as groups of one colour:
    white paper (one cell of quiet zone plus ``margin_mm``), the black square, the white cells.
    A sheet curled by ``curl_mm`` rises as a parabola towards its left and right edges; its
    paper and black square are then cut in strips one cell wide, so their edges bend as they do
    on paper (a group is drawn as one shape: :meth:`~vision.synth_canvas.Canvas.draw_groups`)."""
    n = bits.shape[0]
    cell = size / n
    pose = Pose(centre[0], centre[1], facing)  # u right, v forward: the marker's top edge
    h = size / 2
    q = cell + margin_mm

    def group(u0: float, u1: float, v0: float, v1: float) -> list[np.ndarray]:
        parts = max(1, int(round((u1 - u0) / cell))) if curl_mm > 0 else 1
        out = []
        for k in range(parts):
            a, b = u0 + (u1 - u0) * k / parts, u0 + (u1 - u0) * (k + 1) / parts
            loc = np.array([[a, v0], [b, v0], [b, v1], [a, v1]])
            lift = z + curl_mm * (loc[:, 0] / (h + q)) ** 2
            world = np.array([pose.to_world(u, v) for u, v in loc])
            out.append(np.c_[world, lift])
        return out

    out = [(group(-h - q, h + q, -h - q, h + q), paper), (group(-h, h, -h, h), BLACK_BGR)]
    for r in range(n):  # row 0 is the marker's top edge, towards the unit's front
        for c in range(n):
            if bits[r, c]:
                out.append((group(-h + c * cell, -h + (c + 1) * cell, h - (r + 1) * cell,
                                  h - r * cell), paper))
    return out


def sticker_half(look: Look, unit: UnitMarker) -> float:
    """Half the side of a unit's sticker (marker, quiet zone, paper margin), mm."""
    return unit.marker_size_mm / 2 * (1 + 2 / 6) + look.sticker_margin_mm


def unit_json(u: UnitMarker, pose: Pose) -> dict[str, Any]:
    return {**u.scene_fields(), "x": pose.x, "y": pose.y, "facing": pose.facing}


def tray_ring(u: UnitMarker, pose: Pose) -> list[np.ndarray]:
    """The tray's corners front-left, front-right, rear-right, rear-left (table mm)."""
    form = load_scene({"units": [unit_json(u, pose)]}).units[0].formation
    c = corners(form, pose)
    return [np.array(c[k]) for k in ("front_left", "front_right", "rear_right", "rear_left")]


def tray_polys(cv: Canvas, look: Look, u: UnitMarker, pose: Pose, bits: np.ndarray,
               material: tuple[int, int, int], top: tuple[int, int, int],
               ) -> tuple[list[Poly], list[Poly], list[Group]]:
    """Ideal-pixel polygons of a tray: side faces and rim, the top inside the rim (flocked in
    the ``club`` look), and the marker sticker."""
    ring = tray_ring(u, pose)
    h = u.height_mm
    centre = cv.cam.centre
    faces: list[Poly] = []
    for i in range(4):
        a, b = ring[i], ring[(i + 1) % 4]
        mid = (a + b) / 2
        normal = np.array([-(b[1] - a[1]), b[0] - a[0]])  # outward for a clockwise ring
        if np.dot(normal, centre[:2] - mid) <= 0:
            continue
        face = np.array([[*a, 0], [*b, 0], [*b, h], [*a, h]])
        shade = 0.8 + 0.4 * abs(normal[0]) / (np.linalg.norm(normal) + 1e-9)
        faces.append((cv.px(face), tuple(min(255, int(s * shade)) for s in material)))
    topq = np.array([[*p, h] for p in ring])
    inside: list[Poly] = []
    if look.rim_mm > 0:
        faces.append((cv.px(topq), look.rim_bgr))
        w = u.width_mm / 2 - look.rim_mm
        d = u.depth_mm / 2 - look.rim_mm
        inner = np.array([[*pose.to_world(uu, vv), h] for uu, vv in
                          ((-w, d), (w, d), (w, -d), (-w, -d))])
        inside.append((cv.px(inner), top))
    else:
        inside.append((cv.px(topq), top))
    m_centre = pose.to_world(*u.marker_offset_mm)
    sticker = [([cv.px(q) for q in qs], col) for qs, col in
               marker_quads(bits, m_centre, pose.facing, u.marker_size_mm,
                            look.sticker_margin_mm, look.paper_bgr, z=h)]
    return faces, inside, sticker


def tray_shadow(cv: Canvas, u: UnitMarker, pose: Pose, shift: np.ndarray) -> np.ndarray:
    """Ideal-pixel outline of a tray's shadow on the mat (the base and the top cast by the
    light ``shift`` per mm of height)."""
    ring = np.array(tray_ring(u, pose))
    pts = np.vstack([ring, ring + shift * u.height_mm])
    return cv.px(np.c_[hull(pts), np.zeros(len(hull(pts)))])


def base_polys(cv: Canvas, u: UnitMarker, pose: Pose, slots: list[tuple[int, int]],
               ) -> list[Poly]:
    """Square model bases on the tray top: a dark bevel 1 mm wide round a flocked middle, each
    0.4 mm inside its slot (so their edges run just inside the tray's)."""
    unit = load_scene({"units": [unit_json(u, pose)]}).units[0]
    form, h = unit.formation, u.height_mm
    out: list[Poly] = []
    for rank, file in slots:
        u0, u1, v0, v1 = form.base_local(rank, file)
        for inset, col in ((0.4, (30, 34, 32)), (1.4, (64, 96, 84))):
            loc = ((u0 + inset, v1 - inset), (u1 - inset, v1 - inset),
                   (u1 - inset, v0 + inset), (u0 + inset, v0 + inset))
            out.append((cv.px(np.array([[*pose.to_world(a, b), h] for a, b in loc])), col))
    return out


def _clear_of(discs: list[tuple[np.ndarray, float]], keep_clear: list[np.ndarray]) -> bool:
    """Whether every disc (centre px, radius px) stays outside every polygon of ``keep_clear``
    (the markers' quiet zones, which no model may hide)."""
    for poly in keep_clear:
        p32 = poly.astype(np.float32).reshape(-1, 1, 2)
        for c, r in discs:
            if cv2.pointPolygonTest(p32, (float(c[0]), float(c[1])), True) > -r - 1:
                return False
    return True


def draw_minis(cv: Canvas, rng: np.random.Generator, look: Look, u: UnitMarker, pose: Pose,
               side_colour: tuple[int, int, int], keep_clear: list[np.ndarray] | None = None,
               shadow: tuple[np.ndarray, float] | None = None) -> list[tuple[int, int]]:
    """Miniatures on the bases: stacked discs (body, shoulders, head) and a spear, standing up to
    ~1.4x the base width, edge models leaning out over the tray edge now and then. In the
    ``classic`` look none stands on the sticker; in ``club`` they may stand over its paper
    margin but never hide a marker's quiet zone (``keep_clear``), and cast ``shadow`` (light
    shift per mm of height, brightness). Returns the slots left empty."""
    unit = load_scene({"units": [unit_json(u, pose)]}).units[0]
    form = unit.formation
    half = (u.marker_size_mm / 2 * (1 + 2 / 6) + 2.0 if not look.minis_on_sticker
            else u.marker_size_mm / 2 * (1 + 2 / 6))
    mo = np.array(u.marker_offset_mm)
    h = u.height_mm
    empty = []
    for rank, file in form.model_slots():
        u0, u1, v0, v1 = form.base_local(rank, file)
        bw, bd = u1 - u0, v1 - v0
        # Keep models clear of the sticker (by base footprint).
        if not look.minis_on_sticker and (u1 > mo[0] - half and u0 < mo[0] + half
                                          and v1 > mo[1] - half and v0 < mo[1] + half):
            empty.append((rank, file))
            continue
        r = 0.36 * min(bw, bd)
        lu = (u0 + u1) / 2 + rng.uniform(-0.12, 0.12) * bw
        lv = (v0 + v1) / 2 + rng.uniform(-0.12, 0.12) * bd
        if file in (0, form.files - 1) and rng.random() < 0.5:  # lean out over the edge
            lu += (-1 if file == 0 else 1) * rng.uniform(*look.lean) * bw
        x, y = pose.to_world(lu, lv)
        tall = min(bw, bd) * rng.uniform(1.1, 1.5)
        base_col = np.array(side_colour, float) * rng.uniform(0.7, 1.1)
        steps = 6
        pts3 = np.array([[x, y, h + tall * k / steps] for k in range(steps + 1)])
        rads = r * (1.0 - 0.35 * np.arange(steps + 1) / steps)
        cpx = cv.px(pts3)
        rpx = rads * cv.cam.intr.f / cv.cam.depth(pts3)
        if keep_clear is not None and not _clear_of(list(zip(cpx, rpx, strict=True)),
                                                    keep_clear):
            empty.append((rank, file))
            continue
        if shadow is not None:
            _mini_shadow(cv, np.array([x, y]), r, tall, h, shadow)
        for k in range(steps + 1):
            col = (base_col * (0.7 + 0.5 * k / steps)).clip(0, 255)
            if k == steps:
                col = np.array((120, 150, 200), float)  # a face
            cv2.circle(cv.img, (int(round(cpx[k][0] * 16)), int(round(cpx[k][1] * 16))),
                       max(1, int(round(rpx[k] * 16))), tuple(float(v) for v in col), -1,
                       cv2.LINE_AA, 4)
        if rng.random() < 0.4:  # a spear
            top = np.array([[x + rng.uniform(-3, 3), y + rng.uniform(-3, 3), h + tall * 1.6]])
            a, b = cv.px(np.array([[x, y, h + tall * 0.3]]))[0], cv.px(top)[0]
            along = [(a + (b - a) * t, 1.0) for t in np.linspace(0, 1, 6)]
            if keep_clear is None or _clear_of(along, keep_clear):
                cv2.line(cv.img, (int(a[0] * 16), int(a[1] * 16)),
                         (int(b[0] * 16), int(b[1] * 16)), (60, 90, 120),
                         max(1, int(cv.cam.intr.f / 2000)), cv2.LINE_AA, 4)
    return empty


def _mini_shadow(cv: Canvas, xy: np.ndarray, r: float, tall: float, h: float,
                 shadow: tuple[np.ndarray, float]) -> None:
    """A model's hard shadow on the tray top: the hull of its foot and its head cast along
    the light."""
    shift, factor = shadow
    a = np.linspace(0, 2 * math.pi, 12, endpoint=False)
    ring = np.c_[np.cos(a), np.sin(a)] * r
    pts = np.vstack([xy + ring, xy + ring * 0.7 + shift * tall])
    hh = hull(pts)
    cv.darken_polys([cv.px(np.c_[hh, np.full(len(hh), h)])], factor)


def magnet_polys(cv: Canvas, u: UnitMarker, pose: Pose, slots: list[tuple[int, int]],
                 look: Look) -> list[Poly]:
    """Round magnets in the empty slots that the sticker does not cover."""
    unit = load_scene({"units": [unit_json(u, pose)]}).units[0]
    form, h = unit.formation, u.height_mm
    mo = np.array(u.marker_offset_mm)
    half = sticker_half(look, u)
    out: list[Poly] = []
    a = np.linspace(0, 2 * math.pi, 16, endpoint=False)
    for rank, file in slots:
        u0, u1, v0, v1 = form.base_local(rank, file)
        c = np.array([(u0 + u1) / 2, (v0 + v1) / 2])
        rad = 0.22 * min(u1 - u0, v1 - v0)
        if np.all(np.abs(c - mo) < half + rad):
            continue
        loc = c + np.c_[np.cos(a), np.sin(a)] * rad
        out.append((cv.px(np.array([[*pose.to_world(p, q), h] for p, q in loc])),
                    (70, 72, 76)))
    return out
