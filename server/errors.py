"""Refusals as JSON (DESIGN.md, HTTP: "Bad input answers 4xx with a JSON body naming the
problem; it never answers 500 for anything a client sent").

Every way a request can be wrong ends in a :class:`ClientError` or a validation error, and both
become an :class:`server.models.ErrorBody`. Engine errors are ``ValueError`` subclasses naming
the field (DESIGN.md, Python API) and become 422.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException

from server import models as m
from server.workers import WorkerLost

log = logging.getLogger("umpire.server")


class ClientError(Exception):
    """A request we refuse: its status, a short code and a message naming the problem."""

    def __init__(self, status: int, error: str, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.status, self.error, self.detail, self.field = status, error, detail, field


def error_response(status: int, error: str, detail: str, field: str | None = None,
                   errors: list[dict[str, Any]] | None = None) -> JSONResponse:
    body = m.ErrorBody(error=error, detail=detail, field=field, errors=errors)
    return JSONResponse(body.model_dump(exclude_none=True), status_code=status)


def loc_text(loc: tuple[Any, ...] | list[Any]) -> str:
    """``('body', 'charges', 0, 'target')`` -> ``charges[0].target``: the field as a player
    reads it (the 'body'/'query' prefix says nothing to them)."""
    out = ""
    for i, part in enumerate(loc):
        if i == 0 and part in ("body", "query", "path", "form"):
            continue  # where it came from; a field of the body may itself be called "path"
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def validation_errors(errors: list[Any], prefix: tuple[str, ...] = ()) -> tuple[str, list]:
    """Pydantic's errors as one sentence (each field once) and as :class:`FieldError` items."""
    items = []
    for e in errors:
        loc = [*prefix, *[p if isinstance(p, int) else str(p) for p in e.get("loc", ())]]
        msg = str(e.get("msg", "")).removeprefix("Value error, ")
        if msg.startswith("Expected UploadFile"):  # FastAPI's words for a text part
            msg = "must be sent as a file (a form part with a filename), not as a text field"
        if e.get("type") == "json_invalid":  # loc is ('body', character): say so
            at = next((p for p in loc if isinstance(p, int)), None)
            loc = ["body"]
            msg = "not valid JSON" + (f" (at character {at})" if at is not None else "")
        items.append({"loc": loc, "msg": msg, "type": str(e.get("type", ""))})
    lines = []
    for it in items:
        where = loc_text(it["loc"]) or ("body" if list(it["loc"]) == ["body"] else "")
        line = f"{where}: {it['msg']}" if where else it["msg"]
        if line not in lines:
            lines.append(line)
    return "; ".join(lines) or "the request is not valid", items


#: What FastAPI answers (400) when reading a body raised anything but a JSON syntax error.
FASTAPI_UNREADABLE_BODY = "There was an error parsing the body"


def unreadable_json(e: BaseException, field: str) -> str | None:
    """Why a JSON text that is not a syntax error could still not be read, in plain words
    naming ``field``: bytes that are not UTF-8, nesting deeper than Python's JSON reader goes,
    an integer longer than it converts (``sys.get_int_max_str_digits``). None for anything
    else."""
    if isinstance(e, UnicodeDecodeError):
        code = "UTF-8" if e.encoding.replace("-", "").lower() == "utf8" else e.encoding.upper()
        return (f"{field}: not {code} text (byte {e.start} cannot be read); send JSON as "
                f"UTF-8 text")
    if isinstance(e, RecursionError):
        return f"{field}: JSON nested too deeply to be read"
    if isinstance(e, ValueError) and "digits" in str(e):
        return (f"{field}: a number has more than {sys.get_int_max_str_digits()} digits, "
                f"more than can be read")
    return None


def engine_error(e: ValueError, what: str) -> ClientError:
    """A ``ValueError`` from ``charges`` or ``vision``: the client's input was wrong (422)."""
    detail = str(e) or type(e).__name__
    return ClientError(422, f"{what}_failed" if what == "detection" else "invalid", detail)


