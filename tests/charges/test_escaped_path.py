"""tow 1.7 [D]: when a fleeing target escapes, the charger moves its full charge range along
the best charge path of 1.4 towards it, stopped 1 in from enemies; not a failed charge."""

from __future__ import annotations

import json
import math
from pathlib import Path

import charges

from ..checker import check_ruling

TOW3 = Path(__file__).parents[1] / "scenarios" / "tow" / "34_tow3_flee_target_escaped.json"


def _offset_request() -> dict:
    """TOW-3 with the charger 90 mm to the left: its best path towards the fled unit wheels."""
    request = json.loads(TOW3.read_text())["request"]
    request["scene"]["units"][0]["x"] -= 90
    return request


def test_escaped_charger_follows_the_best_charge_path():
    request = _offset_request()
    ruling = charges.rule(request)
    check_ruling(request, ruling)
    e = ruling["charges"][0]
    assert e["outcome"] == "target_escaped" and e["range_in"] == 10
    # The best charge path towards the fled unit, as the odds-only ruling against the same
    # fled position shows it (the flight made first, then no dice).
    fled = json.loads(json.dumps(request))
    fled.pop("dice")
    fled.pop("flee")
    t = next(u for u in fled["scene"]["units"] if u["id"] == "t")
    t.update(e["target_final"], state="fleeing")
    best = charges.rule(fled)["charges"][0]["path"]
    assert best[0]["kind"] == e["path"][0]["kind"] == "wheel"
    assert math.isclose(best[0]["angle_deg"], e["path"][0]["angle_deg"], abs_tol=1e-4)
    # The whole range is moved (the wheel's outer corner arc paid, then forward).
    width = 125.0
    paid = sum(s["distance_mm"] if s["kind"] == "forward" else
               width * math.radians(abs(s["angle_deg"])) for s in e["path"])
    assert math.isclose(paid, 254.0, abs_tol=1e-3)
    assert e["explanation"][-1].count("along the best charge path") == 1
