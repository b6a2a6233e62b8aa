"""`umpire` commands for the vision part (registered on `server.cli.app`).

``umpire detect PHOTO --markers markers.json [-o scene.json] [--overlay out.png]`` and
``umpire calibrate PHOTO... -o calibration.json``. Bad input (an unreadable photo, a markers
file that breaks the contract, a photo where the table cannot be found) exits with code 2 and a
message naming the file and the problem.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any

import cv2
import numpy as np
import typer
from rich.markup import escape
from rich.table import Table

from server.cli import InputError, app, check_output, err, out, read_json, write_outputs
from server.ignored import markers_warnings
from vision import DetectionError, MarkersError, load_markers
from vision.calibration import BoardSpec, calibrate
from vision.camera import Intrinsics
from vision.detect import detect_with_view
from vision.errors import CalibrationError

#: What ``--overlay`` may be called: the image formats the overlay is written in.
OVERLAY_SUFFIXES = (".png", ".jpg", ".jpeg")
#: The largest ChArUco board ``umpire calibrate`` looks for, squares a side: far beyond any
#: printable board, and small enough that building the board cannot hang (an outside tester's
#: 2000x2000 ran for minutes).
MAX_BOARD_SQUARES = 50


def read_photo(path: Path) -> np.ndarray:
    """A photo file decoded to BGR, or :class:`InputError` naming the file."""
    if not path.is_file():
        raise InputError(f"photo {path}: no such file")
    data = np.fromfile(str(path), dtype=np.uint8)
    try:
        img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    except cv2.error:  # larger than OpenCV decodes (CV_IO_MAX_IMAGE_PIXELS)
        raise InputError(f"photo {path}: too large an image to decode") from None
    if img is None:
        raise InputError(f"photo {path}: not an image OpenCV can read (JPEG, PNG, TIFF, ...)")
    return img


@app.command()
def detect(
    photo: Annotated[Path, typer.Argument(help="Photo of the table (JPEG, PNG...).")],
    markers: Annotated[Path, typer.Option("--markers", help="Table and marker set JSON.")],
    output: Annotated[Path | None, typer.Option("-o", "--output",
                                                help="Write the scene JSON here.")] = None,
    overlay: Annotated[Path | None, typer.Option("--overlay",
                                                 help="Write what was found over the photo "
                                                      "(PNG).")] = None,
    calibration: Annotated[Path | None, typer.Option("--calibration",
                                                     help="Camera calibration JSON from "
                                                          "`umpire calibrate`.")] = None,
    fov: Annotated[float | None, typer.Option("--fov", help="Horizontal field of view "
                                              "(degrees) without a calibration.")] = None,
) -> None:
    """Find the table and every unit's tray in a photo; print or write the scene JSON."""
    if overlay is not None and overlay.suffix.lower() not in OVERLAY_SUFFIXES:
        # Said before anything is written: a scene file written and then a traceback for
        # the overlay is what an outside tester got.
        raise InputError(f"--overlay {overlay}: use a name ending in "
                         f"{', '.join(OVERLAY_SUFFIXES)}")
    # Every output checked before anything is detected or written (exit 2 = nothing made).
    for path, option in ((output, "-o"), (overlay, "--overlay")):
        if path is not None:
            check_output(path, option)
    if output is not None and overlay is not None and output.absolute() == overlay.absolute():
        raise InputError(f"--overlay {overlay}: the same file as -o {output}")
    marker_data = read_json(markers, "markers file")
    try:
        ms = load_markers(marker_data, prefix=f"markers file {markers}: ")
    except MarkersError as e:
        raise InputError(str(e)) from None
    image = read_photo(photo)
    intr = None
    if calibration is not None:
        try:
            intr = Intrinsics.load(calibration)
        except CalibrationError as e:
            raise InputError(str(e)) from None
    if fov is not None and not 10 <= fov <= 170:
        raise InputError(f"--fov {fov}: a field of view between 10 and 170 degrees")
    try:
        scene, view = detect_with_view(image, ms, fov_deg=fov, calibration=intr)
    except DetectionError as e:
        raise InputError(f"photo {photo}: {e}") from None
    det = scene["detection"]
    det["warnings"] = [*det["warnings"], *markers_warnings(marker_data)]
    text = json.dumps(scene, indent=2)
    files: list[tuple[Path, bytes, str]] = []
    if output is not None:
        files.append((output, (text + "\n").encode("utf-8"), "-o"))
    if overlay is not None:
        files.append((overlay, _overlay_bytes(overlay, image, scene), "--overlay"))
    write_outputs(files)  # all of them or none
    if output is None:
        print(text)
        return
    _summary(scene, det)
    out.print(f"scene written to {output}")
    if overlay is not None:
        out.print(f"overlay written to {overlay}")
    for w in det["warnings"]:
        err.print(f"[yellow]warning:[/] {escape(w)}", highlight=False)


