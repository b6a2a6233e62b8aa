"""The HTTP API and the web page (DESIGN.md, HTTP; issue 5).

Routes are thin: they parse and check the shape of what a client sent, then hand the work to
``vision`` (photo -> scene, ruling -> picture) and ``charges`` (scene -> ruling). No rule and no
geometry lives here. Three promises shape the code:

- Nothing a client sends produces a 500: every way a request can be wrong ends in a 4xx whose
  JSON body (:class:`server.models.ErrorBody`) names the field or file at fault. Engine errors
  are ``ValueError`` subclasses naming the field (DESIGN.md, Python API) and become 422.
- Uploads are bounded: a body over ``max_upload_mb`` is refused with 413 before it is parsed
  (:class:`BodyLimit`), and photos with absurd pixel counts are refused before decoding.
- The event loop never computes: decoding, detection, rulings and drawing run in worker threads
  behind capacity limiters, so one slow photo does not stall the other requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Any, TypeVar

import anyio
import numpy as np
from fastapi import FastAPI, File, Form, Query, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from PIL import Image, ImageOps, UnidentifiedImageError
from pydantic import TypeAdapter, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import charges
import vision
from server import models as m
from server.storage import Blob, ReviewStore

log = logging.getLogger("umpire.server")

STATIC_DIR = Path(__file__).parent / "static"

# A 50-megapixel photo is already beyond any phone or webcam at a gaming table; past this a
# small compressed file could still decode to gigabytes (a "decompression bomb").
MAX_PIXELS = 50_000_000
THUMBNAIL_PX = 320
PHOTO_FORMATS = {"JPEG": ("jpg", "image/jpeg"), "PNG": ("png", "image/png"),
                 "WEBP": ("webp", "image/webp"), "BMP": ("bmp", "image/bmp"),
                 "TIFF": ("tif", "image/tiff")}

T = TypeVar("T")


# -- errors -----------------------------------------------------------------------------------


class ClientError(Exception):
    """A request we refuse: its status, a short code and a message naming the problem."""

    def __init__(self, status: int, error: str, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.status, self.error, self.detail, self.field = status, error, detail, field


def _error_response(status: int, error: str, detail: str, field: str | None = None,
                    errors: list[dict[str, Any]] | None = None) -> JSONResponse:
    body = m.ErrorBody(error=error, detail=detail, field=field, errors=errors)
    return JSONResponse(body.model_dump(exclude_none=True), status_code=status)


def _loc_text(loc: tuple[Any, ...] | list[Any]) -> str:
    """``('body', 'charges', 0, 'target')`` -> ``charges[0].target``: the field as a player
    reads it (the 'body'/'query' prefix says nothing to them)."""
    out = ""
    for part in loc:
        if part in ("body", "query", "path", "form") and not out:
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _validation_errors(errors: list[Any], prefix: tuple[str, ...] = ()) -> tuple[str, list]:
    items = []
    for e in errors:
        loc = [*prefix, *[p if isinstance(p, int) else str(p) for p in e.get("loc", ())]]
        items.append({"loc": loc, "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))})
    lines = []
    for it in items:
        where = _loc_text(it["loc"])
        line = f"{where}: {it['msg']}" if where else it["msg"]
        if line not in lines:
            lines.append(line)
    return "; ".join(lines) or "the request is not valid", items


# -- upload size limit ------------------------------------------------------------------------


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Refuse request bodies over ``max_bytes`` with 413, whether the client announced the
    length (refused before reading) or streams it chunked (refused once the count passes).

    It sits outside FastAPI because FastAPI turns any error while parsing a form into a 400; on
    overflow this layer drops whatever the app answered and sends the 413 itself.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    announced = int(value)
                except ValueError:
                    announced = -1
                if announced > self.max_bytes:
                    await self._refuse(send)
                    return
        received = 0
        exceeded = False
        started = False

        async def limited_receive() -> Message:
            nonlocal received, exceeded
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    exceeded = True
                    raise _TooLarge()
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if exceeded:
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            if not exceeded:
                raise
        if exceeded and not started:
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        limit_mb = self.max_bytes / 1_000_000
        body = m.ErrorBody(error="too_large",
                           detail=f"the upload is larger than the server's limit of "
                                  f"{limit_mb:g} MB (umpire serve --max-upload-mb)")
        payload = body.model_dump_json(exclude_none=True).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": payload})


# -- photos -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Photo:
    """A decoded upload: the original bytes (what is stored), the BGR pixels vision works on,
    and a small JPEG for lists."""

    data: bytes
    ext: str
    media_type: str
    bgr: np.ndarray
    thumbnail: bytes


def decode_photo(data: bytes, want_thumbnail: bool = True) -> Photo:
    """Decode an uploaded photo fully (Pillow), so a truncated or corrupt file is refused here
    with a message, not half-read into a grey image that detection then misreads.

    The EXIF orientation is applied, as a phone's own gallery shows the picture.
    """
    if not data:
        raise ClientError(400, "bad_photo", "photo: the file is empty", "photo")
    try:
        with Image.open(io.BytesIO(data)) as img:
            fmt = img.format or ""
            if fmt not in PHOTO_FORMATS:
                raise ClientError(415, "bad_photo",
                                  f"photo: {fmt or 'this'} images are not accepted "
                                  "(JPEG, PNG or WebP expected)", "photo")
            w, h = img.size
            if w * h > MAX_PIXELS:
                raise ClientError(413, "too_large",
                                  f"photo: {w} x {h} pixels is more than the "
                                  f"{MAX_PIXELS / 1e6:g} megapixels accepted", "photo")
            img.load()
            rgb = ImageOps.exif_transpose(img).convert("RGB")
    except ClientError:
        raise
    except UnidentifiedImageError:
        raise ClientError(415, "bad_photo", "photo: not an image (JPEG, PNG or WebP expected)",
                          "photo") from None
    except Image.DecompressionBombError as e:
        raise ClientError(413, "too_large", f"photo: {e}", "photo") from None
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


# -- parsing form fields ----------------------------------------------------------------------


async def _text(value: UploadFile | str, field: str) -> str:
    """A form field sent either as text or as a file (DESIGN.md: markers 'as a file or text')."""
    raw = value if isinstance(value, str) else await value.read()
    if isinstance(raw, bytes):
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ClientError(400, "bad_json", f"{field}: not UTF-8 text", field) from None
    return raw


def _json(text: str, field: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ClientError(400, "bad_json", f"{field}: not valid JSON ({e.msg} at line "
                                           f"{e.lineno}, column {e.colno})", field) from None
    except RecursionError:
        raise ClientError(400, "bad_json", f"{field}: JSON nested too deeply", field) from None


def _typed(adapter: TypeAdapter[T], value: Any, field: str) -> T:
    try:
        return adapter.validate_python(value)
    except ValidationError as e:
        detail, items = _validation_errors(e.errors(), (field,))
        raise ClientError(422, "invalid", detail, field) from None


_charges_adapter: TypeAdapter[list[m.ChargeDeclaration]] = TypeAdapter(
    list[m.ChargeDeclaration])
_dice_adapter: TypeAdapter[m.Dice] = TypeAdapter(m.Dice)


def _markers(text: str) -> dict[str, Any]:
    doc = _json(text, "markers")
    if not isinstance(doc, dict):
        raise ClientError(422, "invalid", "markers: must be a JSON object (DESIGN.md, markers."
                                          "json)", "markers")
    return doc


def detect_upload(data: bytes, marker_doc: dict[str, Any]) -> tuple[str, Any]:
    """Decode an uploaded photo and detect its scene, as one job for a worker process: only
    the bytes go in and the scene comes out (no decoded image crosses the process boundary).
    Errors come back as values, ``("client", (status, code, detail, field))`` or
    ``("engine", message)``, so nothing depends on pickling an exception."""
    try:
        pic = decode_photo(data, False)
    except ClientError as e:
        return "client", (e.status, e.error, e.detail, e.field)
    try:
        return "ok", vision.detect(pic.bgr, marker_doc)
    except ValueError as e:
        return "engine", str(e)


# -- the engine, off the event loop -----------------------------------------------------------


def _exit_with_parent() -> None:
    """Worker-process initializer: end this worker when the server process is gone. A server
    killed outright (SIGKILL, a crash) cannot shut its pool down, and a worker blocked waiting
    for jobs would otherwise outlive it."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


