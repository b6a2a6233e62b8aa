"""`umpire detect` and `umpire calibrate` refuse bad input with exit 2 and a message naming the
option or file, printed as it is (outside testing, round 3: an overlay name OpenCV cannot write
gave a traceback after the scene was written; NaN sizes, a function's name as the dictionary and
a 2000x2000 board gave tracebacks or ran for minutes; a camera matrix with a last row of zeros
said only "Singular matrix"; square brackets in a message or file name were eaten as markup).
Run in-process through the console entry point, so each case costs no interpreter start."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..inprocess import run_umpire

SAMPLES = Path(__file__).resolve().parents[2] / "server" / "samples"
PHOTO, MARKERS = str(SAMPLES / "table.jpg"), str(SAMPLES / "markers.json")


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
        ) -> tuple[int, str]:
    code, _, err = run_umpire(monkeypatch, capsys, *args)
    return code, err


def test_an_overlay_name_opencv_cannot_write_is_refused_before_anything_is_written(
        tmp_path, monkeypatch, capsys):
    scene = tmp_path / "s.json"
    code, err = run(monkeypatch, capsys, "detect", PHOTO, "--markers", MARKERS, "-o",
                    str(scene), "--overlay", str(tmp_path / "o.txt"))
    assert code == 2
    assert "--overlay" in err and "o.txt" in err and ".png" in err
    assert not scene.exists()


@pytest.mark.parametrize(("option", "value", "words"), [
    ("--square-mm", "nan", "--square-mm nan: a printed size in mm"),
    ("--marker-mm", "40", "--marker-mm 40.0: the marker must be smaller than its square"),
    ("--dictionary", "getPredefinedDictionary", "not an ArUco dictionary"),
    ("--squares", "2000x2000", "a board of 2x2 to 50x50 squares"),
    ("--squares", "20x20", "holds 200 markers, more than DICT_4X4_50's 50"),
])
def test_calibrate_refuses_impossible_boards(tmp_path, monkeypatch, capsys, option, value,
                                             words):
    code, err = run(monkeypatch, capsys, "calibrate", PHOTO, "-o", str(tmp_path / "c.json"),
                    option, value)
    assert code == 2
    assert words in err


def test_a_camera_matrix_that_is_not_one_is_named(tmp_path, monkeypatch, capsys):
    cal = tmp_path / "cal.json"
    cal.write_text(json.dumps({"image_size": [1600, 1200], "dist_coeffs": [0, 0, 0, 0, 0],
                               "camera_matrix": [[1500, 0, 800], [0, 1500, 600], [0, 0, 0]]}))
    code, err = run(monkeypatch, capsys, "detect", PHOTO, "--markers", MARKERS,
                    "--calibration", str(cal))
    assert code == 2
    assert f"calibration {cal}: camera_matrix" in err


def test_square_brackets_in_a_message_are_printed(tmp_path, monkeypatch, capsys):
    code, err = run(monkeypatch, capsys, "detect", str(tmp_path / "missing [final].jpg"),
                    "--markers", MARKERS)
    assert code == 2
    assert "missing [final].jpg" in err


def test_a_markers_files_terrain_is_checked_as_scene_terrain(tmp_path, monkeypatch, capsys):
    data = json.loads(Path(MARKERS).read_text())
    data["terrain"] = "rocks"  # was copied into the scene as five pieces 'r', 'o', ...
    bad = tmp_path / "markers.json"
    bad.write_text(json.dumps(data))
    code, err = run(monkeypatch, capsys, "detect", PHOTO, "--markers", str(bad))
    assert code == 2
    assert f"markers file {bad}: terrain: must be a list of terrain pieces" in err
