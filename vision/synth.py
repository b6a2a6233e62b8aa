"""Synthetic photos of a table with exact ground truth, for tests and benchmarks.

:func:`render` draws a scene + marker set as a camera would see it: a textured mat with terrain,
every unit's movement tray as a 3D box (dark rim, visible side faces, flocked top), its marker
sticker on top, miniatures standing on the bases (tall enough to hide parts of the tray edge
in a tilted view, never the marker), perspective from a chosen camera height and tilt, then the
photo's faults: uneven light and vignetting, barrel distortion, lens blur, sensor noise, JPEG.

The camera stands on the -y side of the table and looks at its centre, tilted ``tilt_deg`` from
vertical; without a height it is placed as close as the whole table allows. Trays are drawn by
supersampling a small region (4x) and averaging it back, so edges carry exact area coverage:
the accuracy the detector reaches is then the detector's, not the renderer's aliasing.

Everything is deterministic for a given ``seed``. :func:`random_table` makes the benchmark's
tables (16+ non-overlapping units with markers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from geometry import Pose, load_scene
from geometry.formation import corners

from .camera import DEFAULT_FOV_DEG, Camera, Intrinsics
from .markers import MarkerSet, UnitMarker, load_markers

RIM_MM = 3.0  # width of the dark rim on top of a tray
MAT_BGR = (58, 104, 74)
RIM_BGR = (28, 27, 30)
SIDE_BGR = (22, 21, 24)
TOP_BGR = (70, 118, 140)
FLOOR_BGR = (40, 48, 58)


@dataclass(frozen=True)
class Shot:
    """How the photo is taken and degraded."""

    width: int = 1920
    height: int = 1080
    tilt_deg: float = 0.0
    camera_height_mm: float | None = None  # None: as close as fits the whole table
    fov_deg: float = DEFAULT_FOV_DEG
    k1: float = 0.0  # radial distortion (negative: barrel)
    blur_px: float = 0.5
    noise: float = 1.5  # sensor noise, grey levels (std at mid grey)
    vignette: float = 0.15  # relative darkening at the image corners
    light: float = 0.12  # amplitude of the uneven light
    jpeg_quality: int | None = 95
    miniatures: bool = True
    seed: int = 0

    @classmethod
    def degraded(cls, **kw: Any) -> Shot:
        """The issue's 'moderate degradation': blur sigma 1 px, noise, vignetting, JPEG 80."""
        base = dict(blur_px=1.0, noise=4.0, vignette=0.3, light=0.2, jpeg_quality=80)
        base.update(kw)
        return cls(**base)


@dataclass
class Rendered:
    """A photo and its truth: the scene (poses of every unit) and the camera that took it."""

    image: np.ndarray
    scene: dict[str, Any]
    camera: Camera
    markers: dict[str, Any]
    truth: dict[str, dict[str, Any]] = field(default_factory=dict)


# ---------------------------------------------------------------------------------- camera

def look_at_camera(table_w: float, table_d: float, shot: Shot) -> Camera:
    """Camera on the -y side looking at the table centre, tilted ``tilt_deg`` from vertical."""
    intr = Intrinsics.nominal(shot.width, shot.height, shot.fov_deg, shot.k1)
    th = math.radians(shot.tilt_deg)
    z_c = np.array([0.0, math.sin(th), -math.cos(th)])
    x_c = np.array([1.0, 0.0, 0.0])
    y_c = np.cross(z_c, x_c)
    R = np.vstack([x_c, y_c, z_c])
    target = np.array([table_w / 2, table_d / 2, 0.0])
    table = np.array([[0, 0, 0], [table_w, 0, 0], [table_w, table_d, 0], [0, table_d, 0]], float)

    def camera_at(dist: float) -> Camera:
        centre = target - z_c * dist
        return Camera(intr, R, -R @ centre)

    if shot.camera_height_mm is not None:
        return camera_at(shot.camera_height_mm / math.cos(th))
    lo, hi = 100.0, 20000.0
    margin = 0.03
    for _ in range(50):
        mid = (lo + hi) / 2
        cam = camera_at(mid)
        px = cam.project(table, distort=False)
        ok = (np.all(cam.depth(table) > 0)
              and px[:, 0].min() >= margin * shot.width
              and px[:, 0].max() <= (1 - margin) * shot.width
              and px[:, 1].min() >= margin * shot.height
              and px[:, 1].max() <= (1 - margin) * shot.height)
        hi, lo = (mid, lo) if ok else (hi, mid)
    return camera_at(hi)


