"""``POST /api/detect``: the scene seen in a photo (DESIGN.md, HTTP)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, UploadFile
from pydantic import ValidationError

from server import models as m
from server.deps import WorkersDep
from server.errors import ERROR_RESPONSES, ClientError, engine_error, validation_errors
from server.forms import markers_field
from server.photos import detect_upload

router = APIRouter(tags=["detection"], responses=ERROR_RESPONSES)

# Module level: route signatures are resolved from their (postponed) annotations by name.
PhotoField = Annotated[UploadFile, File(description="The table photo (JPEG, PNG or WebP)")]
MarkersField = Annotated[UploadFile | str, File(
    description="The marker set, markers.json (DESIGN.md), as a file or as text")]


@router.post("/api/detect", response_model=m.DetectedScene,
             summary="Find the table and every unit in a photo")
async def detect(photo: PhotoField, markers: MarkersField, workers: WorkersDep) -> Any:
    """The scene seen in the photo, with the detection report (markers seen, homography)."""
    marker_doc = await markers_field(markers)
    status, value = await workers.run_process(detect_upload, await photo.read(), marker_doc)
    if status == "client":
        raise ClientError(*value)
    if status == "engine":
        raise engine_error(ValueError(value), "detection")
    scene = value
    try:
        m.DetectedScene.model_validate(scene)
    except ValidationError as e:
        # The scene's only client-made parts come from the marker set (unit fields,
        # terrain): a scene of the wrong shape is the marker set's fault, not ours.
        detail, _ = validation_errors(e.errors())
        raise ClientError(422, "invalid", f"markers: the scene they describe is not valid: "
                                          f"{detail}", "markers") from None
    return scene
