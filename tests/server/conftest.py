"""Shared fixtures for the server tests: the bundled sample photo and marker set, an app over a
fresh data folder, and a charge that the sample table makes (read from the sample, not typed in).
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from server.app import create_app

SAMPLES = Path(__file__).resolve().parents[2] / "server" / "samples"


@pytest.fixture(scope="session")
def sample_photo() -> bytes:
    return (SAMPLES / "table.jpg").read_bytes()


@pytest.fixture(scope="session")
def sample_markers_text() -> str:
    return (SAMPLES / "markers.json").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def sample_scene() -> dict:
    return json.loads((SAMPLES / "scene.json").read_text(encoding="utf-8"))


@pytest.fixture()
def client(tmp_path: Path):
    with TestClient(create_app(tmp_path / "data"), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="session")
def detected(tmp_path_factory: pytest.TempPathFactory, sample_photo: bytes,
             sample_markers_text: str) -> dict:
    """The sample photo's scene as the server detects it (once per session: detection is the
    slow step)."""
    app = create_app(tmp_path_factory.mktemp("detect-data"))
    with TestClient(app) as c:
        r = c.post("/api/detect", files={"photo": ("table.jpg", sample_photo, "image/jpeg")},
                   data={"markers": sample_markers_text})
    assert r.status_code == 200, r.text
    return r.json()


def noise_png(megabytes: float) -> bytes:
    """A real PNG photo of random pixels (which do not compress): about ``megabytes`` MB, for
    uploads over the size limit."""
    side = int((megabytes * 1_000_000 / 3) ** 0.5)
    pixels = np.random.default_rng(11).integers(0, 256, (side, side, 3), dtype=np.uint8)
    ok, png = cv2.imencode(".png", pixels)
    assert ok
    return png.tobytes()


def a_charge(scene: dict) -> tuple[str, str]:
    """The sample's charge: knights on spears when both are on the table (the demo's charge),
    else the first charger with an advance facing an enemy."""
    ids = {u["id"] for u in scene["units"]}
    if {"knights", "spears"} <= ids:
        return "knights", "spears"
    for a in scene["units"]:
        for b in scene["units"]:
            if a["side"] != b["side"] and a.get("advance_in") is not None:
                return a["id"], b["id"]
    raise AssertionError("the sample has no pair of enemies")


def roll(scene: dict, charger: str, *values: int) -> list[int]:
    """A charge roll of the right size for ``charger``: the best two of 3D6 with swiftstride,
    2D6 otherwise (RULES.md 3); ``values`` are used in turn."""
    unit = next(u for u in scene["units"] if u["id"] == charger)
    n = 3 if unit.get("swiftstride") else 2
    return [values[i % len(values)] for i in range(n)]
