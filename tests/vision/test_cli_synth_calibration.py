"""`umpire detect` / `umpire calibrate` on files, the renderer's determinism, ChArUco
calibration on rendered board photos."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.calibration import BoardSpec, calibrate
from vision.camera import Camera, Intrinsics
from vision.errors import CalibrationError
from vision.synth import Shot, random_table, render, render_plane

SAMPLES = Path(__file__).resolve().parents[2] / "server" / "samples"


def umpire(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from server.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=120)


def test_cli_detect_writes_the_sample_scene(tmp_path):
    out = tmp_path / "scene.json"
    r = umpire("detect", str(SAMPLES / "table.jpg"), "--markers", str(SAMPLES / "markers.json"),
               "-o", str(out))
    assert r.returncode == 0, r.stderr
    scene = json.loads(out.read_text())
    truth = {u["id"]: u for u in json.loads((SAMPLES / "scene.json").read_text())["units"]}
    assert {u["id"] for u in scene["units"]} == set(truth)
    for u in scene["units"]:
        assert abs(u["x"] - truth[u["id"]]["x"]) < 0.5 and abs(u["y"] - truth[u["id"]]["y"]) < 0.5
    assert "knights" in r.stdout


def test_cli_detect_prints_json_without_output(tmp_path):
    r = umpire("detect", str(SAMPLES / "table.jpg"), "--markers", str(SAMPLES / "markers.json"))
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["units"]) == 6


@pytest.mark.parametrize("photo, markers, message", [
    ("markers.json", "markers.json", "not an image"),
    ("nope.jpg", "markers.json", "no such file"),
    ("table.jpg", "nope.json", "cannot read"),
    ("table.jpg", "scene.json", "table.markers: Field required"),
])
def test_cli_detect_bad_input_exits_2_naming_the_file(photo, markers, message):
    r = umpire("detect", str(SAMPLES / photo), "--markers", str(SAMPLES / markers))
    assert r.returncode == 2
    assert message in " ".join(r.stderr.split())


def test_cli_detect_photo_without_table_exits_2(tmp_path):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((200, 300, 3), 120, np.uint8))
    r = umpire("detect", str(blank), "--markers", str(SAMPLES / "markers.json"))
    assert r.returncode == 2
    assert "no table markers found" in " ".join(r.stderr.split())


def test_renderer_is_deterministic_and_truthful():
    scene, markers = random_table(5, n_units=4, marker_mm=40)
    shot = Shot(width=640, height=360, seed=3)
    a, b = render(scene, markers, shot), render(scene, markers, shot)
    assert np.array_equal(a.image, b.image)
    c = render(scene, markers, Shot(width=640, height=360, seed=4))
    assert not np.array_equal(a.image, c.image)
    assert {u["id"] for u in a.scene["units"]} == set(a.truth)
    # The table corners project inside the frame.
    px = a.camera.project(np.array([[0, 0, 0], [1828.8, 1219.2, 0]]))
    assert (px >= 0).all() and (px[:, 0] < 640).all() and (px[:, 1] < 360).all()


def _board_photos(intr: Intrinsics, n: int = 6) -> list[np.ndarray]:
    spec = BoardSpec()
    pic = spec.board().generateImage((7 * 100, 5 * 100), marginSize=0, borderBits=1)
    cam = Camera(intr, np.eye(3), np.zeros(3))
    rng = np.random.default_rng(1)
    photos = []
    for k in range(n):
        rv = np.array([rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4), rng.uniform(-0.2, 0.2)])
        R, _ = cv2.Rodrigues(rv)
        tv = np.array([rng.uniform(-30, 30), rng.uniform(-20, 20), rng.uniform(300, 360)]) \
            - R @ np.array([105.0, 75.0, 0.0])
        photos.append(render_plane(pic, (210, 150), cam, rv, tv, seed=k))
    return photos


def test_charuco_calibration_recovers_the_lens():
    true = Intrinsics.nominal(960, 540, 60, k1=-0.08)
    intr, rms, counts = calibrate(_board_photos(true))
    assert rms < 0.3
    assert abs(intr.f - true.f) / true.f < 0.01
    # The lens model, not the coefficients, is what matters: compare where a corner point lands.
    corner = np.array([[240.0, 135.0], [720.0, 405.0], [150.0, 400.0]])
    assert np.abs(intr.undistort(corner) - true.undistort(corner)).max() < 0.5


def test_calibration_needs_the_board():
    with pytest.raises(CalibrationError, match=r"looked for a ChArUco board of 7x5 squares "
                                               r"\(30 mm squares, 22 mm markers, DICT_4X4_50\) "
                                               r"and found none in 3 photos; no ArUco markers"):
        calibrate([np.full((300, 400), 128, np.uint8)] * 3)


def test_cli_calibrate_says_which_board_it_looked_for_and_what_to_try():
    """The real ChArUco photos (a 5 x 7 board of DICT_6X6_250, markers half the square) with the
    default board options: nothing found, and the message names the options that find it."""
    data = Path(__file__).resolve().parent / "data"
    r = umpire("calibrate", str(data / "img_00.jpg"), str(data / "img_01.jpg"), "-o",
               "/dev/null")
    assert r.returncode == 2
    msg = " ".join(r.stderr.split())
    assert "looked for a ChArUco board of 7x5 squares" in msg
    assert "--dictionary DICT_6X6_50" in msg and "--squares 5x7" in msg
    assert "--marker-mm 20" in msg


def test_cli_calibrate_writes_a_file_detect_can_use(tmp_path):
    paths = []
    for k, img in enumerate(_board_photos(Intrinsics.nominal(960, 540, 60, k1=-0.08), 4)):
        p = tmp_path / f"board{k}.png"
        cv2.imwrite(str(p), img)
        paths.append(str(p))
    out = tmp_path / "cal.json"
    r = umpire("calibrate", *paths, "-o", str(out))
    assert r.returncode == 0, r.stderr
    intr = Intrinsics.load(out)
    assert intr.size == (960, 540) and intr.dist[0] < -0.03
