"""The ``umpire`` command line (DESIGN.md, Command line).

Exit codes: 0 a result was produced (whatever its outcome), 2 bad input (the message on stderr
names the field or file), 1 internal error.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

import geometry as g
from charges.situation import situation

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Settle charges in rank-and-file wargames from a photo of the table.")


@app.callback()
def _root() -> None:
    """Settle charges in rank-and-file wargames from a photo of the table."""
out = Console()
err = Console(stderr=True, soft_wrap=True)  # one line per message, never wrapped


class InputError(Exception):
    """Bad input from the user: exit code 2."""


def fail(message: str) -> None:
    # The message is text, not markup: a file "photo [final].jpg" or a "[width, height]" in
    # it is printed as it is (rich would read square brackets as style tags).
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    raise typer.Exit(2)


def sample_path(name: str) -> Path:
    return Path(str(resources.files("server") / "samples" / name))


def read_json(path: Path, what: str) -> Any:
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM, as Notepad saves, is fine
    except OSError as e:
        raise InputError(f"{what} {path}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError:
        raise InputError(f"{what} {path}: not a text file (JSON in UTF-8 expected)") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{what} {path}: not valid JSON ({e.msg} at line {e.lineno}, "
                         f"column {e.colno})") from None


def check_output(path: Path, option: str) -> None:
    """Refuse an output path that cannot be written, naming ``option``: said before anything
    is computed or written, so that exit code 2 means nothing was produced (an outside tester's
    ``detect -o scene.json --overlay /missing/x.png`` wrote the scene, then exited 2)."""
    folder = path.absolute().parent
    if path.is_dir():
        raise InputError(f"{option} {path}: is a folder; give the name of a file to write")
    if not folder.exists():
        raise InputError(f"{option} {path}: cannot write it, no such folder {folder}")
    if not folder.is_dir():
        raise InputError(f"{option} {path}: cannot write it, {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{option} {path}: cannot write it, folder {folder} is not writable")
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(f"{option} {path}: cannot write it, the file is read-only")


def write_outputs(files: list[tuple[Path, bytes, str]]) -> None:
    """Write every ``(path, bytes, option)`` or none: each goes to a temporary file beside it
    first, and only once all are written are they renamed into place. A file that cannot be
    written is refused naming its option, and no output is left half-written or replaced."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, data, option in files:
            try:
                fd, tmp = tempfile.mkstemp(dir=path.absolute().parent, prefix=f".{path.name}.",
                                           suffix=".part")
                staged.append((tmp, path))
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.chmod(tmp, _new_file_mode(path))
            except OSError as e:
                raise InputError(f"{option} {path}: cannot write it ({e.strerror})") from None
        for tmp, path in staged:
            os.replace(tmp, path)
        staged = []
    finally:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _new_file_mode(path: Path) -> int:
    """The mode ``path`` has, or the one a new file gets under the umask (mkstemp's is 0600)."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def print_situation(scene: g.Scene) -> None:
    report = situation(scene)
    table = Table(title="Situation report", title_justify="left")
    table.add_column("unit")
    table.add_column("side")
    table.add_column("enemy in front arc")
    table.add_column("its arc", justify="left")
    table.add_column("closest", justify="right")
    for u in scene.units:
        rows = report.get(u.id, [])
        if not rows:
            table.add_row(u.id, u.side, "-", "", "")
        for i, s in enumerate(rows):
            table.add_row(u.id if i == 0 else "", u.side if i == 0 else "", s.enemy,
                          f"{s.enemy_arc} ({s.arc_share:.0%})", f'{s.distance_in:.2f}"')
    out.print(table)


#: The sample charge the demo rules: the knights (Swiftstride) charge the spears with a roll of
#: 3, 5 and 2 (the best two make 8).
DEMO_CHARGE = {"charges": [{"charger": "knights", "target": "spears"}],
               "dice": {"knights": [3, 5, 2]}}


@app.command()
def demo(
    output: Annotated[Path, typer.Option("-o", "--output", help="Where to write the overlay "
                                         "PNG.")] = Path("umpire-demo.png"),
) -> None:
    """The main job on the bundled sample: detect the table photo, rule a charge, draw it."""
    check_output(output, "-o")
    import cv2

    import charges
    import vision
    from server.cli_charges import print_ruling
    from vision.overlay import draw_on_photo, encode_png

    photo = sample_path("table.jpg")
    markers = read_json(sample_path("markers.json"), "sample markers")
    image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
    if image is None:
        raise InputError(f"sample photo {photo}: cannot be read")
    scene_json = vision.detect(image, markers)
    det = scene_json.get("detection", {})
    out.print(f"Detected {len(scene_json['units'])} units on {photo.name} "
              f"({det.get('image_size', ['?', '?'])[0]}x{det.get('image_size', ['?', '?'])[1]}"
              f" px, table residual {det.get('table_residual_mm', float('nan')):.2f} mm, "
              f"{det.get('timings_ms', {}).get('total', float('nan')):.0f} ms)")
    for w in det.get("warnings", []):
        err.print(f"[yellow]warning:[/] {escape(w)}")
    scene = g.load_scene({k: v for k, v in scene_json.items() if k != "detection"})
    print_situation(scene)
    ruling = charges.rule({"ruleset": "t9a-1", "scene": scene.to_json(), **DEMO_CHARGE})
    print_ruling(ruling)
    picture = draw_on_photo(image, scene.to_json(), ruling,
                            __import__("numpy").asarray(det["table_to_image"], dtype=float))
    write_outputs([(output, encode_png(picture), "-o")])
    out.print(f"Overlay written to [bold]{output}[/]")
    from server.demo_hex import demo_hex

    demo_hex()


# Commands that live in their own modules register themselves on ``app`` when imported.
from server import cli_charges, cli_hex, cli_serve, cli_sheet, cli_vision  # noqa: E402,F401


def main() -> None:
    """Console entry point: bad input becomes exit code 2 with a one-line message naming the
    field or file; usage errors are click's own (also exit code 2)."""
    try:
        app()
    except (InputError, ValueError) as e:
        err.print(f"[bold red]error:[/] {escape(str(e))}", highlight=False)
        sys.exit(2)
