"""``POST /api/detect``: the scene seen in a photo (DESIGN.md, HTTP)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, UploadFile

from server import engine
from server import models as m
from server.deps import WorkersDep
from server.errors import refusals
from server.forms import ONLY_KNOWN_PARTS_ONCE, markers_field
from server.photos import ACCEPTED, MAX_PIXELS

router = APIRouter(tags=["detection"], responses=refusals(400, 415, 422, 503),
                   dependencies=[ONLY_KNOWN_PARTS_ONCE])

# Module level: route signatures are resolved from their (postponed) annotations by name.
PhotoField = Annotated[UploadFile, File(
    description=f"The table photo: {ACCEPTED}, at most "
                f"{MAX_PIXELS / 1e6:g} megapixels")]
MarkersField = Annotated[UploadFile | str, File(
    description="The marker set (markers.json), as a file or as text")]


@router.post("/api/detect", response_model=m.DetectedScene,
             summary="Find the table and every unit in a photo")
async def detect(photo: PhotoField, markers: MarkersField, workers: WorkersDep) -> Any:
    """The scene seen in the photo, with the detection report (markers seen, homography)."""
    marker_doc = await markers_field(markers)
    return await engine.detect_scene(workers, await photo.read(), marker_doc)
