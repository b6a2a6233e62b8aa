"""Refusals as JSON (DESIGN.md, HTTP: "Bad input answers 4xx with a JSON body naming the
problem; it never answers 500 for anything a client sent").

Every way a request can be wrong ends in a :class:`ClientError` or a validation error, and both
become an :class:`server.models.ErrorBody`. Engine errors are ``ValueError`` subclasses naming
the field (DESIGN.md, Python API) and become 422.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from server import models as m

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
    for part in loc:
        if part in ("body", "query", "path", "form") and not out:
            continue
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
        items.append({"loc": loc, "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))})
    lines = []
    for it in items:
        where = loc_text(it["loc"])
        line = f"{where}: {it['msg']}" if where else it["msg"]
        if line not in lines:
            lines.append(line)
    return "; ".join(lines) or "the request is not valid", items


def engine_error(e: ValueError, what: str) -> ClientError:
    """A ``ValueError`` from ``charges`` or ``vision``: the client's input was wrong (422)."""
    detail = str(e) or type(e).__name__
    return ClientError(422, f"{what}_failed" if what == "detection" else "invalid", detail)


#: The refusals of every operation that takes a body or parameters, for the OpenAPI.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {"model": m.ErrorBody, "description": text} for code, text in (
        (400, "Malformed input: broken JSON, a broken image file"),
        (413, "Upload larger than the server's limit"),
        (415, "Not an image"),
        (422, "Well-formed but wrong: a field of the wrong type, an unknown unit, "
              "a photo where the table cannot be found"))}

#: The refusals of the operations that read one stored review.
NOT_FOUND_RESPONSES: dict[int | str, dict[str, Any]] = {
    404: {"model": m.ErrorBody, "description": "No such review"},
    422: {"model": m.ErrorBody, "description": "A parameter of the wrong type"}}


def install_error_handlers(app: FastAPI) -> None:
    """Turn every exception a route can raise into its JSON answer."""

    @app.exception_handler(ClientError)
    async def _client_error(_: Request, e: ClientError) -> JSONResponse:
        return error_response(e.status, e.error, e.detail, e.field)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, e: RequestValidationError) -> JSONResponse:
        detail, items = validation_errors(list(e.errors()))
        return error_response(422, "invalid", detail, errors=items)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, e: StarletteHTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed", 400: "bad_request"}
        resp = error_response(e.status_code, codes.get(e.status_code, "http_error"),
                              str(e.detail))
        if e.headers:
            resp.headers.update(e.headers)
        return resp

    @app.exception_handler(Exception)
    async def _internal(request: Request, e: Exception) -> JSONResponse:
        # A bug of ours, never the client's: logged with its traceback, answered as JSON.
        log.exception("internal error on %s %s", request.method, request.url.path)
        return error_response(500, "internal", f"internal error ({type(e).__name__}); the "
                                               "server log has the details")
