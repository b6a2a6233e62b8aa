"""``POST /api/detect``: the scene seen in a photo (DESIGN.md, HTTP)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, UploadFile

from server import engine
from server import models as m
from server.deps import WorkersDep
from server.errors import PHOTO_RESPONSES
from server.forms import markers_field

router = APIRouter(tags=["detection"], responses=PHOTO_RESPONSES)

# Module level: route signatures are resolved from their (postponed) annotations by name.
PhotoField = Annotated[UploadFile, File(description="The table photo (JPEG, PNG or WebP)")]
MarkersField = Annotated[UploadFile | str, File(
    description="The marker set, markers.json (DESIGN.md), as a file or as text")]


@router.post("/api/detect", response_model=m.DetectedScene,
             summary="Find the table and every unit in a photo")
async def detect(photo: PhotoField, markers: MarkersField, workers: WorkersDep) -> Any:
    """The scene seen in the photo, with the detection report (markers seen, homography)."""
    marker_doc = await markers_field(markers)
    return await engine.detect_scene(workers, await photo.read(), marker_doc)
