"""``umpire markers markers.json -o sheet.pdf`` (DESIGN.md, Command line): the sheet is
written for good input; bad input exits 2 with a message naming the file and the field."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..inprocess import run_umpire

SAMPLE = Path(__file__).resolve().parents[2] / "server" / "samples" / "markers.json"


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """The console entry point in-process (a subprocess per case costs seconds of imports);
    whitespace is normalised because rich wraps long messages."""

    def _run(*args: str) -> Result:
        code, out, err = run_umpire(monkeypatch, capsys, *args)
        return Result(code, " ".join(out.split()), " ".join(err.split()))

    return _run


def markers() -> dict:
    if SAMPLE.exists():
        return json.loads(SAMPLE.read_text())
    return {"dictionary": "DICT_4X4_50",
            "table": {"markers": [{"id": i, "x": 40 + 1700 * (i % 2), "y": 40 + 1100 * (i // 2),
                                   "size_mm": 60} for i in range(4)]},
            "units": [{"marker": 10, "marker_size_mm": 40, "id": "knights", "side": "red",
                       "base": [25, 50], "files": 5, "ranks": 2}]}


def write(tmp: Path, data: object, name: str = "markers.json") -> Path:
    p = tmp / name
    p.write_text(data if isinstance(data, str) else json.dumps(data))
    return p


def test_writes_the_sheet(tmp_path: Path, run):
    out = tmp_path / "sheet.pdf"
    r = run("markers", str(write(tmp_path, markers())), "-o", str(out))
    assert r.returncode == 0, r.stderr
    pdf = out.read_bytes()
    assert pdf.startswith(b"%PDF-")
    n = len(markers()["table"]["markers"]) + len(markers()["units"])
    assert f"{n} markers" in r.stdout and "100 mm" in r.stdout
    # the first table marker is drawn 60 mm wide: 60 * 72 / 25.4 = 170.0787 pt
    assert re.search(rb"170\.0787 0 0 170\.0787 [\d.]+ [\d.]+ cm /Im0 Do", pdf)


def test_bad_field_exits_2_naming_it(tmp_path: Path, run):
    data = markers()
    data["units"][0]["marker_size_mm"] = "big"
    r = run("markers", str(write(tmp_path, data)), "-o", str(tmp_path / "s.pdf"))
    assert r.returncode == 2
    assert "marker_size_mm" in r.stderr and "markers.json" in r.stderr
    assert not (tmp_path / "s.pdf").exists()


def test_unknown_dictionary_and_duplicate_ids(tmp_path: Path, run):
    data = markers()
    data["dictionary"] = "DICT_NOPE"
    r = run("markers", str(write(tmp_path, data)), "-o", str(tmp_path / "s.pdf"))
    assert r.returncode == 2 and "dictionary" in r.stderr
    data = markers()
    data["units"][0]["marker"] = data["table"]["markers"][0]["id"]
    r = run("markers", str(write(tmp_path, data)), "-o", str(tmp_path / "s.pdf"))
    assert r.returncode == 2 and "marker" in r.stderr


def test_marker_too_big_for_the_page(tmp_path: Path, run):
    data = markers()
    data["table"]["markers"][0]["size_mm"] = 250
    r = run("markers", str(write(tmp_path, data)), "-o", str(tmp_path / "s.pdf"))
    assert r.returncode == 2
    assert "table.markers[0]" in r.stderr and "size_mm" in r.stderr


def test_unreadable_files(tmp_path: Path, run):
    r = run("markers", str(tmp_path / "missing.json"), "-o", str(tmp_path / "s.pdf"))
    assert r.returncode == 2 and "missing.json" in r.stderr
    r = run("markers", str(write(tmp_path, "{not json")), "-o", str(tmp_path / "s.pdf"))
    assert r.returncode == 2 and "not valid JSON" in r.stderr
    r = run("markers", str(write(tmp_path, markers())), "-o",
            str(tmp_path / "no" / "such" / "dir" / "s.pdf"))
    assert r.returncode == 2 and "s.pdf" in r.stderr
    r = run("markers", str(write(tmp_path, markers())))  # -o is required
    assert r.returncode == 2