#: Photo worker processes run this much nicer than the server: a ruling is interactive (a few
#: milliseconds of CPU) while a photo takes ~100 ms and already waits in a queue, so when the
#: cores are busy the scheduler serves the ruling first (bench/load.py, BENCHMARKS.md).
PHOTO_WORKER_NICENESS = 5


def _photo_worker_init() -> None:
    """Worker-process initializer: lower this worker's CPU priority (PHOTO_WORKER_NICENESS)
    and end it with the server."""
    with contextlib.suppress(OSError, AttributeError):  # AttributeError: no os.nice here
        os.nice(PHOTO_WORKER_NICENESS)
    _exit_with_parent()


class Workers:
    """Runs blocking work in threads. Image work (decode, detect, draw) holds large arrays, so
    few run at once; rulings have their own pool so they never queue behind photos.

    With ``processes`` > 0, photo detection (``/api/detect``) runs in that many worker
    processes instead: the Python parts of detection then do not hold this process's GIL, so
    rulings answered meanwhile are not slowed by them (bench/load.py)."""

    def __init__(self, image_slots: int, rule_slots: int, processes: int = 0) -> None:
        self._slots = {"image": image_slots, "rule": rule_slots}
        self._limiters: dict[str, anyio.CapacityLimiter] = {}
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None

    def start(self) -> None:
        if self.processes > 0 and self._pool is None:
            # spawn, not fork: the server process already runs threads.
            self._pool = ProcessPoolExecutor(self.processes,
                                             mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_photo_worker_init)

    def stop(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    async def run_process(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker process when there are any, else in the image threads."""
        if self._pool is None:
            return await self.run("image", fn, *args)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, partial(fn, *args))

    async def run(self, pool: str, fn: Callable[..., T], *args: Any) -> T:
        limiter = self._limiters.get(pool)
        if limiter is None:  # created inside the running loop, as anyio wants
            limiter = self._limiters[pool] = anyio.CapacityLimiter(self._slots[pool])
        return await anyio.to_thread.run_sync(partial(fn, *args), limiter=limiter)


def _engine_error(e: ValueError, what: str) -> ClientError:
    detail = str(e) or type(e).__name__
    return ClientError(422, f"{what}_failed" if what == "detection" else "invalid", detail)


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


def _rules_scene(scene: dict[str, Any]) -> dict[str, Any]:
    """The scene as the rules see it: the detection report is for people, not for charges."""
    return {k: v for k, v in scene.items() if k != "detection"}


def _draw(photo: Photo, scene: dict[str, Any], ruling: dict[str, Any]) -> tuple[bytes, str]:
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


# -- the app ----------------------------------------------------------------------------------

# Module level: route signatures are resolved from their (postponed) annotations by name.
PhotoField = Annotated[UploadFile, File(description="The table photo (JPEG, PNG or WebP)")]
MarkersField = Annotated[UploadFile | str, File(
    description="The marker set, markers.json (DESIGN.md), as a file or as text")]


def _links(review_id: str) -> dict[str, str]:
    base = f"/api/reviews/{review_id}"
    return {"url": base, "overlay_url": f"{base}/overlay.png", "photo_url": f"{base}/photo",
            "thumbnail_url": f"{base}/thumbnail.jpg"}


def create_app(data_dir: Path, max_upload_mb: float = 25, detect_processes: int = 0) -> FastAPI:
    """The umpire server over the reviews stored in ``data_dir``.

    ``max_upload_mb`` bounds every request body (photos included), in MB of 10^6 bytes.
    """
    if not max_upload_mb > 0:
        raise ValueError(f"max_upload_mb: must be positive, not {max_upload_mb}")
    store = ReviewStore(Path(data_dir))
    cpus = os.cpu_count() or 2
    # Photos get one core fewer than the machine has: rulings and the event loop keep a core
    # of their own, so a queue of detections does not push ruling latency up (bench/load.py:
    # on 2 cores this halved the rulings' p50 under the mixed load). Rulings are pure Python
    # and share this process's GIL with the event loop: two at a time, so one slow ruling
    # does not hold up the rest, while the event loop keeps a fair share of the GIL to take
    # requests and send answers (four at a time measured a higher p99 under the same load).
    workers = Workers(image_slots=max(1, cpus - 1), rule_slots=2,
                      processes=detect_processes)
    error_responses: dict[int | str, dict[str, Any]] = {
        code: {"model": m.ErrorBody, "description": text} for code, text in (
            (400, "Malformed input: broken JSON, a broken image file"),
            (413, "Upload larger than the server's limit"),
            (415, "Not an image"),
            (422, "Well-formed but wrong: a field of the wrong type, an unknown unit, "
                  "a photo where the table cannot be found"))}
    not_found: dict[int | str, dict[str, Any]] = {
        404: {"model": m.ErrorBody, "description": "No such review"},
        422: {"model": m.ErrorBody, "description": "A parameter of the wrong type"}}

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        workers.start()
        try:
            yield
        finally:
            workers.stop()
            store.close()  # a clean stop; a killed server needs nothing (server/storage.py)

    app = FastAPI(
        lifespan=lifespan,
        title="umpire",
        version="0.1.0",
        summary="Settles charges in rank-and-file wargames from a photo of the table.",
        description="Detect the units in a photo, rule declared charges, and keep reviews for "
                    "after the game. Distances in mm inside, inches at the rules' interface. "
                    "Every error answers a JSON body naming the field or file at fault.",
    )
    app.state.store = store
    app.add_middleware(BodyLimit, max_bytes=int(max_upload_mb * 1_000_000))

    @app.exception_handler(ClientError)
    async def _client_error(_: Request, e: ClientError) -> JSONResponse:
        return _error_response(e.status, e.error, e.detail, e.field)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, e: RequestValidationError) -> JSONResponse:
        detail, items = _validation_errors(list(e.errors()))
        return _error_response(422, "invalid", detail, errors=items)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, e: StarletteHTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed", 400: "bad_request"}
        resp = _error_response(e.status_code, codes.get(e.status_code, "http_error"),
                               str(e.detail))
        if e.headers:
            resp.headers.update(e.headers)
        return resp

    @app.exception_handler(Exception)
    async def _internal(request: Request, e: Exception) -> JSONResponse:
        # A bug of ours, never the client's: logged with its traceback, answered as JSON.
        log.exception("internal error on %s %s", request.method, request.url.path)
        return _error_response(500, "internal", f"internal error ({type(e).__name__}); the "
                                                "server log has the details")

    async def detect_photo(photo: UploadFile, markers: UploadFile | str,
                           want_thumbnail: bool) -> tuple[Photo, dict[str, Any], dict[str, Any]]:
        marker_doc = _markers(await _text(markers, "markers"))
        pic = await workers.run("image", decode_photo, await photo.read(), want_thumbnail)
        try:
            scene = await workers.run("image", vision.detect, pic.bgr, marker_doc)
        except ValueError as e:
            raise _engine_error(e, "detection") from None
        return pic, marker_doc, scene

    async def rule(request: dict[str, Any]) -> dict[str, Any]:
        try:
            return await workers.run("rule", charges.rule, request)
        except ValueError as e:
            raise _engine_error(e, "ruling") from None

    # -- API ------------------------------------------------------------------------------

    @app.post("/api/detect", response_model=m.DetectedScene, responses=error_responses,
              tags=["detection"], summary="Find the table and every unit in a photo")
    async def detect(photo: PhotoField,
                     markers: MarkersField) -> Any:
        """The scene seen in the photo, with the detection report (markers seen, homography)."""
        marker_doc = _markers(await _text(markers, "markers"))
        status, value = await workers.run_process(detect_upload, await photo.read(), marker_doc)
        if status == "client":
            raise ClientError(*value)
        if status == "engine":
            raise _engine_error(ValueError(value), "detection")
        scene = value
        try:
            m.DetectedScene.model_validate(scene)
        except ValidationError as e:
            # The scene's only client-made parts come from the marker set (unit fields,
            # terrain): a scene of the wrong shape is the marker set's fault, not ours.
            detail, _ = _validation_errors(e.errors())
            raise ClientError(422, "invalid", f"markers: the scene they describe is not valid: "
                                              f"{detail}", "markers") from None
        return scene

    @app.post("/api/rulings", response_model=m.Ruling, responses=error_responses,
              tags=["rulings"], summary="Rule declared charges on a scene")
    async def rulings(request: m.RulingRequest) -> Any:
        """The ruling of DESIGN.md. Without dice it gives the odds only (``outcome`` null)."""
        return await rule(request.model_dump(mode="json", exclude_unset=True,
                                             exclude_none=False) | {"ruleset": request.ruleset})

    @app.post("/api/reviews", status_code=201, response_model=m.Review,
              responses=error_responses, tags=["reviews"],
              summary="Detect, rule and store a review of a photo")
    async def create_review(
        photo: PhotoField,
        markers: MarkersField,
        charges_: Annotated[str, Form(alias="charges", description='JSON list of '
                                      '{"charger", "target"}',
                                      examples=['[{"charger": "knights", "target": "spears"}]'])],
        dice: Annotated[str | None, Form(description='JSON object: dice per charger, e.g. '
                                         '{"knights": [3, 5]}')] = None,
        ruleset: Annotated[str, Form(description="Ruleset id")] = "t9a-1",
    ) -> Any:
        """Stored for post-game review: the photo, its scene, the ruling and the overlay. The
        answer (201) comes only once everything is durably on disk."""
        declared = _typed(_charges_adapter, _json(charges_, "charges"), "charges")
        if not declared:
            raise ClientError(422, "invalid", "charges: declare at least one charge", "charges")
        rolled = None
        if dice is not None and dice.strip():
            rolled = _typed(_dice_adapter, _json(dice, "dice"), "dice")
        pic, marker_doc, scene = await detect_photo(photo, markers, want_thumbnail=True)
        request: dict[str, Any] = {"ruleset": ruleset, "scene": _rules_scene(scene),
                                   "charges": [c.model_dump() for c in declared]}
        if rolled is not None:
            request["dice"] = rolled
        ruling = await rule(request)
        png, kind = await workers.run("image", _draw, pic, scene, ruling)
        stored_request = {k: v for k, v in request.items() if k != "scene"}
        stored_request["overlay_kind"] = kind
        review = await workers.run(
            "image", partial(store.add, photo=Blob(pic.data, pic.ext),
                             photo_type=pic.media_type, overlay=Blob(png, "png"),
                             thumbnail=Blob(pic.thumbnail, "jpg"), markers=marker_doc,
                             request=stored_request, scene=scene, ruling=ruling))
        return _review_out(review)

    def _review_out(r: Any) -> dict[str, Any]:
        return {"id": r.id, "created_at": r.created_at,
                "ruleset": r.request.get("ruleset", "t9a-1"),
                "charges": r.request.get("charges", []), "dice": r.request.get("dice"),
                "scene": r.scene, "ruling": r.ruling,
                "overlay_kind": r.request.get("overlay_kind", "photo"), **_links(r.id)}

    @app.get("/api/reviews", response_model=m.ReviewList, responses=error_responses,
             tags=["reviews"], summary="Stored reviews, newest first")
    async def list_reviews(
        limit: Annotated[int, Query(ge=1, le=200, description="Page size")] = 50,
        before: Annotated[int | None, Query(ge=1, description="next_before of the previous "
                                                              "page")] = None,
    ) -> Any:
        rows = await anyio.to_thread.run_sync(store.list, limit, before)
        out = []
        for r in rows:
            outcomes = {(c.get("charger"), c.get("target")): c.get("outcome")
                        for c in r.ruling.get("charges", []) if isinstance(c, dict)}
            out.append({"id": r.id, "created_at": r.created_at,
                        "ruleset": r.request.get("ruleset", "t9a-1"),
                        "charges": [{**c, "outcome": outcomes.get((c["charger"], c["target"]))}
                                    for c in r.request.get("charges", [])],
                        **_links(r.id)})
        next_before = rows[-1].seq if len(rows) == limit else None
        return {"reviews": out, "next_before": next_before}

    async def _find(review_id: str) -> Any:
        r = await anyio.to_thread.run_sync(store.get, review_id)
        if r is None:
            raise ClientError(404, "not_found", f"review {review_id!r}: no such review", "id")
        return r

    @app.get("/api/reviews/{review_id}", response_model=m.Review, responses=not_found,
             tags=["reviews"], summary="One stored review")
    async def get_review(review_id: str) -> Any:
        return _review_out(await _find(review_id))

    def _file(name: str, media_type: str) -> FileResponse:
        # Content-addressed: the bytes behind a name never change, so caches may keep them.
        return FileResponse(store.file_path(name), media_type=media_type,
                            headers={"Cache-Control": "public, max-age=31536000, immutable",
                                     "ETag": f'"{name.split(".")[0]}"'})

    @app.get("/api/reviews/{review_id}/overlay.png", response_class=FileResponse,
             responses={200: {"content": {"image/png": {}}}, **not_found}, tags=["reviews"],
             summary="The ruling drawn on the photo (or on a plan)")
    async def review_overlay(review_id: str) -> FileResponse:
        return _file((await _find(review_id)).overlay, "image/png")

    @app.get("/api/reviews/{review_id}/photo", response_class=FileResponse,
             responses={200: {"content": {"image/*": {}}}, **not_found}, tags=["reviews"],
             summary="The photo as uploaded")
    async def review_photo(review_id: str) -> FileResponse:
        r = await _find(review_id)
        return _file(r.photo, r.photo_type)

    @app.get("/api/reviews/{review_id}/thumbnail.jpg", response_class=FileResponse,
             responses={200: {"content": {"image/jpeg": {}}}, **not_found}, tags=["reviews"],
             summary="A small JPEG of the photo")
    async def review_thumbnail(review_id: str) -> FileResponse:
        return _file((await _find(review_id)).thumbnail, "image/jpeg")

    @app.get("/api/odds", response_model=m.Odds, responses=error_responses, tags=["rulings"],
             summary="The roll needed for a distance and its exact chance")
    async def get_odds(
        advance: Annotated[float, Query(description="The charger's Advance rate, inches")],
        distance: Annotated[float, Query(description="Distance to the target, inches")],
        swiftstride: Annotated[bool, Query(description="Best two of 3D6 instead of 2D6")]
            = False,
        ruleset: Annotated[str, Query(description="Ruleset id")] = "t9a-1",
    ) -> Any:
        """What ``umpire odds`` prints, as JSON (no scene needed)."""
        try:
            report = charges.odds(advance, distance, swiftstride=swiftstride, ruleset=ruleset)
        except ValueError as e:
            raise _engine_error(e, "odds") from None
        return report.to_json()

    @app.get("/api/rulesets", response_model=m.RulesetList, tags=["rulings"],
             summary="The rulesets this server can rule with")
    async def rulesets() -> Any:
        return {"rulesets": [{"name": r.name, "title": r.title}
                             for r in charges.RULESETS.values()], "default": "t9a-1"}

    # -- the web page ---------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        return Response(status_code=204)

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


