"""Uploaded photos: decoded and checked before any detection, detected as one job for a worker,
and the ruling drawn back on them."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

import vision
from server.errors import ClientError

# A 50-megapixel photo is already beyond any phone or webcam at a gaming table; past this a
# small compressed file could still decode to gigabytes (a "decompression bomb").
MAX_PIXELS = 50_000_000
THUMBNAIL_PX = 320
PHOTO_FORMATS = {"JPEG": ("jpg", "image/jpeg"), "PNG": ("png", "image/png"),
                 "WEBP": ("webp", "image/webp"), "BMP": ("bmp", "image/bmp"),
                 "TIFF": ("tif", "image/tiff")}
#: The accepted formats as a sentence says them: "JPEG, PNG, WebP, BMP or TIFF".
_NAMES = [{"WEBP": "WebP"}.get(f, f) for f in PHOTO_FORMATS]
ACCEPTED = f"{', '.join(_NAMES[:-1])} or {_NAMES[-1]}"


def too_many_pixels(pixels: int | None, size: str = "") -> ClientError:
    """The 413 of a photo over :data:`MAX_PIXELS`, in the server's own words."""
    what = size or (f"{pixels / 1e6:g} megapixels" if pixels else "the photo")
    return ClientError(413, "too_large", f"photo: {what} is more than the "
                                         f"{MAX_PIXELS / 1e6:g} megapixels accepted", "photo")


@dataclass(frozen=True)
class Photo:
    """A decoded upload: the original bytes (what is stored), the BGR pixels vision works on,
    and a small JPEG for lists."""

    data: bytes
    ext: str
    media_type: str
    bgr: np.ndarray
    thumbnail: bytes


def refuse_empty(data: bytes) -> None:
    """An empty upload is refused where it arrives, before it waits in the photo workers'
    queue behind other photos (a 400 should not take as long as a detection)."""
    if not data:
        raise ClientError(400, "bad_photo", "photo: the file is empty", "photo")


_WIDE_GREY = ("I;16", "I;16L", "I;16B", "I;16N", "I")


def _to_rgb(img: Image.Image) -> Image.Image:
    """The picture as 8-bit RGB. A 16-bit greyscale PNG or TIFF (Pillow's mode ``I;16`` or
    ``I``) is scaled to 8 bits as OpenCV reads it (the top 8 bits), not clipped at 255:
    Pillow's own conversion turned every value above 255 white (outside testing round 4)."""
    if img.mode in _WIDE_GREY:
        grey = np.asarray(img).astype(np.int64)
        grey8 = (np.clip(grey, 0, 65535) >> 8).astype(np.uint8)
        return Image.fromarray(grey8, "L").convert("RGB")
    return img.convert("RGB")


def decode_photo(data: bytes, want_thumbnail: bool = True) -> Photo:
    """Decode an uploaded photo fully (Pillow), so a truncated or corrupt file is refused here
    with a message, not half-read into a grey image that detection then misreads.

    The EXIF orientation is applied, as a phone's own gallery shows the picture.
    """
    refuse_empty(data)
    try:
        with Image.open(io.BytesIO(data)) as img:
            fmt = img.format or ""
            if fmt not in PHOTO_FORMATS:
                raise ClientError(415, "bad_photo",
                                  f"photo: {fmt or 'this'} images are not accepted "
                                  f"({ACCEPTED} expected)", "photo")
            w, h = img.size
            if w * h > MAX_PIXELS:
                raise too_many_pixels(w * h, f"{w} x {h} pixels")
            img.load()
            rgb = _to_rgb(ImageOps.exif_transpose(img))
    except ClientError:
        raise
    except UnidentifiedImageError:
        raise ClientError(415, "bad_photo", f"photo: not an image ({ACCEPTED} expected)",
                          "photo") from None
    except Image.DecompressionBombError as e:
        # Pillow's own guard (past twice its MAX_IMAGE_PIXELS) fires while opening, before
        # the size check above: the limit that counts is this server's.
        found = re.search(r"\((\d+) pixels\)", str(e))
        raise too_many_pixels(int(found.group(1)) if found else None) from None
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        raise ClientError(400, "bad_photo", f"photo: broken image file ({e})", "photo") from None
    ext, media_type = PHOTO_FORMATS[fmt]
    bgr = np.ascontiguousarray(np.asarray(rgb)[:, :, ::-1])
    thumb = b""
    if want_thumbnail:
        small = rgb.copy()
        small.thumbnail((THUMBNAIL_PX, THUMBNAIL_PX))
        buf = io.BytesIO()
        small.save(buf, format="JPEG", quality=80)
        thumb = buf.getvalue()
    return Photo(data=data, ext=ext, media_type=media_type, bgr=bgr, thumbnail=thumb)


# Jobs for a worker process (server.workers): only bytes and JSON-like values go in and come
# out, never a decoded image, and errors come back as values, ``("client", (status, code,
# detail, field))`` or ``("engine", message)``, so nothing depends on pickling an exception.
Outcome = tuple[str, Any]


def detect_upload(data: bytes, marker_doc: dict[str, Any]) -> Outcome:
    """Decode an uploaded photo and detect its scene: ``("ok", scene)``."""
    try:
        pic = decode_photo(data, False)
    except ClientError as e:
        return "client", (e.status, e.error, e.detail, e.field)
    try:
        return "ok", vision.detect(pic.bgr, marker_doc)
    except ValueError as e:
        return "engine", str(e)


@dataclass(frozen=True)
class Rendering:
    """What a review stores besides its JSON: the overlay PNG (drawn on the photo or on a
    plan), a small JPEG for lists, and the photo's file extension and media type."""

    overlay: bytes
    kind: str
    thumbnail: bytes
    ext: str
    media_type: str


def render_upload(data: bytes, scene: dict[str, Any], ruling: dict[str, Any]) -> Outcome:
    """Decode an uploaded photo again and draw its ruling: ``("ok", Rendering)``. The photo
    is decoded where it is drawn, so its pixels never cross a process boundary."""
    try:
        pic = decode_photo(data, True)
    except ClientError as e:
        return "client", (e.status, e.error, e.detail, e.field)
    png, kind = draw_overlay(pic, scene, ruling)
    return "ok", Rendering(png, kind, pic.thumbnail, pic.ext, pic.media_type)


def table_to_image(scene: dict[str, Any]) -> np.ndarray | None:
    """The 3x3 homography from table millimetres to photo pixels, if detection reported one."""
    det = scene.get("detection")
    if not isinstance(det, dict):
        return None
    for key in ("table_to_image", "homography"):
        h = det.get(key)
        if h is not None:
            arr = np.asarray(h, dtype=float)
            if arr.shape == (3, 3) and np.all(np.isfinite(arr)):
                return arr
    return None


def rules_scene(scene: dict[str, Any]) -> dict[str, Any]:
    """The scene as the rules see it: the detection report is for people, not for charges."""
    return {k: v for k, v in scene.items() if k != "detection"}


def draw_overlay(photo: Photo, scene: dict[str, Any],
                 ruling: dict[str, Any]) -> tuple[bytes, str]:
    """The overlay PNG: on the photo through the detected homography, else a top-down plan."""
    from vision import overlay  # imported here: drawing is only needed for reviews

    h = table_to_image(scene)
    if h is not None:
        img = overlay.draw_on_photo(photo.bgr, scene, ruling, h)
        kind = "photo"
    else:
        img = overlay.draw_plan(scene, ruling)
        kind = "plan"
    return overlay.encode_png(img), kind