def _overlay_bytes(path: Path, image: np.ndarray, scene: dict[str, Any]) -> bytes:
    """What was found drawn over the photo, encoded as ``path``'s suffix says (checked)."""
    from vision.overlay import draw_scene_overlay

    H = np.array(scene["detection"]["table_to_image"], float)
    scene_only = {k: v for k, v in scene.items() if k != "detection"}
    pic = draw_scene_overlay(image, scene_only, H)
    try:
        ok, data = cv2.imencode(path.suffix.lower(), pic)
    except cv2.error:  # OpenCV 5 raises where 4 returned False
        ok = False
    if not ok:
        raise InputError(f"--overlay {path}: cannot encode the overlay as {path.suffix}")
    return data.tobytes()


def _summary(scene: dict[str, Any], det: dict[str, Any]) -> None:
    t = Table(title=f"Detected {len(scene['units'])} units "
                    f"(table markers {det['table_markers_used']}, "
                    f"{det['timings_ms']['total']:.0f} ms)", title_justify="left")
    for col in ("unit", "side", "x mm", "y mm", "facing", "+/- mm", "+/- deg", "from"):
        t.add_column(col, justify="left" if col in ("unit", "side", "from") else "right")
    for u in scene["units"]:
        t.add_row(u["id"], u["side"], f"{u['x']:.1f}", f"{u['y']:.1f}", f"{u['facing']:.2f}",
                  f"{u['sigma_mm']:.2f}", f"{u['sigma_deg']:.2f}",
                  det["units"][u["id"]]["method"])
    out.print(t)
    if det["missing_units"]:
        out.print(f"not found: {', '.join(det['missing_units'])}")


@app.command(name="calibrate")
def calibrate_cmd(
    photos: Annotated[list[Path], typer.Argument(help="Photos of the ChArUco board from "
                                                      "several angles (same camera setting).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Calibration JSON to write.")],
    squares: Annotated[str, typer.Option("--squares", help="Board squares, across x down.")]
    = "7x5",
    square_mm: Annotated[float, typer.Option("--square-mm", help="Printed square side.")] = 30.0,
    marker_mm: Annotated[float, typer.Option("--marker-mm", help="Printed marker side.")] = 22.0,
    dictionary: Annotated[str, typer.Option("--dictionary")] = "DICT_4X4_50",
) -> None:
    """Calibrate a camera (focal length, lens distortion) from ChArUco board photos."""
    check_output(output, "-o")
    try:
        sx, sy = (int(v) for v in squares.lower().split("x"))
    except ValueError:
        raise InputError(f"--squares {squares!r}: write it as ACROSSxDOWN, e.g. 7x5") from None
    if min(sx, sy) < 2 or max(sx, sy) > MAX_BOARD_SQUARES:
        raise InputError(f"--squares {squares!r}: a board of 2x2 to {MAX_BOARD_SQUARES}x"
                         f"{MAX_BOARD_SQUARES} squares")
    for name, v in (("--square-mm", square_mm), ("--marker-mm", marker_mm)):
        if not (math.isfinite(v) and v > 0):
            raise InputError(f"{name} {v}: a printed size in mm, above 0")
    if not marker_mm < square_mm:
        raise InputError(f"--marker-mm {marker_mm}: the marker must be smaller than its square "
                         f"(--square-mm {square_mm})")
    if not (dictionary.startswith("DICT_") and isinstance(getattr(cv2.aruco, dictionary, None),
                                                          int)):
        raise InputError(f"--dictionary {dictionary!r}: not an ArUco dictionary (e.g. "
                         "DICT_4X4_50, DICT_5X5_100, DICT_6X6_250)")
    size = len(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)).bytesList)
    if sx * sy // 2 > size:
        raise InputError(f"--squares {squares!r}: a {sx}x{sy} board holds {sx * sy // 2} "
                         f"markers, more than {dictionary}'s {size}")
    images = [read_photo(p) for p in photos]
    try:
        intr, rms, counts = calibrate(images, BoardSpec(sx, sy, square_mm, marker_mm, dictionary))
    except CalibrationError as e:
        raise InputError(f"calibration: {e}") from None
    write_outputs([(output, (json.dumps(intr.to_json(rms_px=round(rms, 4)), indent=2)
                             + "\n").encode("utf-8"), "-o")])
    out.print(f"calibrated from {sum(c >= 8 for c in counts)} of {len(photos)} photos of a "
              f"ChArUco board of {sx}x{sy} squares ({dictionary}): "
              f"f = {intr.f:.1f} px, k1 = {intr.dist[0]:+.4f}, k2 = {intr.dist[1]:+.4f}, "
              f"RMS {rms:.3f} px -> {output}")
