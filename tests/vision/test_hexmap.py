"""The hex map layout (vision.hexmap) follows the engine's grid (HEX.md 3.1-3.3): centres are
``to_pixel``, corners lie one radius out and are shared by neighbours, a hexside feature is the
edge between its two hexes, facing arrows point along bearing 30 x f, stacks keep the
position's order, and a scattered position still draws a bounded picture."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from charges.hex import load_position
from charges.rulesets import get_ruleset
from geometry.hexgrid import neighbour, to_pixel
from vision.hexmap import MAX_DRAWN_HEXES, map_layout

HEX = Path(__file__).resolve().parents[2] / "server" / "samples" / "hex"
EDGEHILL = json.loads((HEX / "edgehill.json").read_text(encoding="utf-8"))
QUATRE_BRAS = json.loads((HEX / "quatre-bras.json").read_text(encoding="utf-8"))


def layout(doc: dict) -> dict:
    return map_layout(load_position(doc, get_ruleset(doc["ruleset"], kind="hex")))


def close(a, b, tol=2e-3) -> bool:
    return math.dist(a, b) <= tol


@pytest.mark.parametrize("grid", ["flat", "pointy"])
def test_hexes_sit_on_the_engines_grid(grid: str):
    doc = copy.deepcopy(EDGEHILL)
    doc["map"]["layout"] = grid
    lay = layout(doc)
    flats = doc["map"]["hex_flats_mm"]
    radius = flats / math.sqrt(3)
    corners = {}
    for h in lay["hexes"]:
        q, r = h["hex"]
        assert close((h["x"], h["y"]), to_pixel((q, r), flats, grid))
        for p in h["points"]:
            assert math.dist(p, (h["x"], h["y"])) == pytest.approx(radius, abs=2e-3)
        corners[(q, r)] = h["points"]
    # Side k of a hex is the edge its neighbour across k shares: vertices k-1 and k here are
    # vertices k+2 and k+3 there.
    for (q, r), pts in corners.items():
        for k in range(6):
            n = neighbour((q, r), k)
            if n in corners:
                theirs = corners[n]
                assert close(pts[(k - 1) % 6], theirs[(k + 3) % 6])
                assert close(pts[k], theirs[(k + 2) % 6])


def test_hexside_features_and_terrain():
    lay = layout(EDGEHILL)
    by_hex = {tuple(h["hex"]): h for h in lay["hexes"]}
    assert by_hex[(2, 1)]["terrain"] == "woods" and by_hex[(0, 0)]["terrain"] == "clear"
    assert by_hex[(0, 1)]["label"] == "1011"  # label_origin col0 10, row0 10
    stream = next(s for s in lay["hexsides"] if s["feature"] == "stream")
    ends = [stream["a"], stream["b"]]
    # The stream lies on side 0 of (1, 1): the edge it shares with (1, 0).
    shared = [p for p in by_hex[(1, 1)]["points"]
              if any(close(p, o) for o in by_hex[(1, 0)]["points"])]
    assert len(shared) == 2 and all(any(close(e, s) for s in shared) for e in ends)


def test_counters_face_their_code_and_keep_the_stack_order():
    lay = layout(EDGEHILL)
    units = {u["id"]: u for u in lay["units"]}
    for u in lay["units"]:
        if u["arrow"] is None:
            continue
        (x0, y0), (x1, y1) = u["arrow"]
        bearing = math.degrees(math.atan2(x1 - x0, -(y1 - y0))) % 360  # clockwise from north
        assert bearing == pytest.approx(30 * u["facing"], abs=0.01), u["id"]
    assert units["par-wagon"]["arrow"] is None  # wagons have no facing
    essex = units["par-essex"]  # a two-hex line: one counter across both hexes
    mid = [(a + b) / 2 for a, b in zip(to_pixel((-2, 0), 19.05), to_pixel((-1, 0), 19.05),
                                       strict=True)]
    assert close((essex["x"], essex["y"]), mid)
    assert essex["width"] > 19.05 > essex["height"]

    stack = {u["id"]: u for u in layout(QUATRE_BRAS)["units"]}
    assert [stack[i]["stack_depth"] for i in ("fr-art", "fr-bn1", "fr-bn2")] == [0, 1, 2]
    assert {stack[i]["stack_size"] for i in ("fr-art", "fr-bn1", "fr-bn2")} == {3}
    top = layout(QUATRE_BRAS)["stacks"]
    assert {"hex": [4, -1], "units": ["fr-art", "fr-bn1", "fr-bn2"]} in top


def test_a_scattered_position_draws_a_bounded_picture():
    doc = copy.deepcopy(EDGEHILL)
    del doc["map"]["bounds"]
    # Far off, within the +-10000 a position may use (charges/hex/fields.py).
    doc["units"][0]["hexes"] = [[9_000, -4_000]]
    lay = layout(doc)
    drawn = {tuple(h["hex"]) for h in lay["hexes"]}
    assert len(drawn) <= MAX_DRAWN_HEXES
    for u in doc["units"]:
        assert {tuple(h) for h in u["hexes"]} <= drawn
    assert all(math.isfinite(v) for v in lay["viewbox"])
