"""Review storage (issue 5): SQLite in WAL mode, files named by content hash, files durable
before the row that names them, and everything committed still there after reopening."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from server.storage import Blob, ReviewStore


def add(store: ReviewStore, n: int = 0, photo: bytes | None = None):
    return store.add(photo=Blob(photo or f"photo {n}".encode(), "jpg"), photo_type="image/jpeg",
                     overlay=Blob(f"overlay {n}".encode(), "png"),
                     thumbnail=Blob(f"thumb {n}".encode(), "jpg"),
                     markers={"dictionary": "DICT_4X4_50"},
                     request={"ruleset": "t9a-1",
                              "charges": [{"charger": "knights", "target": "spears"}]},
                     scene={"units": []}, ruling={"ruleset": "t9a-1", "charges": [],
                                                  "units": [], "n": n})


def test_database_is_in_wal_mode_with_full_sync(tmp_path: Path):
    store = ReviewStore(tmp_path)
    add(store)
    db = sqlite3.connect(tmp_path / "reviews.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_files_are_named_by_sha256_of_their_bytes(tmp_path: Path):
    store = ReviewStore(tmp_path)
    r = add(store)
    for name, data in ((r.photo, b"photo 0"), (r.overlay, b"overlay 0"), (r.thumbnail, b"thumb 0")):
        assert name.split(".")[0] == hashlib.sha256(data).hexdigest()
        assert store.file_path(name).read_bytes() == data
    assert store.verify() == []


def test_same_photo_twice_is_stored_once(tmp_path: Path):
    store = ReviewStore(tmp_path)
    a = add(store, 1, photo=b"same photo")
    b = add(store, 2, photo=b"same photo")
    assert a.id != b.id and a.photo == b.photo
    assert len(list(store.files_dir.glob(a.photo))) == 1


def test_reopened_store_has_every_review(tmp_path: Path):
    store = ReviewStore(tmp_path)
    made = [add(store, i) for i in range(5)]
    store.close()
    again = ReviewStore(tmp_path)
    assert again.count() == 5
    for r in made:
        got = again.get(r.id)
        assert got is not None and got.ruling["n"] == r.ruling["n"] and got.photo == r.photo
    assert again.verify() == []


def test_list_is_newest_first_and_pages_backwards(tmp_path: Path):
    store = ReviewStore(tmp_path)
    made = [add(store, i) for i in range(7)]
    first = store.list(limit=3)
    assert [r.id for r in first] == [r.id for r in reversed(made)][:3]
    second = store.list(limit=3, before=first[-1].seq)
    assert [r.id for r in second] == [r.id for r in reversed(made)][3:6]
    assert store.get("nope") is None


def test_verify_reports_a_missing_and_a_corrupt_file(tmp_path: Path):
    store = ReviewStore(tmp_path)
    r = add(store)
    store.file_path(r.overlay).unlink()
    store.file_path(r.thumbnail).write_bytes(b"tampered")
    problems = store.verify()
    assert any("overlay" in p and "missing" in p for p in problems)
    assert any("thumbnail" in p and "corrupt" in p for p in problems)


def test_file_names_cannot_escape_the_folder(tmp_path: Path):
    store = ReviewStore(tmp_path)
    for bad in ("../reviews.sqlite3", ".tmp-x", "a/b"):
        with pytest.raises(ValueError):
            store.file_path(bad)


def test_stale_temporary_files_are_swept_and_fresh_ones_kept(tmp_path: Path):
    ReviewStore(tmp_path).close()
    stale = tmp_path / "files" / ".tmp-dead-abc.png"
    fresh = tmp_path / "files" / ".tmp-live-def.png"
    stale.write_bytes(b"half")
    fresh.write_bytes(b"half")
    old = time.time() - 7200
    os.utime(stale, (old, old))
    ReviewStore(tmp_path).close()
    assert not stale.exists() and fresh.exists()


def test_concurrent_writers_all_land(tmp_path: Path):
    store = ReviewStore(tmp_path)
    ids: list[str] = []
    lock = threading.Lock()

    def work(k: int) -> None:
        for i in range(10):
            r = add(store, 100 * k + i)
            with lock:
                ids.append(r.id)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.count() == 80 and len(set(ids)) == 80
    assert store.verify() == []


def _writer(data_dir: str, acked: multiprocessing.Queue) -> None:  # pragma: no cover (child)
    store = ReviewStore(Path(data_dir))
    i = 0
    while True:
        # Big files make the window between file writes and the commit wide enough to hit.
        r = store.add(photo=Blob(os.urandom(200_000), "jpg"), photo_type="image/jpeg",
                      overlay=Blob(os.urandom(100_000), "png"),
                      thumbnail=Blob(os.urandom(5_000), "jpg"), markers={},
                      request={"ruleset": "t9a-1", "charges": []}, scene={},
                      ruling={"charges": [], "i": i})
        acked.put(r.id)
        i += 1


def test_a_writer_killed_mid_write_leaves_a_consistent_store(tmp_path: Path):
    """SIGKILL at arbitrary moments: every review the writer reported done is there, and no row
    names a missing or partial file."""
    ctx = multiprocessing.get_context("spawn")
    acked_all: list[str] = []
    for round_ in range(3):
        q: multiprocessing.Queue = ctx.Queue()
        p = ctx.Process(target=_writer, args=(str(tmp_path), q))
        p.start()
        deadline = time.monotonic() + 20
        got = 0
        while got < 5 + round_ * 3 and time.monotonic() < deadline:
            acked_all.append(q.get(timeout=20))
            got += 1
        os.kill(p.pid, signal.SIGKILL)
        p.join()
        while True:  # acknowledgements already queued before the kill count too
            try:
                acked_all.append(q.get(timeout=0.2))
            except Exception:
                break
    store = ReviewStore(tmp_path)
    assert store.verify() == []
    for rid in acked_all:
        assert store.get(rid) is not None, rid
    assert store.count() >= len(acked_all)
