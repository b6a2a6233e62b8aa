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
from .synth_canvas import Canvas
from .synth_look import (
    Look,
    find_look,
    look_rng,
    motion_kernel,
    noise_field,
    shadow_shift,
    speculars,
    tufts,
)
from .synth_tables import TRAY_TYPES, border_markers, random_table
from .synth_trays import (
    base_polys,
    draw_minis,
    magnet_polys,
    marker_bits,
    marker_quads,
    sticker_half,
    tray_polys,
    tray_shadow,
)

__all__ = ["Shot", "Rendered", "render", "render_plane", "look_at_camera", "random_table",
           "border_markers", "TRAY_TYPES"]

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
    look: str = "classic"  # the appearance (vision.synth_look.LOOKS): "classic" or "club"

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

def _mat_texture(rng: np.random.Generator, scene: Any, px_per_mm: float, look: Look,
                 fx: np.random.Generator) -> np.ndarray:
    """The mat seen from above at ``px_per_mm``: felt colour, blotches, grain, terrain (and
    the appearance's tufts and stones)."""
    W = int(math.ceil(scene.table.width_mm * px_per_mm))
    H = int(math.ceil(scene.table.depth_mm * px_per_mm))
    tex = np.empty((H, W, 3), np.float32)
    tex[:] = look.mats[0] if len(look.mats) == 1 else look.mats[fx.integers(len(look.mats))]
    blot = (noise_field(rng, W, H, 60 * px_per_mm) * look.mat_blotch
            + noise_field(rng, W, H, 8 * px_per_mm) * 8)
    tex += blot[..., None] * np.array([0.8, 1.0, 0.9], np.float32)
    grain = rng.normal(0, 6, (H, W)).astype(np.float32)
    tex += cv2.GaussianBlur(grain, (0, 0), 0.7)[..., None]
    if look.tufts > 0:
        tufts(look, fx, tex, px_per_mm)
    for t in scene.terrain:
        pts = (np.array(t.polygon) * px_per_mm * 16).astype(np.int32)
        mask = np.zeros((H, W), np.uint8)
        cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, 4)
        colour = np.array((110, 112, 118) if t.impassable else (40, 80, 50), np.float32)
        patch = colour + noise_field(rng, W, H, 5 * px_per_mm)[..., None] * 25
        a = (mask.astype(np.float32) / 255)[..., None]
        tex = tex * (1 - a) + patch * a
    return np.clip(tex, 0, 255)

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


