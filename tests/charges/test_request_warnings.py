"""A ruling says what it ignored (contract: clients may add fields, so they are not refused):
a misspelt field that would have changed the ruling, and an option the ruleset does not use."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import charges

SCENE = json.loads((Path(__file__).resolve().parents[2] / "server" / "samples" /
                    "scene.json").read_text(encoding="utf-8"))


def test_a_misspelt_unit_field_is_named_with_the_field_meant():
    scene = copy.deepcopy(SCENE)
    scene["units"][0]["swiftstirde"] = True
    a, b = scene["units"][0]["id"], next(u["id"] for u in scene["units"]
                                         if u["side"] != scene["units"][0]["side"])
    ruling = charges.rule({"scene": scene, "charges": [{"charger": a, "target": b}]})
    assert any("scene.units[0].swiftstirde" in w and "swiftstride" in w
               for w in ruling["warnings"]), ruling["warnings"]


def test_an_option_the_ruleset_does_not_use_is_said_and_a_clean_request_has_none():
    a, b = SCENE["units"][0]["id"], next(u["id"] for u in SCENE["units"]
                                         if u["side"] != SCENE["units"][0]["side"])
    req = {"ruleset": "tow", "scene": SCENE, "charges": [{"charger": a, "target": b}]}
    assert charges.rule(req)["warnings"] == []
    ruling = charges.rule({**req, "facing_roll": {a: 4}})
    assert ruling["warnings"] == ["facing_roll is used by whfb8 only; ignored for tow"]
