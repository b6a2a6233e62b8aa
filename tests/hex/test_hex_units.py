"""Unit checks of the hex engine that scenario files do not express: the odds table of HEX.md 9
E6, the chit cup's probabilities (E15), the API's errors and options."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import charges
from charges.hex.odds import combat_odds, halve

SAMPLES = Path(__file__).resolve().parents[2] / "server" / "samples" / "hex"


@pytest.mark.parametrize("a,d,ratio,drm", [
    (8, 2, "4:1", 2), (7, 2, "3:1", 1), (4, 2, "2:1", 1), (3, 2, "1:1", 0), (18, 18, "1:1", 0),
    (17, 18, "1:2", -1), (2, 3, "1:2", -1), (3, 9, "1:3", -1), (3, 10, "1:4", -2),
    (2, 7, "1:4", -2), (1, 9, "1:9", -2)])
def test_e6_odds_table(a, d, ratio, drm):
    """M&P 11.3.4 (HEX.md 9 E6): the simple ratio rounded for the defender, D-6 and D-7."""
    o = combat_odds(Fraction(a), Fraction(d))
    assert (o.ratio, o.value) == (ratio, drm)


def test_e6_halving_rows():
    """11.3.5: cavalry 3 against HI 18 is 3:9 = 1:3; cavalry 7 against HI 7 is 2:1 exact (D-5)
    and 7:4 = 1:1 rounded up."""
    assert combat_odds(Fraction(3), halve(18)).ratio == "1:3"
    assert combat_odds(Fraction(7), halve(7)).ratio == "2:1"
    assert halve(7) == Fraction(7, 2)
    assert combat_odds(Fraction(7), halve(7, "up")).ratio == "1:1"


def _cup_position() -> dict:
    mus = [{"id": i, "side": "french" if i[0] == "F" else "allied", "units": []}
           for i in ("F1", "F2", "F3", "A1", "A2", "A3")]
    return {"ruleset": "lb", "turn": {"initiative_side": "french", "clock": "14:30"},
            "units": [], "maneuver_units": mus, "reinforcements": []}


def test_e15_cup_probabilities_by_monte_carlo():
    """HEX.md 9 E15: 100 000 seeded draws land within 0.005 of the exact probabilities."""
    from charges.hex.cup import shuffled
    chits = ["reinforcements", "artillery", "leaders", "rally", "F1", "F2", "F3", "A1", "A2",
             "A3"]
    n = 100_000
    before_f2 = last = french_first = 0
    position_sum = allied_before_leaders = 0
    import random
    rng = random.Random(20241201)
    for _ in range(n):
        order = shuffled(chits, rng.getrandbits(32))
        r = order.index("rally")
        before_f2 += r < order.index("F2")
        last += r == 9
        position_sum += r + 1
        french_first += all(order.index(f) < r for f in ("F1", "F2", "F3"))
        ldr = order.index("leaders")
        allied_before_leaders += sum(order.index(a) < ldr for a in ("A1", "A2", "A3"))
    assert abs(before_f2 / n - 1 / 2) < 0.005
    assert abs(last / n - 1 / 10) < 0.005
    assert abs(position_sum / n - 5.5) < 0.05  # E[draw number] = 5.5 (spread 2.9: 0.05 ~ 5 sigma)
    assert abs(french_first / n - 1 / 4) < 0.005
    assert abs(allied_before_leaders / n - 1.5) < 0.02


def test_cup_seed_is_reproducible_and_covers_the_cup():
    a = charges.hex_rule("cup", _cup_position(), seed=11)
    b = charges.hex_rule("cup", _cup_position(), seed=11)
    assert [d["chit"] for d in a["draws"]] == [d["chit"] for d in b["draws"]]
    assert sorted(d["chit"] for d in a["draws"]) == sorted(a["cup"])
    assert [d["drawn_by"] for d in a["draws"][:4]] == ["french", "allied", "french", "allied"]


def test_unknown_kind_option_and_value_are_named():
    pos = json.loads((SAMPLES / "edgehill.json").read_text())
    with pytest.raises(ValueError, match="kind: UNKNOWN_KIND"):
        charges.hex_rule("assault", pos, assault=["x"], target=["y"])
    with pytest.raises(ValueError, match="colour: UNKNOWN_OPTION"):
        charges.hex_rule("combat", pos, defender="par-ramsey", colour="red")
    with pytest.raises(ValueError, match="halve_rounding: BAD_OPTION"):
        charges.hex_rule("combat", pos, defender="par-ramsey", halve_rounding="sideways")
    with pytest.raises(ValueError, match="defender: UNKNOWN_UNIT"):
        charges.hex_rule("combat", pos, defender="nobody")
    with pytest.raises(ValueError, match="ruleset"):
        charges.hex_rule("combat", {**pos, "ruleset": "asl"}, defender="par-ramsey")


def test_both_ruleset_names_work_and_the_ruling_echoes_the_position():
    pos = json.loads((SAMPLES / "edgehill.json").read_text())
    data = json.loads((SAMPLES / "rules-data-illustrative.json").read_text())
    for name in ("mpbs-6", "mpbs"):
        r = charges.hex_rule("close_combat", {**pos, "ruleset": name}, defender="par-ramsey",
                             rules_data=data)
        assert r["ruling"] == "close_combat" and r["ruleset"] == name
        assert r["net"] == 3 and r["odds"]["ratio"] == "1:2"


def test_inline_rules_data_in_the_position_is_used():
    pos = json.loads((SAMPLES / "edgehill.json").read_text())
    data = json.loads((SAMPLES / "rules-data-illustrative.json").read_text())
    r = charges.hex_rule("combat", {**pos, "rules_data": data["mpbs"]}, defender="par-ramsey")
    assert r["complete"] and r["net"] == 3
    missing = charges.hex_rule("combat", pos, defender="par-ramsey")
    assert not missing["complete"] and missing["net"] is None
    need = [x for x in missing["reasons"] if x["code"] == "NEEDS_RULES_DATA"]
    assert "cc_matrix" in need[0]["message"] and "rules-data-illustrative.json" in \
        need[0]["message"] and need[0]["rule"] == "11.3.8"


def test_labels_in_the_position():
    pos = {"ruleset": "mpbs-6", "map": {"label_origin": {"col0": 10, "row0": 10, "parity": 0}},
           "units": [{"id": "a", "side": "x", "type": "cavalry", "hexes": ["1010"], "facing": 1,
                      "strength_printed": 2, "morale": 5},
                     {"id": "b", "side": "y", "type": "cavalry", "hexes": ["1009"], "facing": 7,
                      "strength_printed": 2, "morale": 5}]}
    r = charges.hex_rule("combat", pos, defender="a")
    assert r["attackers"] == ["b"]  # 1009 is (0,-1), the hex north of 1010 = (0,0)


def test_describe_lists_every_decision_once_as_an_option():
    from charges.hex import describe
    rulesets = {r["name"]: r for r in describe()}
    assert set(rulesets) == {"mpbs", "lb"}
    assert "close_combat" in rulesets["mpbs"]["kinds"] and "cup" in rulesets["lb"]["kinds"]
    decisions = sorted((o["decision"] for r in rulesets.values() for o in r["options"].values()
                        if o["decision"]), key=lambda d: int(d[2:]))
    assert decisions == [f"D-{n}" for n in range(1, 21)]
    json.dumps(describe())