def _draw_mat(cv: Canvas, rng: np.random.Generator, sc: Any, look: Look,
              fx: np.random.Generator) -> None:
    """A top-down mat texture at the finest scale the photo shows, warped into the frame."""
    near = np.array([[sc.table.width_mm / 2, 0, 0]])
    ppm = cv.cam.intr.f / max(cv.cam.depth(near)[0], 1.0)
    ppm = float(min(max(ppm * 1.2, 0.5), 3.0))
    tex = _mat_texture(rng, sc, ppm, look, fx)
    S = np.diag([ppm, ppm, 1.0])
    S[:2, 2] = -0.5 + 0.5 * ppm  # texture pixel centres sit at (i + 0.5) / ppm mm
    Hm = cv.cam.plane_homography(0.0) @ np.linalg.inv(S)
    cv.img[:] = FLOOR_BGR
    mat = cv2.warpPerspective(tex, Hm, (cv.w, cv.h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(-1, -1, -1))
    inside = mat[..., 0] >= 0
    cv.img[inside] = mat[inside]


def _quiet_zones(cv: Canvas, ms: MarkerSet, placed: list[tuple[UnitMarker, Any]],
                 ) -> list[np.ndarray]:
    """Ideal-pixel outlines of every marker with its one-cell quiet zone (what no model may
    hide)."""
    out = []
    for m in ms.table.markers:
        h = m.size_mm / 2 * (1 + 2 / 6)
        out.append(cv.px(np.array([[m.x - h, m.y - h, 0], [m.x + h, m.y - h, 0],
                                   [m.x + h, m.y + h, 0], [m.x - h, m.y + h, 0]])))
    for um, su in placed:
        h = um.marker_size_mm / 2 * (1 + 2 / 6)
        p = Pose(*su.pose.to_world(*um.marker_offset_mm), su.pose.facing)
        out.append(cv.px(np.array([[*p.to_world(a, b), um.height_mm] for a, b in
                                   ((-h, -h), (h, -h), (h, h), (-h, h))])))
    return out


def _draw_trays(cv: Canvas, rng: np.random.Generator, ms: MarkerSet, sc: Any, look: Look,
                fx: np.random.Generator, minis: bool) -> dict[str, dict[str, Any]]:
    """Every tray far to near (painter's order) with its models (``minis``); returns the
    truth."""
    by_id = {u.id: u for u in ms.units}
    placed = [(by_id[u.id], u) for u in sc.units if u.id in by_id]
    placed.sort(key=lambda p: -cv.cam.depth(np.array([[p[1].x, p[1].y, 0.0]]))[0])
    shadow = None
    if look.shadow is not None:
        shift = shadow_shift(look, float(fx.uniform(0, 360)))
        shadow = (shift, look.shadow[1])
        cv.darken_polys([tray_shadow(cv, um, su.pose, shift) for um, su in placed],
                        look.shadow[1])
    keep_clear = _quiet_zones(cv, ms, placed) if look.minis_on_sticker else None
    stickers = []
    truth: dict[str, dict[str, Any]] = {}
    side_colours: dict[str, tuple[int, int, int]] = {}
    for um, su in placed:
        pose = su.pose
        material = look.trays[fx.integers(len(look.trays))] if len(look.trays) > 1 \
            else look.trays[0]
        top = look.tops[fx.integers(len(look.tops))] if len(look.tops) > 1 else look.tops[0]
        faces, inside, sticker = tray_polys(cv, look, um, pose, marker_bits(ms, um.marker),
                                            material, top)
        cv.draw_polys(faces)
        cv.draw_polys(inside, grain=(fx, look.flock) if look.flock > 0 else None)
        named = {"red": (50, 50, 170), "blue": (170, 90, 40)}
        colour = side_colours.setdefault(
            su.side, named.get(su.side, [(60, 150, 60), (150, 60, 150)][
                len(side_colours) % 2]))
        if look.minis_on_sticker:
            slots = su.formation.model_slots()
            half = sticker_half(look, um)
            mo = np.array(um.marker_offset_mm)
            free = []
            for rank, file in slots:
                u0, u1, v0, v1 = su.formation.base_local(rank, file)
                if not (u1 > mo[0] - half and u0 < mo[0] + half
                        and v1 > mo[1] - half and v0 < mo[1] + half):
                    free.append((rank, file))
            if look.bases:
                cv.draw_polys(base_polys(cv, um, pose, free))
            if look.magnets:
                cv.draw_polys(magnet_polys(cv, um, pose,
                                           [s for s in slots if s not in free], look))
            cv.draw_groups(sticker)
            if minis:
                draw_minis(cv, rng, look, um, pose, colour, keep_clear, shadow)
        else:
            if minis:
                draw_minis(cv, rng, look, um, pose, colour)
            stickers.append(sticker)
        truth[su.id] = {"x": pose.x, "y": pose.y, "facing": pose.facing,
                        "corners": {k: list(v) for k, v in corners(su.formation, pose).items()}}
    for sticker in stickers:
        cv.draw_groups(sticker)
    return truth


def _glare(cv: Canvas, ms: MarkerSet, sc: Any, look: Look, fx: np.random.Generator) -> None:
    """Specular highlights on the glossy print of some markers (added to the ideal image)."""
    by_id = {u.id: u for u in ms.units}
    spots = [(np.array([m.x, m.y, 0.0]), m.size_mm) for m in ms.table.markers]
    for su in sc.units:
        if su.id in by_id:
            um = by_id[su.id]
            spots.append((np.array([*su.pose.to_world(*um.marker_offset_mm), um.height_mm]),
                          um.marker_size_mm))
    centres = []
    for p, size in spots:
        c = cv.px(p[None])[0]
        side = size * cv.cam.intr.f / cv.cam.depth(p[None])[0]
        centres.append((float(c[0]), float(c[1]), float(side)))
    cv.img += speculars(fx, look, (cv.h, cv.w), centres)[..., None]


def render(scene: dict[str, Any], markers: dict[str, Any], shot: Shot = Shot()) -> Rendered:
    """Photo of ``scene`` with the trays carrying the markers of ``markers`` (matched by unit
    id), in the appearance ``shot.look`` (:mod:`vision.synth_look`). Returns the image (BGR
    uint8) with the truth: the scene and the camera."""
    sc = load_scene(scene)
    ms = load_markers(markers)
    look = find_look(shot.look)
    rng = np.random.default_rng(shot.seed)
    fx = look_rng(shot.seed)
    camera = look_at_camera(sc.table.width_mm, sc.table.depth_mm, shot)
    pad = _distortion_pad(camera)
    cv = Canvas(camera, pad)
    _draw_mat(cv, rng, sc, look, fx)

    # Table markers: flat (or slightly curled) paper on the mat.
    for m in ms.table.markers:
        curl = float(fx.uniform(*look.curl_mm)) if look.curl_mm[1] > 0 else 0.0
        groups = marker_quads(marker_bits(ms, m.id), (m.x, m.y), 90.0, m.size_mm,
                              look.sticker_margin_mm, look.paper_bgr, curl_mm=curl)
        cv.draw_groups([([cv.px(q) for q in qs], col) for qs, col in groups])
    truth = _draw_trays(cv, rng, ms, sc, look, fx, shot.miniatures)
    if look.glossy > 0:
        _glare(cv, ms, sc, look, fx)

    img = cv.img
    # Uneven light and vignetting (before the lens: the light falls on the table).
    hh, ww = img.shape[:2]
    light = 1 + shot.light * noise_field(rng, ww, hh, max(ww, hh) / 2.5)
    yy, xx = np.mgrid[0:hh, 0:ww].astype(np.float32)
    r2 = ((xx - ww / 2) ** 2 + (yy - hh / 2) ** 2) / ((ww / 2) ** 2 + (hh / 2) ** 2)
    img *= (light * (1 - shot.vignette * r2))[..., None]
    del xx, yy, r2, light
    if pad:
        img = _apply_distortion(img, camera, pad)
    if shot.blur_px > 0:
        img = cv2.GaussianBlur(img, (0, 0), shot.blur_px)
    if look.motion_px[1] > 0:
        img = cv2.filter2D(img, -1, motion_kernel(float(fx.uniform(*look.motion_px)),
                                                  float(fx.uniform(0, 180))),
                           borderType=cv2.BORDER_REFLECT)
    if shot.noise > 0:
        sd = shot.noise * np.sqrt(np.clip(img, 1, 255) / 128.0)
        img = img + rng.standard_normal(img.shape, dtype=np.float32) * sd
    out = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    if shot.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(shot.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return Rendered(out, sc.to_json(), camera, ms.model_dump(mode="json"), truth)


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