# --------------------------------------------------------------------------------- texture

def _noise_field(rng: np.random.Generator, w: int, h: int, cell: float) -> np.ndarray:
    """Smooth noise in [-1, 1] with features about ``cell`` pixels wide."""
    gw, gh = max(2, int(w / cell) + 2), max(2, int(h / cell) + 2)
    g = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def _mat_texture(rng: np.random.Generator, scene: Any, px_per_mm: float) -> np.ndarray:
    """The mat seen from above at ``px_per_mm``: felt colour, blotches, grain, terrain."""
    W = int(math.ceil(scene.table.width_mm * px_per_mm))
    H = int(math.ceil(scene.table.depth_mm * px_per_mm))
    tex = np.empty((H, W, 3), np.float32)
    tex[:] = MAT_BGR
    blot = _noise_field(rng, W, H, 60 * px_per_mm) * 14 + _noise_field(rng, W, H, 8 * px_per_mm) * 8
    tex += blot[..., None] * np.array([0.8, 1.0, 0.9], np.float32)
    grain = rng.normal(0, 6, (H, W)).astype(np.float32)
    tex += cv2.GaussianBlur(grain, (0, 0), 0.7)[..., None]
    for t in scene.terrain:
        pts = (np.array(t.polygon) * px_per_mm * 16).astype(np.int32)
        mask = np.zeros((H, W), np.uint8)
        cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, 4)
        colour = np.array((110, 112, 118) if t.impassable else (40, 80, 50), np.float32)
        patch = colour + _noise_field(rng, W, H, 5 * px_per_mm)[..., None] * 25
        a = (mask.astype(np.float32) / 255)[..., None]
        tex = tex * (1 - a) + patch * a
    return np.clip(tex, 0, 255)


# ----------------------------------------------------------------------------------- trays

def _marker_bits(markers: MarkerSet, marker_id: int) -> np.ndarray:
    """The marker's cells including its black border (6x6 for a 4x4 dictionary), 1 = white."""
    n = markers.aruco_dictionary.markerSize + 2
    img = cv2.aruco.generateImageMarker(markers.aruco_dictionary, marker_id, n, borderBits=1)
    return (img > 127).astype(np.uint8)


def _marker_quads(bits: np.ndarray, centre: tuple[float, float], facing: float,
                  size: float) -> list[tuple[np.ndarray, tuple[int, int, int]]]:
    """Table-frame quads of a marker sticker: white quiet zone, black square, white cells."""
    n = bits.shape[0]
    cell = size / n
    pose = Pose(centre[0], centre[1], facing)

    def quad(u0: float, u1: float, v0: float, v1: float) -> np.ndarray:
        return np.array([pose.to_world(u0, v0), pose.to_world(u1, v0), pose.to_world(u1, v1),
                         pose.to_world(u0, v1)])

    h = size / 2
    q = cell  # quiet zone: one cell of white round the marker
    out = [(quad(-h - q, h + q, -h - q, h + q), (235, 238, 240)),
           (quad(-h, h, -h, h), (18, 18, 20))]
    for r in range(n):  # row 0 is the marker's top edge, towards the unit's front
        for c in range(n):
            if bits[r, c]:
                out.append((quad(-h + c * cell, -h + (c + 1) * cell, h - (r + 1) * cell,
                                 h - r * cell), (235, 238, 240)))
    return out


