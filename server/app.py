"""The HTTP API and the web page (DESIGN.md, HTTP; issue 5), assembled from one router per area
(FastAPI's bigger-applications pattern): ``routes_detect``, ``routes_rulings``,
``routes_reviews`` and ``routes_page``. A new area is one module with a ``router`` and one
line in :data:`ROUTERS`.

Routes are thin: they parse and check the shape of what a client sent, then hand the work to
``vision`` (photo -> scene, ruling -> picture) and ``charges`` (scene -> ruling). No rule and no
geometry lives here. Three promises shape the code:

- Nothing a client sends produces a 500: every way a request can be wrong ends in a 4xx whose
  JSON body (:class:`server.models.ErrorBody`) names the field or file at fault
  (``server.errors``).
- Uploads are bounded: a body over ``max_upload_mb`` is refused with 413 before it is parsed
  (:class:`server.body_limit.BodyLimit`), and photos with absurd pixel counts are refused
  before decoding (``server.photos``).
- The event loop never computes: decoding, detection, rulings and drawing run on workers
  behind capacity limiters (``server.workers``), so one slow photo does not stall the other
  requests.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import APIRouter, Depends, FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from server import routes_detect, routes_hex, routes_page, routes_reviews, routes_rulings
from server.body_limit import BodyLimit
from server.deps import single_query_values
from server.errors import install_error_handlers
from server.head import HeadAsGet
from server.openapi import install_openapi
from server.routes_page import STATIC_DIR
from server.storage import ReviewStore
from server.workers import PHOTO_WORKER_NICENESS, Workers

__all__ = ["PHOTO_WORKER_NICENESS", "ROUTERS", "Workers", "create_app"]

#: One router per area; a new area is one more line here.
ROUTERS: list[APIRouter] = [
    routes_detect.router,
    routes_rulings.router,
    routes_reviews.router,
    routes_page.router,
    routes_hex.router,
]


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

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        workers.start()
        try:
            yield
        finally:
            workers.stop()
            store.close()  # a clean stop; a killed server needs nothing (server/storage.py)

    # /docs and /redoc from files shipped with fastapi-offline, not a CDN: the server is used
    # at tables with no internet.
    app = FastAPIOffline(
        lifespan=lifespan,
        dependencies=[Depends(single_query_values)],
        title="umpire",
        version="0.1.0",
        summary="Settles charges in rank-and-file wargames from a photo of the table.",
        description="Detect the units in a photo, rule declared charges, and keep reviews for "
                    "after the game. Distances in mm inside, inches at the rules' interface. "
                    "Every error answers a JSON body naming the field or file at fault.",
    )
    app.state.store, app.state.workers = store, workers
    app.add_middleware(BodyLimit, max_bytes=int(max_upload_mb * 1_000_000))
    app.add_middleware(HeadAsGet)
    install_error_handlers(app)
    install_openapi(app)
    for router in ROUTERS:
        app.include_router(router)
    app.state.routes = [route for router in ROUTERS for route in router.routes]
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app
