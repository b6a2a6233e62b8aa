"""Real camera photos of printed marker sheets with their known layout (tests/vision/data/,
from OpenCV's opencv_contrib ArUco tutorials, Apache License 2.0, copyright the OpenCV
authors; see data/README.md), turned into tables the way the photos' README describes: the
sheet's frame is the table frame, a few outer markers square to the sheet are the table
markers, every other marker is a 1 x 1 unit the size of its marker (offset 0, height 0)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

DATA = Path(__file__).resolve().parent / "data"

PHOTOS = {"img_00.jpg": "charuco_5x7", "img_01.jpg": "charuco_5x7",
          "singlemarkersoriginal.jpg": "singlemarkers"}
"""Photo -> the layout printed on it (``data/<layout>.layout.json``)."""

TABLE_SETS = {"charuco_5x7": [(0, 1, 15, 16), (2, 4, 12, 14)],
              "singlemarkers": [(23, 40, 98, 203)]}
"""Per layout, sets of four outer markers to use as table markers."""


def layout(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}.layout.json").read_text())


def photo(name: str) -> np.ndarray:
    img = cv2.imread(str(DATA / name))
    assert img is not None, name
    return img


def table_for(name: str, table_ids: tuple[int, ...],
              ) -> tuple[dict[str, Any], dict[str, tuple[float, float, float]]]:
    """The markers JSON of a layout with ``table_ids`` as table markers and the truth of the
    units: unit id -> (x, y, facing)."""
    lay = layout(name)
    w, d = lay["sheet_mm"]
    tm, units, truth = [], [], {}
    for m in lay["markers"]:
        if m["id"] in table_ids:
            assert m["facing"] == 90.0, "a table marker lies square with its top towards +y"
            tm.append({"id": m["id"], "x": m["x"], "y": m["y"], "size_mm": m["size_mm"]})
            continue
        uid = f"m{m['id']}"
        units.append({"marker": m["id"], "marker_size_mm": m["size_mm"],
                      "marker_offset_mm": [0, 0], "height_mm": 0, "id": uid, "side": "red",
                      "base": [m["size_mm"], m["size_mm"]], "files": 1, "ranks": 1})
        truth[uid] = (m["x"], m["y"], m["facing"])
    markers = {"dictionary": lay["dictionary"],
               "table": {"width_mm": w, "depth_mm": d, "markers": tm}, "units": units}
    return markers, truth


def cases(three: bool = True) -> list[tuple[str, tuple[int, ...]]]:
    """Every (photo, table markers) case: each set of four, and (``three``) each three of
    them, the fourth left out of the marker set (as if a hand covered it)."""
    out = []
    for name, lay in PHOTOS.items():
        for ids in TABLE_SETS[lay]:
            out.append((name, ids))
            if three:
                out += [(name, sub) for sub in itertools.combinations(ids, 3)]
    return out
