"""Reviews kept for after the game (DESIGN.md, HTTP): ``POST /api/reviews`` detects, rules and
stores a photo; the ``GET`` routes list them and serve each one's JSON and pictures."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Form, Query
from fastapi.responses import FileResponse

from server import engine
from server import models as m
from server.deps import StoreDep, WorkersDep
from server.errors import ClientError, refusals
from server.forms import (
    CHARGES_ADAPTER,
    DICE_ADAPTER,
    FACING_ROLL_ADAPTER,
    FLEE_ADAPTER,
    ON_ACCIDENTAL_CONTACT_ADAPTER,
    ONLY_KNOWN_PARTS_ONCE,
    json_field,
    markers_field,
    typed_field,
    word_or_json_field,
)
from server.photos import rules_scene
from server.routes_detect import MarkersField, PhotoField
from server.storage import Blob, Review, ReviewStore

router = APIRouter(tags=["reviews"])

#: The largest row number SQLite stores (a signed 64-bit integer): the bound of ``before``.
SQLITE_MAX_INT = 2**63 - 1

ChargesField = Annotated[str, Form(
    alias="charges", description='JSON list of {"charger", "target"}',
    examples=['[{"charger": "knights", "target": "spears"}]'])]
DiceField = Annotated[str | None, Form(
    description='JSON object: dice per charger, e.g. {"knights": [3, 5]}; omitted for the '
                'odds only')]
RulesetField = Annotated[m.RulesetName, Form(description="Ruleset id")]
FacingRollField = Annotated[str | None, Form(
    description='JSON object: a D6 per charger deciding a contested facing (whfb8), e.g. '
                '{"knights": 4}')]
FleeField = Annotated[str | None, Form(
    description='JSON object: a charged unit\'s Flee! reaction with its flee roll (tow, whfb8), '
                'e.g. {"spears": [2, 3]}')]
OnAccidentalContactField = Annotated[str | None, Form(
    description="tow: what a charger met by a fleeing enemy across its only way does: halt or "
                'continue for every charger, or a JSON object per charger id, e.g. {"knights": '
                '"continue"}')]


def links(review_id: str) -> dict[str, str]:
    base = f"/api/reviews/{review_id}"
    return {"url": base, "overlay_url": f"{base}/overlay.png", "photo_url": f"{base}/photo",
            "thumbnail_url": f"{base}/thumbnail.jpg"}


def review_out(r: Review) -> dict[str, Any]:
    """A stored review as the API answers it (:class:`server.models.Review`)."""
    return {"id": r.id, "created_at": r.created_at,
            "ruleset": r.request.get("ruleset", "t9a-1"),
            "charges": r.request.get("charges", []), "dice": r.request.get("dice"),
            **{k: r.request[k] for k in ("facing_roll", "flee", "on_accidental_contact")
               if k in r.request},
            "scene": r.scene, "ruling": r.ruling,
            "overlay_kind": r.request.get("overlay_kind", "photo"), **links(r.id)}


def summary_out(r: Review) -> dict[str, Any]:
    """A stored review as a line of the list: its charges with their outcomes."""
    outcomes = {(c.get("charger"), c.get("target")): c.get("outcome")
                for c in r.ruling.get("charges", []) if isinstance(c, dict)}
    return {"id": r.id, "created_at": r.created_at,
            "ruleset": r.request.get("ruleset", "t9a-1"),
            "charges": [{**c, "outcome": outcomes.get((c["charger"], c["target"]))}
                        for c in r.request.get("charges", [])],
            **links(r.id)}


def refuse_missing(scene: dict[str, Any], declared: list[Any]) -> None:
    """A charge naming a unit of the marker set that the photo does not show is refused with
    that reason ("not found on the photo (marker 12 not seen)"), not as an unknown unit."""
    det = scene.get("detection") or {}
    missing = set(det.get("missing_units") or [])
    for i, c in enumerate(declared):
        for key in ("charger", "target"):
            uid = getattr(c, key)
            if uid not in missing:
                continue
            why = next((w.removeprefix(f"unit '{uid}' ") for w in det.get("warnings", [])
                        if isinstance(w, str) and w.startswith(f"unit '{uid}' not found")),
                       "not found")
            raise ClientError(422, "invalid", f"charges[{i}].{key}: unit '{uid}' is in the "
                              f"marker set but was {why} on the photo; take the photo again "
                              "with its marker in view", "charges")


@router.post("/api/reviews", status_code=201, response_model=m.Review,
             responses=refusals(400, 415, 422, 503), dependencies=[ONLY_KNOWN_PARTS_ONCE],
             summary="Detect, rule and store a review of a photo")
async def create_review(photo: PhotoField, markers: MarkersField, charges_: ChargesField,
                        workers: WorkersDep, store: StoreDep, dice: DiceField = None,
                        ruleset: RulesetField = "t9a-1",
                        facing_roll: FacingRollField = None, flee: FleeField = None,
                        on_accidental_contact: OnAccidentalContactField = None) -> Any:
    """Stored for post-game review: the photo, its scene, the ruling and the overlay. The
    answer (201) comes only once everything is durably on disk. The parts are those of a
    ruling request (``POST /api/rulings``); a part the form does not take, or one sent twice,
    is refused."""
    declared = typed_field(CHARGES_ADAPTER, json_field(charges_, "charges"), "charges")
    rolled = None if dice is None else typed_field(DICE_ADAPTER, json_field(dice, "dice"), "dice")
    rolls = None if facing_roll is None else typed_field(
        FACING_ROLL_ADAPTER, json_field(facing_roll, "facing_roll"), "facing_roll")
    options: dict[str, Any] = {}
    if flee is not None:
        options["flee"] = typed_field(FLEE_ADAPTER, json_field(flee, "flee"), "flee")
    if on_accidental_contact is not None:
        options["on_accidental_contact"] = typed_field(
            ON_ACCIDENTAL_CONTACT_ADAPTER,
            word_or_json_field(on_accidental_contact, "on_accidental_contact"),
            "on_accidental_contact")
    marker_doc = await markers_field(markers)
    data = await photo.read()
    scene = await engine.detect_scene(workers, data, marker_doc)
    refuse_missing(scene, declared)
    request: dict[str, Any] = {"ruleset": ruleset, "scene": rules_scene(scene),
                               "charges": [c.model_dump() for c in declared]}
    if rolled is not None:
        request["dice"] = rolled
    if rolls is not None:
        request["facing_roll"] = rolls
    request.update(options)
    ruling = await engine.rule(workers, request)
    pictures = await engine.render_review(workers, data, scene, ruling)
    stored_request = {k: v for k, v in request.items() if k != "scene"}
    stored_request["overlay_kind"] = pictures.kind
    review = await workers.run(
        "image", partial(store.add, photo=Blob(data, pictures.ext),
                         photo_type=pictures.media_type, overlay=Blob(pictures.overlay, "png"),
                         thumbnail=Blob(pictures.thumbnail, "jpg"), markers=marker_doc,
                         request=stored_request, scene=scene, ruling=ruling))
    return review_out(review)


@router.get("/api/reviews", response_model=m.ReviewList, responses=refusals(422),
            summary="Stored reviews, newest first")
async def list_reviews(
    store: StoreDep,
    limit: Annotated[int, Query(ge=1, le=200, description="Page size")] = 50,
    before: Annotated[int | None, Query(ge=1, le=SQLITE_MAX_INT,
                                        description="next_before of the previous page")]
        = None,
) -> Any:
    rows = await anyio.to_thread.run_sync(store.list, limit, before)
    next_before = rows[-1].seq if len(rows) == limit else None
    return {"reviews": [summary_out(r) for r in rows], "next_before": next_before}


async def find(store: ReviewStore, review_id: str) -> Review:
    r = await anyio.to_thread.run_sync(store.get, review_id)
    if r is None:
        raise ClientError(404, "not_found", f"review {review_id!r}: no such review", "id")
    return r


def stored_file(store: ReviewStore, name: str, media_type: str) -> FileResponse:
    # Content-addressed: the bytes behind a name never change, so caches may keep them.
    return FileResponse(store.file_path(name), media_type=media_type,
                        headers={"Cache-Control": "public, max-age=31536000, immutable",
                                 "ETag": f'"{name.split(".")[0]}"'})


@router.get("/api/reviews/{review_id}", response_model=m.Review, responses=refusals(404, 422),
            summary="One stored review")
async def get_review(review_id: str, store: StoreDep) -> Any:
    return review_out(await find(store, review_id))


@router.get("/api/reviews/{review_id}/overlay.png", response_class=FileResponse,
            responses={200: {"content": {"image/png": {}}}, **refusals(404, 422)},
            summary="The ruling drawn on the photo (or on a plan)")
async def review_overlay(review_id: str, store: StoreDep) -> FileResponse:
    return stored_file(store, (await find(store, review_id)).overlay, "image/png")


@router.get("/api/reviews/{review_id}/photo", response_class=FileResponse,
            responses={200: {"content": {"image/*": {}}}, **refusals(404, 422)},
            summary="The photo as uploaded")
async def review_photo(review_id: str, store: StoreDep) -> FileResponse:
    r = await find(store, review_id)
    return stored_file(store, r.photo, r.photo_type)


@router.get("/api/reviews/{review_id}/thumbnail.jpg", response_class=FileResponse,
            responses={200: {"content": {"image/jpeg": {}}}, **refusals(404, 422)},
            summary="A small JPEG of the photo")
async def review_thumbnail(review_id: str, store: StoreDep) -> FileResponse:
    return stored_file(store, (await find(store, review_id)).thumbnail, "image/jpeg")
