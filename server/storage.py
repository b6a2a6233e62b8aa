"""Stored reviews: a photo, its scene, the ruling and the overlay, kept for post-game review.

Why this shape (issue 5, DESIGN.md ``server/``):

- Rows live in SQLite (standard library) in WAL mode with ``synchronous=FULL``: a commit that
  returned has reached the disk, so a review acknowledged to a client survives a kill or a
  power cut, and readers never block the single writer.
- Photos, overlays and thumbnails are files named by the sha256 of their bytes. The same photo
  uploaded twice is stored once, and a file name can never point to other content.
- Order of writes: every file is written to a temporary name, fsynced, renamed into place with
  ``os.replace`` (atomic on POSIX) and the directory fsynced, *before* the row that names it is
  committed. A process killed at any instant leaves either no row (maybe an orphan file, which
  is harmless and re-used by content) or a row whose files are all complete on disk.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS reviews (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    photo      TEXT NOT NULL,
    photo_type TEXT NOT NULL,
    overlay    TEXT NOT NULL,
    thumbnail  TEXT NOT NULL,
    markers    TEXT NOT NULL,
    request    TEXT NOT NULL,
    scene      TEXT NOT NULL,
    ruling     TEXT NOT NULL
);
"""

# Temporary files older than this are leftovers of a killed process; younger ones may belong to
# a write in progress in another process sharing the folder, so they are left alone.
_STALE_TMP_S = 3600.0
_TMP_PREFIX = ".tmp-"


@dataclass(frozen=True)
class Blob:
    """A file to store: its bytes and the extension its name gets (``png``, ``jpg``...)."""

    data: bytes
    ext: str

    @property
    def name(self) -> str:
        return f"{hashlib.sha256(self.data).hexdigest()}.{self.ext}"


@dataclass(frozen=True)
class Review:
    """One stored review as read back: JSON documents decoded, files named by content hash."""

    id: str
    seq: int
    created_at: str
    photo: str
    photo_type: str
    overlay: str
    thumbnail: str
    markers: Any
    request: dict[str, Any]
    scene: dict[str, Any]
    ruling: dict[str, Any]


class ReviewStore:
    """Reviews in ``data_dir/reviews.sqlite3`` and their files in ``data_dir/files/``.

    Thread-safe: one connection guarded by a lock (SQLite serialises writers anyway, and every
    statement here takes milliseconds); file writes happen outside the lock.
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self.files_dir = self.data_dir / "files"
        self.files_dir.mkdir(parents=True, exist_ok=True)
        _fsync_dir(self.data_dir)
        self._sweep_stale_tmp()
        self.db_path = self.data_dir / "reviews.sqlite3"
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.db_path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA busy_timeout = 10000")
        mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise OSError(f"{self.db_path}: SQLite refused WAL mode (got {mode})")
        # FULL: the WAL is fsynced at every commit, so an acknowledged review survives power loss
        # too, not only a killed process (NORMAL would only promise the latter).
        self._db.execute("PRAGMA synchronous = FULL")
        self._db.executescript(_SCHEMA)
        self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # -- files -------------------------------------------------------------------------------

    def file_path(self, name: str) -> Path:
        """Path of a stored file; the name must be one this store produced (hash.ext)."""
        if "/" in name or "\\" in name or name.startswith("."):
            raise ValueError(f"not a stored file name: {name!r}")
        return self.files_dir / name

    def put_file(self, blob: Blob) -> str:
        """Store ``blob`` under its content hash, atomically and durably; return its name.

        A file already present under that name is complete (it was renamed into place only
        after its fsync), so it is not written again.
        """
        name = blob.name
        path = self.files_dir / name
        if path.exists():
            return name
        tmp = self.files_dir / f"{_TMP_PREFIX}{secrets.token_hex(8)}-{name}"
        try:
            with open(tmp, "wb") as f:
                f.write(blob.data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        _fsync_dir(self.files_dir)
        return name

    # -- reviews -----------------------------------------------------------------------------

    def add(self, *, photo: Blob, photo_type: str, overlay: Blob, thumbnail: Blob,
            markers: Any, request: dict[str, Any], scene: dict[str, Any],
            ruling: dict[str, Any]) -> Review:
        """Store a review: its files first (durably), then the row (committed durably).

        When this returns, the review is on disk; a crash before it returns leaves no row.
        """
        photo_name = self.put_file(photo)
        overlay_name = self.put_file(overlay)
        thumb_name = self.put_file(thumbnail)
        review_id = secrets.token_hex(8)
        created = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        docs = [json.dumps(d, separators=(",", ":"), allow_nan=False)
                for d in (markers, request, scene, ruling)]
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO reviews (id, created_at, photo, photo_type, overlay, thumbnail,"
                " markers, request, scene, ruling) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (review_id, created, photo_name, photo_type, overlay_name, thumb_name, *docs))
            seq = int(cur.lastrowid or 0)
        return Review(id=review_id, seq=seq, created_at=created, photo=photo_name,
                      photo_type=photo_type, overlay=overlay_name, thumbnail=thumb_name,
                      markers=markers, request=request, scene=scene, ruling=ruling)

    def get(self, review_id: str) -> Review | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM reviews WHERE id = ?", (review_id,)).fetchone()
        return None if row is None else _review(row)

    def list(self, limit: int = 50, before: int | None = None) -> list[Review]:
        """Newest first; ``before`` is a ``seq`` to page backwards from."""
        with self._lock:
            if before is None:
                rows = self._db.execute(
                    "SELECT * FROM reviews ORDER BY seq DESC LIMIT ?", (limit,)).fetchall()
            else:
                rows = self._db.execute(
                    "SELECT * FROM reviews WHERE seq < ? ORDER BY seq DESC LIMIT ?",
                    (before, limit)).fetchall()
        return [_review(r) for r in rows]

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM reviews").fetchone()[0])

    def verify(self) -> list[str]:
        """Every problem found: a row naming a missing file, or a file whose bytes do not hash
        to its name. Empty means the store is consistent (what a restart must find)."""
        problems = []
        with self._lock:
            rows = self._db.execute(
                "SELECT id, photo, overlay, thumbnail FROM reviews").fetchall()
        for row in rows:
            for col in ("photo", "overlay", "thumbnail"):
                name = row[col]
                path = self.files_dir / name
                if not path.is_file():
                    problems.append(f"review {row['id']}: {col} file {name} is missing")
                elif hashlib.sha256(path.read_bytes()).hexdigest() != name.split(".")[0]:
                    problems.append(f"review {row['id']}: {col} file {name} is corrupt")
        return problems

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _sweep_stale_tmp(self) -> None:
        now = time.time()
        for p in self.files_dir.glob(f"{_TMP_PREFIX}*"):
            with contextlib.suppress(OSError):
                if now - p.stat().st_mtime > _STALE_TMP_S:
                    p.unlink()


def _review(row: sqlite3.Row) -> Review:
    return Review(id=row["id"], seq=row["seq"], created_at=row["created_at"],
                  photo=row["photo"], photo_type=row["photo_type"], overlay=row["overlay"],
                  thumbnail=row["thumbnail"], markers=json.loads(row["markers"]),
                  request=json.loads(row["request"]), scene=json.loads(row["scene"]),
                  ruling=json.loads(row["ruling"]))


def _fsync_dir(path: Path) -> None:
    """Make a rename or a new entry in ``path`` durable (POSIX needs the directory fsynced)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
