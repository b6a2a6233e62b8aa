"""Ruling fields a client reads back (DESIGN.md, Ruling): the priority tuple by its own names,
every distance in both units, and the state a chained ruling starts from."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import charges

CASES = Path(__file__).with_name("cases")


def _rule(name: str) -> dict:
    return charges.rule(json.loads((CASES / name).read_text()))


@pytest.mark.parametrize("name", ["two_chargers_whfb8.json", "two_chargers_t9a1.json"])
def test_priorities_can_be_read_back_in_order(name: str):
    """``[priorities[n] for n in priorities["order"]]`` is the tuple (whfb8 2.8's equal split
    included: W8-4's two 5-wide chargers on a 6-wide front get 4 and 4)."""
    for c in _rule(name)["charges"]:
        p = c["priorities"]
        values = [p[n] for n in p["order"]]
        assert len(values) == len(p["order"])
        if "equal_split" in p["order"]:
            assert p["equal_split"] == 0
            assert c["multiple_charge"]["charger_models"] == {"A": 4, "A2": 4}
        if "target_turned" in p["order"]:
            assert p["target_turned"] == p["target_turned_deg"]


def _pairs(obj: object, path: str = "") -> list[str]:
    """Every ``*_mm`` key without its ``*_in`` (and the reverse), but the path steps' own
    ``distance_mm`` (the step contract) and ``needed_in`` (a roll, not a distance)."""
    out: list[str] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            for a, b in (("_mm", "_in"), ("_in", "_mm")):
                if k.endswith(a) and k[: -len(a)] + b not in obj and \
                        k not in ("needed_in", "sigma_mm", "margin_in", "margin_mm"):
                    out.append(f"{path}.{k}")
            out += _pairs(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            if not (isinstance(v, dict) and "kind" in v and "pose" in v and
                    path.endswith(".path")):
                out += _pairs(v, f"{path}[{i}]")
    return out


def test_every_distance_comes_in_both_units():
    """DESIGN.md Conventions: every distance in a ruling is given as ``*_mm`` and ``*_in``
    (tow's paid path, its range, a flight's roll and its route)."""
    ruling = _rule("target_escaped_with_another_enemy.json")
    c = ruling["charges"][0]
    assert c["outcome"] == "target_escaped"
    assert "flee" in c and "max_range_mm" in c and "shortest_paid_path_mm" in c
    assert _pairs(c) == []


def test_a_charger_whose_target_escaped_cannot_charge_again():
    """tow 1.6: a unit that charged this turn, failed charges included, cannot move again; a
    target that escaped (1.7) leaves its charger ``disrupted``, so a ruling chained from this
    one's ``units`` refuses its second charge."""
    req = json.loads((CASES / "target_escaped_with_another_enemy.json").read_text())
    first = charges.rule(copy.deepcopy(req))
    assert first["charges"][0]["outcome"] == "target_escaped"
    after = {u["id"]: u for u in first["units"]}
    assert after["a"]["state"] == "disrupted"
    scene = copy.deepcopy(req["scene"])
    for u in scene["units"]:
        u.update({k: after[u["id"]][k] for k in ("x", "y", "facing", "state")})
    second = charges.rule({"ruleset": "tow", "scene": scene,
                           "charges": [{"charger": "a", "target": "e"}], "dice": {"a": [6, 6]}})
    c = second["charges"][0]
    assert c["declarable"] is False
    assert any("only a ready unit may charge" in r for r in c["reasons"])


def test_a_charge_that_cannot_be_declared_needs_no_dice():
    """RULES.md 2: no roll is made for a charge that cannot be declared, so a multiple charge
    with dice for the others is ruled (knights, outside the archers' front arc, is
    ``impossible`` with no roll); a declarable charger without dice is still asked for them
    by name."""
    req = json.loads((CASES / "undeclarable_charger_without_dice.json").read_text())
    by = {c["charger"]: c for c in charges.rule(copy.deepcopy(req))["charges"]}
    assert by["knights"]["declarable"] is False and by["knights"]["outcome"] == "impossible"
    assert by["knights"]["range_in"] is None
    assert by["swordsmen"]["range_in"] == 12.0  # M 4 + 3 + 5
    req["dice"] = {"knights": [3, 4, 5]}
    with pytest.raises(charges.RequestError, match="no roll given for swordsmen"):
        charges.rule(req)
