"""Durability (issue 5): a server killed with SIGKILL while reviews are being posted keeps every
review it acknowledged, with all its files, and leaves no row pointing to a missing file."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest

from server.storage import ReviewStore

from .conftest import a_charge, roll
from .live import start_server


def photo_variants(photo: bytes, n: int) -> list[bytes]:
    """The sample photo re-encoded at different JPEG qualities: the same table, different
    bytes, so every review writes new content-addressed files."""
    img = cv2.imdecode(np.frombuffer(photo, np.uint8), cv2.IMREAD_COLOR)
    return [cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 70 + i % 30])[1].tobytes()
            for i in range(n)]


def test_acknowledged_reviews_survive_sigkill(tmp_path: Path, sample_photo: bytes,
                                              sample_markers_text: str, detected: dict):
    data = tmp_path / "data"
    log = tmp_path / "server.log"
    charger, target = a_charge(detected)
    dice = json.dumps({charger: roll(detected, charger, 3, 4, 5)})
    photos = photo_variants(sample_photo, 40)
    acked: dict[str, dict] = {}  # id -> the 201 body
    sent: dict[str, bytes] = {}  # id -> the photo bytes sent
    lock = threading.Lock()
    stop = threading.Event()
    server = start_server(data, log)

    def client(k: int) -> None:
        with httpx.Client(base_url=server.url, timeout=60) as c:
            i = k
            while not stop.is_set() and i < len(photos):
                try:
                    r = c.post("/api/reviews",
                               files={"photo": ("t.jpg", photos[i], "image/jpeg")},
                               data={"markers": sample_markers_text,
                                     "charges": json.dumps([{"charger": charger,
                                                             "target": target}]),
                                     "dice": dice})
                except httpx.HTTPError:
                    return  # the server died under this request: not acknowledged
                assert r.status_code == 201, r.text
                with lock:
                    acked[r.json()["id"]] = r.json()
                    sent[r.json()["id"]] = photos[i]
                i += 3

    threads = [threading.Thread(target=client, args=(k,)) for k in range(3)]
    try:
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60
        while len(acked) < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
        # Kill while the three clients have requests in flight (mid-stream).
        server.kill()
        stop.set()
        for t in threads:
            t.join(timeout=60)
    finally:
        stop.set()
        server.kill()
    assert len(acked) >= 4, f"only {len(acked)} reviews acknowledged; log:\n{log.read_text()}"

    # The folder on its own is consistent: every row's files exist and hash to their names.
    store = ReviewStore(data)
    assert store.verify() == []
    assert store.count() >= len(acked)
    store.close()

    server = start_server(data, log)
    try:
        with httpx.Client(base_url=server.url, timeout=30) as c:
            for rid, body in acked.items():
                r = c.get(f"/api/reviews/{rid}")
                assert r.status_code == 200, (rid, r.text)
                assert r.json()["ruling"] == body["ruling"]
                photo = c.get(body["photo_url"])
                assert photo.status_code == 200 and photo.content == sent[rid]
                overlay = c.get(body["overlay_url"])
                assert overlay.status_code == 200 and overlay.content.startswith(b"\x89PNG")
                etag = overlay.headers["etag"].strip('"')
                assert hashlib.sha256(overlay.content).hexdigest() == etag
                assert c.get(body["thumbnail_url"]).status_code == 200
            listed = {x["id"] for x in c.get("/api/reviews", params={"limit": 200})
                      .json()["reviews"]}
            assert set(acked) <= listed
            # And the restarted server takes new reviews.
            r = c.post("/api/reviews", files={"photo": ("t.jpg", sample_photo, "image/jpeg")},
                       data={"markers": sample_markers_text,
                             "charges": json.dumps([{"charger": charger, "target": target}])})
            assert r.status_code == 201, r.text
    finally:
        server.stop()


def _children(pid: int) -> set[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.add(int(stat.parent.name))
    return out


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to list child processes")
def test_detection_workers_do_not_outlive_a_killed_server(tmp_path: Path, sample_photo: bytes,
                                                          sample_markers_text: str):
    """A server killed outright cannot shut its photo workers down; they end on their own."""
    server = start_server(tmp_path / "data", tmp_path / "server.log")
    try:
        r = httpx.post(f"{server.url}/api/detect", timeout=60,
                       files={"photo": ("t.jpg", sample_photo, "image/jpeg")},
                       data={"markers": sample_markers_text})
        assert r.status_code == 200, r.text
        workers = _children(server.proc.pid)
        assert workers, "the server started no worker process"
    finally:
        server.kill()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() for p in workers):
        time.sleep(0.2)
    alive = [p for p in workers if Path(f"/proc/{p}/stat").exists()
             and Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"]
    assert not alive, f"worker processes {alive} outlived the killed server"