class _Canvas:
    """Float image in ideal pixels (a margin wider than the photo when the lens distorts)."""

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

    def draw_polys(self, polys: list[tuple[np.ndarray, tuple[int, int, int]]]) -> None:
        """Draw convex ideal-pixel polygons, in order, with exact-area anti-aliasing: each
        pixel's coverage is counted on an SS x SS grid of sample points (cv2.fillPoly's rule
        grows shapes by half a pixel, which would bias every edge the detector measures)."""
        for pts, colour in polys:
            x0 = max(int(math.floor(pts[:, 0].min())) - 1, 0)
            y0 = max(int(math.floor(pts[:, 1].min())) - 1, 0)
            x1 = min(int(math.ceil(pts[:, 0].max())) + 2, self.w)
            y1 = min(int(math.ceil(pts[:, 1].max())) + 2, self.h)
            if x1 <= x0 or y1 <= y0:
                continue
            a = _coverage(pts, x0, y0, x1 - x0, y1 - y0)
            roi = self.img[y0:y1, x0:x1]
            roi += (np.asarray(colour, np.float32) - roi) * a[..., None]


# Sixteen sample points per pixel in an n-rooks pattern: every sample has its own row and
# column, so an edge parallel to the pixel grid is resolved to 1/16 pixel, not 1/4.
_ROOKS = [((k + 0.5) / 16 - 0.5, ((k * 5) % 16 + 0.5) / 16 - 0.5) for k in range(16)]


def _coverage(pts: np.ndarray, x0: int, y0: int, bw: int, bh: int) -> np.ndarray:
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


def _tray_polys(cv: _Canvas, u: UnitMarker, pose: Pose, bits: np.ndarray,
                ) -> tuple[list, list]:
    """Ideal-pixel polygons of a tray (side faces, rimmed top) and of its marker sticker."""
    form = load_scene({"units": [_unit_json(u, pose)]}).units[0].formation
    c = corners(form, pose)
    ring = [c["front_left"], c["front_right"], c["rear_right"], c["rear_left"]]
    h = u.height_mm
    centre = cv.cam.centre
    tray: list = []
    for i in range(4):
        a, b = np.array(ring[i]), np.array(ring[(i + 1) % 4])
        mid = (a + b) / 2
        normal = np.array([-(b[1] - a[1]), b[0] - a[0]])  # outward for a clockwise ring
        if np.dot(normal, centre[:2] - mid) <= 0:
            continue
        face = np.array([[*a, 0], [*b, 0], [*b, h], [*a, h]])
        shade = 0.8 + 0.4 * abs(normal[0]) / (np.linalg.norm(normal) + 1e-9)
        tray.append((cv.px(face), tuple(int(s * shade) for s in SIDE_BGR)))
    top = np.array([[*p, h] for p in ring])
    tray.append((cv.px(top), RIM_BGR))
    w, d = form.width / 2 - RIM_MM, form.depth / 2 - RIM_MM
    inner = np.array([[*pose.to_world(uu, vv), h] for uu, vv in
                      ((-w, d), (w, d), (w, -d), (-w, -d))])
    tray.append((cv.px(inner), TOP_BGR))
    m_centre = pose.to_world(*u.marker_offset_mm)
    sticker = [(cv.px(np.c_[q, np.full(4, h)]), col)
               for q, col in _marker_quads(bits, m_centre, pose.facing, u.marker_size_mm)]
    return tray, sticker


def _unit_json(u: UnitMarker, pose: Pose) -> dict[str, Any]:
    return {**u.scene_fields(), "x": pose.x, "y": pose.y, "facing": pose.facing}