#: What each refusal means, for the OpenAPI of the operations that can answer it.
REFUSALS: dict[int, str] = {
    400: "Malformed input: a body or form field that is not JSON text, an empty or broken "
         "image file",
    404: "No such review",
    413: "The request body is larger than the server's limit (umpire serve --max-upload-mb), "
         "or the photo has more pixels than accepted",
    415: "The photo is not an image of an accepted format (JPEG, PNG, WebP, BMP or TIFF)",
    422: "Well-formed but wrong: a field or parameter of the wrong type or out of range, an "
         "unknown unit, units overlapping, a photo where the table cannot be found",
    503: "The photo worker process stopped; a new one has been started, so try again",
}


def refusals(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of these refusals, each with its :class:`ErrorBody`. Every
    operation can answer 413: the size limit applies to any request with a body."""
    return {code: {"model": m.ErrorBody, "description": REFUSALS[code]}
            for code in sorted({413, *codes})}


def allowed_methods(request: Request) -> list[str]:
    """Every method some route answers at this request's path, for the ``Allow`` header of a
    405 (RFC 9110, 15.5.6). Starlette names only the methods of the first route that matches
    the path, so ``PUT /api/reviews`` would be told ``Allow: POST`` and not ``GET, POST``.
    The routes are those :func:`server.app.create_app` lists on ``app.state.routes``."""
    path = request.scope.get("path", "")
    methods: set[str] = set()
    for route in getattr(request.app.state, "routes", ()):
        if isinstance(route, APIRoute) and route.path_regex.match(path):
            methods |= route.methods
    if "GET" in methods:
        methods.add("HEAD")  # answered as GET without the body (server/head.py)
    return sorted(methods)


def install_error_handlers(app: FastAPI) -> None:
    """Turn every exception a route can raise into its JSON answer."""

    @app.exception_handler(ClientError)
    async def _client_error(_: Request, e: ClientError) -> JSONResponse:
        return error_response(e.status, e.error, e.detail, e.field)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        detail, items = validation_errors(list(e.errors()))
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind and kind != "application/json" and not kind.startswith("multipart/") and \
                any(list(it["loc"]) == ["body"] for it in items):
            # The body was not read as JSON at all: say why, not that it is no object.
            detail = f"body: send it as JSON (Content-Type: application/json), not {kind}"
        return error_response(422, "invalid", detail, errors=items)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, e: StarletteHTTPException) -> JSONResponse:
        if e.status_code == 400 and e.detail == FASTAPI_UNREADABLE_BODY:
            # FastAPI read the body and it raised (raised from the error): say what it was.
            cause = e.__cause__
            detail = (unreadable_json(cause, "body") if cause is not None else None) or \
                f"body: cannot be read as JSON ({type(cause).__name__ if cause else 'unknown'})"
            return error_response(400, "bad_json", detail, "body")
        codes = {404: "not_found", 405: "method_not_allowed", 400: "bad_request"}
        resp = error_response(e.status_code, codes.get(e.status_code, "http_error"),
                              str(e.detail))
        if e.headers:
            resp.headers.update(e.headers)
        if e.status_code == 405:
            allowed = allowed_methods(request)
            if allowed:
                resp.headers["Allow"] = ", ".join(allowed)
        return resp

    @app.exception_handler(WorkerLost)
    async def _worker_lost(_: Request, e: WorkerLost) -> JSONResponse:
        log.error("a photo worker process died during %s; a new pool was started", e)
        return error_response(503, "worker_lost", "the photo worker stopped while working on "
                                                  "this request; a new one has been started, "
                                                  "so try again")

    @app.exception_handler(Exception)
    async def _internal(request: Request, e: Exception) -> JSONResponse:
        # A bug of ours, never the client's: logged with its traceback, answered as JSON.
        log.exception("internal error on %s %s", request.method, request.url.path)
        return error_response(500, "internal", f"internal error ({type(e).__name__}); the "
                                               "server log has the details")
