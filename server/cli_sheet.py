"""`umpire markers markers.json -o sheet.pdf`: the printable marker sheet (DESIGN.md, Command
line; registered on `server.cli.app`).

Bad input - an unreadable or invalid markers file, a marker too big for A4, an output path
that cannot be written - exits with code 2 and a message naming the file and the field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from server.cli import InputError, app, out, read_json
from vision.errors import MarkersError
from vision.markers import load_markers
from vision.sheet import layout, sheet_markers, sheet_pdf


@app.command(name="markers")
def markers_cmd(
    markers_file: Annotated[Path, typer.Argument(metavar="MARKERS",
                                                 help="Table and marker set JSON.")],
    output: Annotated[Path, typer.Option("-o", "--output",
                                         help="PDF to write (A4 pages).")],
) -> None:
    """Write the table and tray markers at exact printed size, with a 100 mm scale bar."""
    data = read_json(markers_file, "markers file")
    try:
        ms = load_markers(data, prefix=f"markers file {markers_file}: ")
        places = layout(sheet_markers(ms))
        pdf = sheet_pdf(ms)
    except MarkersError as e:
        msg = str(e)
        if not msg.startswith("markers file"):
            msg = f"markers file {markers_file}: " + msg.removeprefix("markers: ")
        raise InputError(msg) from None
    try:
        output.write_bytes(pdf)
    except OSError as e:
        raise InputError(f"output {output}: cannot write ({e.strerror})") from None
    pages = 1 + max((p.page for p in places), default=0)
    out.print(f"{len(places)} markers on {pages} A4 page{'s' if pages != 1 else ''} written to "
              f"{output}. Print at 100 % and check the 100 mm bar with a ruler.")