def _draw_minis(cv: _Canvas, rng: np.random.Generator, u: UnitMarker, pose: Pose,
                side_colour: tuple[int, int, int]) -> None:
    """Miniatures on the bases: stacked discs (body, shoulders, head) and a spear, standing up to
    ~1.4x the base width, leaning out over the tray edge now and then; none on the sticker."""
    unit = load_scene({"units": [_unit_json(u, pose)]}).units[0]
    form = unit.formation
    sticker_half = u.marker_size_mm / 2 * (1 + 2 / 6) + 2.0
    mo = np.array(u.marker_offset_mm)
    h = u.height_mm
    centre = cv.cam.centre
    for rank, file in form.model_slots():
        u0, u1, v0, v1 = form.base_local(rank, file)
        # Keep models clear of the sticker (by base footprint).
        if (u1 > mo[0] - sticker_half and u0 < mo[0] + sticker_half
                and v1 > mo[1] - sticker_half and v0 < mo[1] + sticker_half):
            continue
        bw, bd = u1 - u0, v1 - v0
        r = 0.36 * min(bw, bd)
        lu = (u0 + u1) / 2 + rng.uniform(-0.12, 0.12) * bw
        lv = (v0 + v1) / 2 + rng.uniform(-0.12, 0.12) * bd
        if file in (0, form.files - 1) and rng.random() < 0.5:  # lean out over the edge
            lu += (-1 if file == 0 else 1) * rng.uniform(0.1, 0.3) * bw
        x, y = pose.to_world(lu, lv)
        tall = min(bw, bd) * rng.uniform(1.1, 1.5)
        base_col = np.array(side_colour, float) * rng.uniform(0.7, 1.1)
        steps = 6
        for k in range(steps + 1):
            z = h + tall * k / steps
            rad = r * (1.0 - 0.35 * k / steps)
            p = cv.px(np.array([[x, y, z]]))[0]
            depth = cv.cam.depth(np.array([[x, y, z]]))[0]
            rpx = rad * cv.cam.intr.f / depth
            col = (base_col * (0.7 + 0.5 * k / steps)).clip(0, 255)
            if k == steps:
                col = np.array((120, 150, 200), float)  # a face
            cv2.circle(cv.img, (int(round(p[0] * 16)), int(round(p[1] * 16))),
                       max(1, int(round(rpx * 16))), tuple(float(v) for v in col), -1,
                       cv2.LINE_AA, 4)
        if rng.random() < 0.4:  # a spear
            top = np.array([[x + rng.uniform(-3, 3), y + rng.uniform(-3, 3), h + tall * 1.6]])
            a, b = cv.px(np.array([[x, y, h + tall * 0.3]]))[0], cv.px(top)[0]
            cv2.line(cv.img, (int(a[0] * 16), int(a[1] * 16)), (int(b[0] * 16), int(b[1] * 16)),
                     (60, 90, 120), max(1, int(cv.cam.intr.f / 2000)), cv2.LINE_AA, 4)
    del centre


# ---------------------------------------------------------------------------------- render

def _distortion_pad(camera: Camera) -> int:
    """How far outside the photo the ideal image must reach for a barrel lens."""
    if not camera.intr.distorted:
        return 0
    w, h = camera.intr.size
    edge = np.array([[0, 0], [w / 2, 0], [w - 1, 0], [w - 1, h / 2], [w - 1, h - 1],
                     [w / 2, h - 1], [0, h - 1], [0, h / 2]], float)
    ideal = camera.intr.undistort(edge)
    over = max(0.0, -ideal.min(), ideal[:, 0].max() - w, ideal[:, 1].max() - h)
    return int(math.ceil(over)) + 4


