"""Other enemies touched at an angle align to the charger (tow 1.5, whfb8 2.5;
charges/secondary_align.py): the least turn, and the checker catching a ruling that leaves
such a unit unaligned without saying so."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

import geometry as g
from charges.secondary_align import least_flush_turn
from geometry.formation import boundary_coords
from tests.checker import check_ruling, rule_and_check

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
ANGLED = SCENARIOS / "tow" / "55_secondary_target_at_an_angle_aligns_to_the_charger.json"


def _ring(x: float, y: float, facing: float, files: int, ranks: int) -> list:
    return boundary_coords(g.Formation.full((25.0, 25.0), files, ranks), g.Pose(x, y, facing))


@pytest.mark.parametrize("tilt", [-35.0, -10.0, -0.5, 0.5, 10.0, 35.0])
def test_the_least_turn_lays_a_side_on_the_chargers_front(tilt: float):
    # The charger's front on y = 0 over x -62.5..62.5; the other unit faces -90 + tilt and
    # touches that front with one corner at (20, 0).
    charger = _ring(0.0, -25.0, 90.0, 5, 2)
    f = math.radians(-90.0 + tilt)
    fwd, right = (math.cos(f), math.sin(f)), (math.sin(f), -math.cos(f))
    side = 12.5 if tilt > 0 else -12.5  # the corner nearest the front line
    cx = 20.0 - 25.0 * fwd[0] - side * right[0]
    cy = 0.0 - 25.0 * fwd[1] - side * right[1]
    other = _ring(cx, cy, -90.0 + tilt, 1, 2)
    assert min(p[1] for p in other) == pytest.approx(0.0, abs=1e-9)
    pivot, turn = least_flush_turn(charger, other)
    assert pivot == pytest.approx((20.0, 0.0), abs=1e-9)
    assert turn == pytest.approx(-tilt, abs=1e-9)  # back to facing -90, flush on y = 0
    turned = g.Pose(cx, cy, -90.0 + tilt).rotated(pivot, turn)
    ys = sorted(p[1] for p in _ring(turned.x, turned.y, turned.facing, 1, 2))
    assert ys[:2] == pytest.approx([0.0, 0.0], abs=1e-9)


def test_units_apart_have_no_turn():
    assert least_flush_turn(_ring(0, 0, 90, 2, 1), _ring(0, 100, -90, 2, 1)) is None


def test_a_flush_unit_needs_no_turn():
    pivot, turn = least_flush_turn(_ring(0, -25, 90, 5, 2), _ring(10, 25, -90, 1, 2))
    assert turn == pytest.approx(0.0, abs=1e-9)


@pytest.fixture(scope="module")
def angled() -> tuple[dict, dict]:
    request = json.loads(ANGLED.read_text(encoding="utf-8"))["request"]
    return request, rule_and_check(request)


def test_a_secondary_left_at_an_angle_is_caught(angled):
    request, ruling = copy.deepcopy(angled)
    entry = ruling["charges"][0]
    entry["path"] = [s for s in entry["path"] if s.get("unit") != "e2"]
    for u in ruling["units"]:
        if u["id"] == "e2":
            e2 = next(v for v in request["scene"]["units"] if v["id"] == "e2")
            u.update(x=e2["x"], y=e2["y"], facing=e2["facing"])
    with pytest.raises(AssertionError) as info:
        check_ruling(request, ruling)
    assert "'e2' is touched at an angle" in str(info.value)
    assert "disordered_against" in str(info.value)


def test_a_wrong_disordered_list_is_caught(angled):
    request, ruling = copy.deepcopy(angled)
    ruling["charges"][0]["disordered_against"] = ["e1", "e2"]
    with pytest.raises(AssertionError) as info:
        check_ruling(request, ruling)
    assert "['e2'] had to align" in str(info.value)
