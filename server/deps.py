"""What the routes share, through ``Depends`` (FastAPI's bigger-applications pattern): the
workers and the review store that :func:`server.app.create_app` keeps on ``app.state``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from server.storage import ReviewStore
from server.workers import Workers


def _workers(request: Request) -> Workers:
    return request.app.state.workers


def _store(request: Request) -> ReviewStore:
    return request.app.state.store


WorkersDep = Annotated[Workers, Depends(_workers)]
StoreDep = Annotated[ReviewStore, Depends(_store)]
