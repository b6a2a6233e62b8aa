"""The engine behind the routes, off the event loop: a photo's scene (``vision``), a ruling
(``charges``) and a review's pictures, each run on its own workers and each engine error
turned into a refusal.

There is one detection path: ``/api/detect`` and ``/api/reviews`` both call
:func:`detect_scene`, which detects in the photo worker processes (``umpire serve
--detect-processes``), so photos never hold the GIL that rulings need.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

import charges
from charges.request import request_warnings
from server import models as m
from server.errors import ClientError, engine_error, validation_errors
from server.ignored import markers_warnings
from server.photos import Outcome, Rendering, detect_upload, refuse_empty, render_upload
from server.workers import Workers


def _unwrap(outcome: Outcome, what: str) -> Any:
    """The value of a worker job's outcome (server.photos), or its error raised as a
    refusal."""
    status, value = outcome
    if status == "client":
        raise ClientError(*value)
    if status == "engine":
        raise engine_error(ValueError(value), what)
    return value


async def detect_scene(workers: Workers, data: bytes, marker_doc: dict[str, Any]
                       ) -> dict[str, Any]:
    """The scene seen in the photo ``data``, detected in a photo worker process."""
    refuse_empty(data)
    scene = _unwrap(await workers.run_process(detect_upload, data, marker_doc), "detection")
    try:
        m.DetectedScene.model_validate(scene)
    except ValidationError as e:
        # The scene's only client-made parts come from the marker set (unit fields,
        # terrain): a scene of the wrong shape is the marker set's fault, not ours.
        detail, _ = validation_errors(e.errors())
        raise ClientError(422, "invalid", f"markers: the scene they describe is not valid: "
                                          f"{detail}", "markers") from None
    det = scene.get("detection")
    if isinstance(det, dict):  # the detection report's warnings are the page's to show
        det["warnings"] = [*det.get("warnings", []), *markers_warnings(marker_doc)]
    return scene


async def render_review(workers: Workers, data: bytes, scene: dict[str, Any],
                        ruling: dict[str, Any]) -> Rendering:
    """The overlay and thumbnail of a review, drawn in a photo worker process."""
    return _unwrap(await workers.run_process(render_upload, data, scene, ruling), "drawing")


async def rule(workers: Workers, request: dict[str, Any]) -> dict[str, Any]:
    """``charges.rule(request)`` on the rulings' own threads, with the request's
    ``warnings``: the fields it holds that the ruling did not read (charges.request)."""
    try:
        ruling = await workers.run("rule", charges.rule, request)
    except ValueError as e:
        raise engine_error(e, "ruling") from None
    ruling.setdefault("warnings", request_warnings(request))
    return ruling
