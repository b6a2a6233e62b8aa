"""The engine behind the routes, off the event loop: a photo's scene (``vision``) and a ruling
(``charges``), each run on its own workers and each engine error turned into a refusal."""

from __future__ import annotations

from typing import Any

import charges
import vision
from server.errors import engine_error
from server.photos import Photo, decode_photo
from server.workers import Workers


async def detect_photo(workers: Workers, data: bytes, marker_doc: dict[str, Any],
                       want_thumbnail: bool) -> tuple[Photo, dict[str, Any]]:
    """The decoded photo and the scene detected in it (in the image threads)."""
    pic = await workers.run("image", decode_photo, data, want_thumbnail)
    try:
        scene = await workers.run("image", vision.detect, pic.bgr, marker_doc)
    except ValueError as e:
        raise engine_error(e, "detection") from None
    return pic, scene


async def rule(workers: Workers, request: dict[str, Any]) -> dict[str, Any]:
    """``charges.rule(request)`` on the rulings' own threads."""
    try:
        return await workers.run("rule", charges.rule, request)
    except ValueError as e:
        raise engine_error(e, "ruling") from None
