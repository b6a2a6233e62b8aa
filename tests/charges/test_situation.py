"""The situation report names the arc a charge would hit by the ruleset's own facing rule, the
one the ruling uses (RULES.md 1: a tie goes to the flank), not the largest share alone."""

from __future__ import annotations

import json
from pathlib import Path

import charges
import geometry as g

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / "t9a-1"


def test_situation_and_ruling_agree_on_an_exact_tie():
    """Scenario 04: the charger stands half in the target's front arc and half in its flank
    arc (50% each); the tie goes to the flank, in the ruling and in the report alike."""
    request = json.loads((SCENARIOS / "04_exact_tie_goes_to_flank.json").read_text())["request"]
    ruling = charges.rule(request)["charges"][0]
    assert ruling["facing"] == "flank"
    charger, target = request["charges"][0]["charger"], request["charges"][0]["target"]
    sight = next(s for s in charges.situation(g.load_scene(request["scene"]))[charger]
                 if s.enemy == target)
    assert sight.enemy_arc == ruling["facing_side"]
    assert abs(sight.arc_share - 0.5) < 1e-3

