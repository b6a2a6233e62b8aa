"""What the routes share, through ``Depends`` (FastAPI's bigger-applications pattern): the
workers and the review store that :func:`server.app.create_app` keeps on ``app.state``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from server.errors import ClientError
from server.storage import ReviewStore
from server.workers import Workers


def _workers(request: Request) -> Workers:
    return request.app.state.workers


def _store(request: Request) -> ReviewStore:
    return request.app.state.store


WorkersDep = Annotated[Workers, Depends(_workers)]
StoreDep = Annotated[ReviewStore, Depends(_store)]


def single_query_values(request: Request) -> None:
    """Refuse a query parameter given twice (``?ruleset=tow&ruleset=whfb8``): every parameter
    of this API takes one value, and taking the last one silently would rule on something the
    client may not have meant. Every route depends on it (:func:`server.app.create_app`)."""
    seen: set[str] = set()
    for name, _ in request.query_params.multi_items():
        if name in seen:
            count = len(request.query_params.getlist(name))
            raise ClientError(422, "invalid", f"{name}: given {count} times in the query; "
                              "give it once", name)
        seen.add(name)
