"""Exact odds (RULES.md 3) and the charge map (every possible charge on a table)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import charges
import geometry as g
from bench.tables import random_table
from charges.declaration import declare
from charges.dice import BEST_TWO_OF_THREE, TWO_D6

SAMPLE = Path(__file__).resolve().parents[2] / "server" / "samples" / "scene.json"


@pytest.mark.parametrize(("total", "chance"), [(2, Fraction(1)), (7, Fraction(21, 36)),
                                                (12, Fraction(1, 36)), (13, Fraction(0))])
def test_two_d6_by_enumeration(total, chance):
    assert TWO_D6.chance_at_least(total) == chance


def test_best_two_of_three_d6():
    # 10 or more with the best two of 3D6: 77 of the 216 outcomes.
    assert BEST_TWO_OF_THREE.chance_at_least(10) == Fraction(77, 216)
    assert BEST_TWO_OF_THREE.total((1, 6, 5)) == 11


def test_needed_rounds_up_and_never_below_the_smallest_roll():
    assert TWO_D6.needed(11.5, 8) == 4  # 3.5 in rounds up to 4
    assert TWO_D6.needed(10.0, 8) == 2
    assert TWO_D6.needed(3.0, 8) == 2  # already in reach: any roll


def test_odds_report():
    rep = charges.odds(8, 11.5)
    assert rep.needed == 4 and rep.odds == pytest.approx(33 / 36)
    assert charges.odds(8, 11.5, swiftstride=True).odds == pytest.approx(212 / 216)


@pytest.mark.parametrize(("args", "field"), [((-1, 5), "advance"), ((4, float("nan")),
                                                                     "distance")])
def test_bad_odds_name_the_field(args, field):
    with pytest.raises(ValueError, match=field):
        charges.odds(*args)


def test_unknown_ruleset_is_refused():
    with pytest.raises(ValueError, match="ruleset"):
        charges.odds(4, 5, ruleset="t9a-9")


def test_charge_map_of_the_sample_table():
    scene = g.load_scene(json.loads(SAMPLE.read_text()))
    entries = {(e.charger, e.target): e for e in charges.charge_map(scene)}
    knights = entries[("knights", "spears")]
    # 10.17 in with advance 8: 3 or more on the best two of 3D6 = 215/216.
    assert knights.declarable and knights.needed_in == 3
    assert knights.odds == pytest.approx(215 / 216)
    assert knights.legal_move is None  # not searched in the odds-only map
    # The swordsmen see the spears in their left arc at 19.46 in: beyond 4 + 12.
    far = entries[("swordsmen", "spears")]
    assert not far.declarable and far.odds == 0.0
    checked = {(e.charger, e.target): e for e in charges.charge_map(scene, check_moves=True)}
    assert checked[("knights", "spears")].legal_move is True
    assert checked[("knights", "spears")].models_in_contact == 11


def test_charge_map_agrees_with_full_declarations_on_a_crowded_table():
    # The map skips sight lines for pairs beyond the longest charge; that must not change any
    # yes/no, facing or odds against a full declaration listing every reason.
    rs = charges.rulesets.get_ruleset("t9a-1")
    sc = g.load_scene(random_table(np.random.default_rng(5), per_side=12, terrain=4))
    entries = charges.charge_map(sc)
    assert len(entries) > 50
    far = 0
    for m in entries:
        d = declare(sc, sc.unit(m.charger), sc.unit(m.target), rs)
        assert (m.declarable, m.facing) == (d.declarable, d.facing)
        far += any("beyond the longest" in r for r in d.reasons)
    assert 0 < far < len(entries)


def test_a_chance_is_never_shown_as_certain_or_impossible_unless_it_is():
    """Players read 100% as certain: 35/36 and 215/216 keep their decimals, 0.9995 its
    hundredths; only exact 1 and 0 are 100% and 0% (charges.format_chance)."""
    f = charges.format_chance
    assert f(1.0) == "100%" and f(0.0) == "0%"
    assert f(35 / 36) == "97.2%"
    assert f(215 / 216) == "99.5%"
    assert f(0.9995) == "99.95%"
    assert f(0.99999) == "99.999%"
    assert f(1 / 216) == "0.5%"
    assert f(1e-5) == "0.001%"
    assert f(0.996, 0) == "99.6%"
    assert f(7 / 12) == "58.3%"