def _apply_distortion(img: np.ndarray, camera: Camera, pad: int) -> np.ndarray:
    """Resample the ideal image (with ``pad``) as the distorting lens sees it."""
    w, h = camera.intr.size
    step = 4  # the map is smooth: compute it coarse, interpolate
    # Coarse node i sits at pixel (i + 0.5) * step - 0.5, which is exactly where cv2.resize
    # puts it when it scales the coarse map up by ``step``.
    nx, ny = -(-w // step), -(-h // step)
    gx, gy = np.meshgrid((np.arange(nx) + 0.5) * step - 0.5, (np.arange(ny) + 0.5) * step - 0.5)
    ideal = camera.intr.undistort(np.c_[gx.ravel(), gy.ravel()]).reshape(gx.shape + (2,))
    mx = cv2.resize((ideal[..., 0] + pad).astype(np.float32), (nx * step, ny * step),
                    interpolation=cv2.INTER_LINEAR)[:h, :w]
    my = cv2.resize((ideal[..., 1] + pad).astype(np.float32), (nx * step, ny * step),
                    interpolation=cv2.INTER_LINEAR)[:h, :w]
    return cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def render(scene: dict[str, Any], markers: dict[str, Any], shot: Shot = Shot()) -> Rendered:
    """Photo of ``scene`` with the trays carrying the markers of ``markers`` (matched by unit
    id). Returns the image (BGR uint8) with the truth: the scene and the camera."""
    sc = load_scene(scene)
    ms = load_markers(markers)
    rng = np.random.default_rng(shot.seed)
    camera = look_at_camera(sc.table.width_mm, sc.table.depth_mm, shot)
    pad = _distortion_pad(camera)
    cv = _Canvas(camera, pad)

    # Mat: a top-down texture at the finest scale the photo shows, warped into the frame.
    near = np.array([[sc.table.width_mm / 2, 0, 0]])
    ppm = cv.cam.intr.f / max(cv.cam.depth(near)[0], 1.0)
    ppm = float(min(max(ppm * 1.2, 0.5), 3.0))
    tex = _mat_texture(rng, sc, ppm)
    S = np.diag([ppm, ppm, 1.0])
    S[:2, 2] = -0.5 + 0.5 * ppm  # texture pixel centres sit at (i + 0.5) / ppm mm
    Hm = cv.cam.plane_homography(0.0) @ np.linalg.inv(S)
    cv.img[:] = FLOOR_BGR
    mat = cv2.warpPerspective(tex, Hm, (cv.w, cv.h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(-1, -1, -1))
    inside = mat[..., 0] >= 0
    cv.img[inside] = mat[inside]
    del tex, mat

    # Table markers: flat stickers on the mat.
    for m in ms.table.markers:
        bits = _marker_bits(ms, m.id)
        quads = _marker_quads(bits, (m.x, m.y), 90.0, m.size_mm)
        cv.draw_polys([(cv.px(np.c_[q, np.zeros(4)]), col) for q, col in quads])

    # Trays far to near (painter's order), miniatures after their tray, stickers last.
    by_id = {u.id: u for u in ms.units}
    placed = [(by_id[u.id], u) for u in sc.units if u.id in by_id]
    placed.sort(key=lambda p: -cv.cam.depth(np.array([[p[1].x, p[1].y, 0.0]]))[0])
    stickers = []
    truth: dict[str, dict[str, Any]] = {}
    side_colours = {}
    for um, su in placed:
        pose = su.pose
        bits = _marker_bits(ms, um.marker)
        tray, sticker = _tray_polys(cv, um, pose, bits)
        cv.draw_polys(tray)
        if shot.miniatures:
            named = {"red": (50, 50, 170), "blue": (170, 90, 40)}
            colour = side_colours.setdefault(
                su.side, named.get(su.side, [(60, 150, 60), (150, 60, 150)][
                    len(side_colours) % 2]))
            _draw_minis(cv, rng, um, pose, colour)
        stickers.append(sticker)
        truth[su.id] = {"x": pose.x, "y": pose.y, "facing": pose.facing,
                        "corners": {k: list(v) for k, v in corners(su.formation, pose).items()}}
    for sticker in stickers:
        cv.draw_polys(sticker)

    img = cv.img
    # Uneven light and vignetting (before the lens: the light falls on the table).
    hh, ww = img.shape[:2]
    light = 1 + shot.light * _noise_field(rng, ww, hh, max(ww, hh) / 2.5)
    yy, xx = np.mgrid[0:hh, 0:ww].astype(np.float32)
    r2 = ((xx - ww / 2) ** 2 + (yy - hh / 2) ** 2) / ((ww / 2) ** 2 + (hh / 2) ** 2)
    img *= (light * (1 - shot.vignette * r2))[..., None]
    del xx, yy, r2, light
    if pad:
        img = _apply_distortion(img, camera, pad)
    if shot.blur_px > 0:
        img = cv2.GaussianBlur(img, (0, 0), shot.blur_px)
    if shot.noise > 0:
        sd = shot.noise * np.sqrt(np.clip(img, 1, 255) / 128.0)
        img = img + rng.standard_normal(img.shape, dtype=np.float32) * sd
    out = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    if shot.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(shot.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return Rendered(out, sc.to_json(), camera, ms.model_dump(mode="json"), truth)


# ----------------------------------------------------------------------------- random tables

TRAY_TYPES: list[tuple[tuple[float, float], int, int]] = [
    ((20, 20), 5, 4), ((20, 20), 6, 3), ((20, 20), 10, 2), ((25, 25), 5, 3), ((25, 25), 4, 4),
    ((25, 50), 5, 2), ((25, 50), 3, 2), ((40, 40), 3, 2), ((50, 100), 1, 1), ((20, 40), 5, 2),
    ((30, 30), 4, 2), ((50, 50), 2, 2),
]


def border_markers(width: float, depth: float, count: int = 4, size: float = 60.0,
                   inset: float = 40.0) -> list[dict[str, Any]]:
    """Table markers round the border: the 4 corners, then edge midpoints and thirds
    (8 or more are what lens-distortion estimation needs)."""
    pts = [(inset, inset), (width - inset, inset), (width - inset, depth - inset),
           (inset, depth - inset)]
    extra = [(width / 2, inset), (width / 2, depth - inset), (inset, depth / 2),
             (width - inset, depth / 2), (width / 3, inset), (2 * width / 3, inset),
             (width / 3, depth - inset), (2 * width / 3, depth - inset)]
    pts += extra[: max(0, count - 4)]
    return [{"id": i, "x": x, "y": y, "size_mm": size} for i, (x, y) in enumerate(pts)]


def random_table(seed: int, n_units: int = 16, marker_mm: float = 25.0, table_markers: int = 4,
                 height_mm: float = 3.0, width: float = 1828.8,
                 depth: float = 1219.2) -> tuple[dict[str, Any], dict[str, Any]]:
    """A random table: ``n_units`` trays of common sizes at random poses (no overlap, clear of
    the table markers), each with a ``marker_mm`` marker. Returns (scene, markers) JSON."""
    from shapely.geometry import Point, Polygon

    rng = np.random.default_rng(seed)
    tmarks = border_markers(width, depth, table_markers)
    keep_out = [Point(m["x"], m["y"]).buffer(m["size_mm"]) for m in tmarks]
    sticker = marker_mm * (1 + 2 / 6) + 4
    units: list[dict[str, Any]] = []
    munits: list[dict[str, Any]] = []
    polys: list[Polygon] = []
    tries = 0
    while len(units) < n_units:
        tries += 1
        if tries > 20000:
            raise RuntimeError("cannot place that many units on the table")
        base, files, ranks = TRAY_TYPES[rng.integers(len(TRAY_TYPES))]
        while files * base[0] < sticker:
            files += 1
        while ranks * base[1] < sticker:
            ranks += 1
        wd, dp = files * base[0], ranks * base[1]
        x = rng.uniform(wd / 2 + 20, width - wd / 2 - 20)
        y = rng.uniform(dp / 2 + 20, depth - dp / 2 - 20)
        facing = float(rng.uniform(-180, 180))
        pose = Pose(float(x), float(y), facing)
        c = [pose.to_world(u, v) for u, v in ((-wd / 2, -dp / 2), (wd / 2, -dp / 2),
                                               (wd / 2, dp / 2), (-wd / 2, dp / 2))]
        poly = Polygon(c)
        if not Polygon([(5, 5), (width - 5, 5), (width - 5, depth - 5), (5, depth - 5)]).contains(
                poly):
            continue
        if any(poly.distance(p) < 25 for p in polys) or any(poly.intersects(k) for k in keep_out):
            continue
        i = len(units)
        uid = f"u{i:02d}"
        side = "red" if i % 2 == 0 else "blue"
        ox = float(rng.uniform(-1, 1) * max(0.0, (wd - sticker) / 2) * 0.5)
        oy = float(rng.uniform(-1, 1) * max(0.0, (dp - sticker) / 2) * 0.5)
        units.append({"id": uid, "side": side, "x": float(x), "y": float(y), "facing": facing,
                      "base": list(base), "files": files, "ranks": ranks, "advance_in": 4})
        munits.append({"marker": 10 + i, "marker_size_mm": marker_mm,
                       "marker_offset_mm": [round(ox, 2), round(oy, 2)], "height_mm": height_mm,
                       "id": uid, "side": side, "base": list(base), "files": files,
                       "ranks": ranks, "advance_in": 4})
        polys.append(poly)
    scene = {"table": {"width_mm": width, "depth_mm": depth}, "terrain": [], "units": units}
    markers = {"dictionary": "DICT_4X4_50" if 10 + n_units <= 50 else "DICT_4X4_100",
               "table": {"width_mm": width, "depth_mm": depth, "markers": tmarks},
               "units": munits}
    return scene, markers


def main(argv: list[str] | None = None) -> None:
    """``python -m vision.synth SCENE MARKERS -o photo.jpg [--width --height --tilt ...]``:
    render a photo of a scene (how ``server/samples/table.jpg`` is made)."""
    import argparse
    import json
    from pathlib import Path

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("scene")
    ap.add_argument("markers")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--width", type=int, default=1920)
    ap.add_argument("--height", type=int, default=1080)
    ap.add_argument("--tilt", type=float, default=0.0)
    ap.add_argument("--camera-height", type=float, default=None)
    ap.add_argument("--k1", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--degraded", action="store_true")
    ap.add_argument("--quality", type=int, default=90)
    a = ap.parse_args(argv)
    shot_kw = dict(width=a.width, height=a.height, tilt_deg=a.tilt,
                   camera_height_mm=a.camera_height, k1=a.k1, seed=a.seed)
    shot = Shot.degraded(**shot_kw) if a.degraded else Shot(**shot_kw)
    r = render(json.loads(Path(a.scene).read_text()), json.loads(Path(a.markers).read_text()),
               shot)
    cv2.imwrite(a.out, r.image, [cv2.IMWRITE_JPEG_QUALITY, a.quality])
    print(f"{a.out}: {r.image.shape[1]}x{r.image.shape[0]}, camera at "
          f"{np.round(r.camera.centre, 1).tolist()} mm")


if __name__ == "__main__":
    main()


def render_plane(picture: np.ndarray, size_mm: tuple[float, float], camera: Camera,
                 rvec: np.ndarray, tvec: np.ndarray, background: int = 90,
                 blur_px: float = 0.5, seed: int = 0) -> np.ndarray:
    """A flat printed picture (e.g. a ChArUco board, ``size_mm`` wide and high, its top-left
    corner at the origin, x right, y down) photographed by ``camera`` (its distortion included)
    at pose (rvec, tvec) relative to the board. Grey uint8."""
    pad = _distortion_pad(camera)
    w, h = camera.intr.size
    K = camera.intr.K.copy()
    K[0, 2] += pad
    K[1, 2] += pad
    R, _ = cv2.Rodrigues(np.asarray(rvec, float))
    t = np.asarray(tvec, float).ravel()
    ph, pw = picture.shape[:2]
    S = np.array([[size_mm[0] / pw, 0, size_mm[0] / pw * 0.5],
                  [0, size_mm[1] / ph, size_mm[1] / ph * 0.5], [0, 0, 1]])
    Hb = K @ np.c_[R[:, 0], R[:, 1], t] @ S
    ideal = cv2.warpPerspective(picture.astype(np.float32), Hb, (w + 2 * pad, h + 2 * pad),
                                flags=cv2.INTER_AREA | cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=background)
    img = _apply_distortion(ideal, camera, pad) if pad else ideal
    if blur_px > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur_px)
    img = img + np.random.default_rng(seed).normal(0, 1.5, img.shape).astype(np.float32)
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)
