"""Photo worker processes (``umpire serve --detect-processes``): one detection path for
``/api/detect`` and ``/api/reviews`` (issue 11), a lower CPU priority, and a server that goes on
when a worker dies."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import anyio
import pytest
from fastapi.testclient import TestClient
from PIL import Image

from server.app import create_app
from server.workers import PHOTO_WORKER_NICENESS, WorkerLost, Workers

from .conftest import a_charge, roll
from .test_api import PNG_MAGIC, assert_error, review_form


def test_photo_workers_run_nicer_than_the_server():
    """Photo worker processes lower their CPU priority by PHOTO_WORKER_NICENESS, so a ruling
    asked while the cores are busy with photos is served first (bench/load.py)."""
    workers = Workers(image_slots=1, rule_slots=1, processes=1)
    workers.start()
    try:
        worker = anyio.run(workers.run_process, os.nice, 0)
    finally:
        workers.stop()
    assert worker == min(os.nice(0) + PHOTO_WORKER_NICENESS, 19)


def test_detection_in_a_worker_process_gives_the_same_answers(tmp_path, sample_photo,
                                                               sample_markers_text, detected):
    """``umpire serve`` detects photos in worker processes (so photos do not hold the server's
    GIL while rulings are answered): the scene and every refusal are as in the threads."""
    plain = io.BytesIO()
    Image.new("RGB", (640, 480), (120, 130, 90)).save(plain, "PNG")
    with TestClient(create_app(tmp_path, detect_processes=1),
                    raise_server_exceptions=False) as c:
        r = c.post("/api/detect", files={"photo": ("table.jpg", sample_photo, "image/jpeg")},
                   data={"markers": sample_markers_text})
        assert r.status_code == 200, r.text
        assert r.json()["units"] == detected["units"]
        r = c.post("/api/detect", files={"photo": ("t.jpg", b"not a photo", "image/jpeg")},
                   data={"markers": sample_markers_text})
        assert_error(r, 415, "photo", "not an image")
        r = c.post("/api/detect", files={"photo": ("t.jpg", sample_photo[:5000], "image/jpeg")},
                   data={"markers": sample_markers_text})
        assert_error(r, 400, "photo", "broken")
        r = c.post("/api/detect", files={"photo": ("plain.png", plain.getvalue(), "image/png")},
                   data={"markers": sample_markers_text})
        assert 400 <= r.status_code < 500 and r.json()["detail"]


def test_reviews_detect_and_draw_in_the_worker_processes(tmp_path: Path, sample_photo: bytes,
                                                         sample_markers_text: str,
                                                         detected: dict):
    """``POST /api/reviews`` sends its photo to the same worker processes as ``/api/detect``
    (the same job, ``detect_upload``), and its drawing too: the server process decodes no
    photo. The review holds the scene that ``/api/detect`` finds."""
    charger, target = a_charge(detected)
    app = create_app(tmp_path, detect_processes=1)
    with TestClient(app, raise_server_exceptions=False) as c:
        jobs = app.state.workers.process_jobs
        r = c.post("/api/detect", files={"photo": ("table.jpg", sample_photo, "image/jpeg")},
                   data={"markers": sample_markers_text})
        assert r.status_code == 200, r.text
        assert dict(jobs) == {"detect_upload": 1}
        r = c.post("/api/reviews", **review_form(
            sample_photo, sample_markers_text, [{"charger": charger, "target": target}],
            {charger: roll(detected, charger, 4, 5, 2)}))
        assert r.status_code == 201, r.text
        assert dict(jobs) == {"detect_upload": 2, "render_upload": 1}
        review = r.json()
        assert review["scene"]["units"] == detected["units"]
        assert review["overlay_kind"] == "photo"
        assert c.get(review["overlay_url"]).content.startswith(PNG_MAGIC)
        assert c.get(review["photo_url"]).content == sample_photo
        thumb = Image.open(io.BytesIO(c.get(review["thumbnail_url"]).content))
        assert max(thumb.size) == 320
        # A photo refused in the worker is refused the same way for a review.
        r = c.post("/api/reviews", **review_form(
            b"not a photo", sample_markers_text, [{"charger": charger, "target": target}]))
        assert_error(r, 415, "photo", "not an image")
        assert jobs["detect_upload"] == 3 and jobs["render_upload"] == 1


def test_a_dead_worker_is_replaced():
    """A worker process that dies in a job (a crashing decoder, the OOM killer) breaks its
    pool: the job fails with WorkerLost (answered 503) and the next job runs in a new pool."""
    workers = Workers(image_slots=1, rule_slots=1, processes=1)
    workers.start()
    try:
        with pytest.raises(WorkerLost):
            anyio.run(workers.run_process, os._exit, 3)
        pid = anyio.run(workers.run_process, os.getpid)
    finally:
        workers.stop()
    assert pid != os.getpid()


def test_openapi_says_photo_routes_may_answer_503(client: TestClient):
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/detect", "/api/reviews"):
        body = paths[path]["post"]["responses"]["503"]["content"]["application/json"]
        assert body["schema"] == {"$ref": "#/components/schemas/ErrorBody"}
    assert json.dumps(paths["/api/rulings"]["post"]["responses"]).count("503") == 0
