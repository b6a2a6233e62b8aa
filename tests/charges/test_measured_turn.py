"""RULES.md 4, "as little as possible" is measured, not sampled: when only the target can turn
(priority 2), its turn is the smallest angle that clears to within 0.01 degrees. Checked on
crowded bench tables (bench/tables.py) where the fallback is reached: the ruling's turn is
legal, and the same path arriving 0.01 degrees closer to flush (a 0.01-degree smaller turn) is
not: it is blocked, or no such path exists."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

import charges
from charges.request import parse_request
from charges.resolution import assess
from charges.shortest import slot_of
from charges.world import World
from tests.charges import engine as S

CASES = json.loads((Path(__file__).parent / "cases" / "target_turns.json").read_text())


@pytest.mark.parametrize("case", CASES["cases"], ids=[c["key"] for c in CASES["cases"]])
def test_target_turn_is_the_smallest_that_clears(case):
    req = parse_request(case["request"])
    decl = req.charges[0]
    scene = req.scene
    res = assess(scene, scene.unit(decl.charger), scene.unit(decl.target), req.ruleset, decl)
    move = res.move
    assert move is not None and move.target_final is not None, "the target no longer turns"
    turn = abs(move.target_turn_deg)
    assert turn > 0.01
    c = move.candidate
    assert c is not None
    frame = S.facing_frame(res.target.body, move.facing)
    form, start = res.charger.formation, res.charger.pose
    target_world = partial(World.for_unit, scene, res.target,
                           ignore=frozenset({res.charger.id}))()
    assert res.world is not None

    def legal(cand: S.Candidate) -> bool:
        return S.check_candidate(form, start, cand, res.target.body, res.world,
                                 target_turns=True, target_world=target_world).ok

    assert legal(c)
    closer = c.wheel_deg + (0.01 if c.align_deg > 0 else -0.01)
    less = S.candidate_at(form, start, frame, slot_of(c.family, c.align_point, frame), c.s,
                          closer)
    # No path arrives that way (a forward distance would be negative), or it is blocked.
    if less is not None:
        assert abs(less.align_deg) < turn
        assert not legal(less), f"a turn of {abs(less.align_deg):.4f} deg also clears"
    # And the ruling reports that turn.
    ruling = charges.rule(case["request"])
    assert abs(ruling["charges"][0]["priorities"]["target_turned_deg"] - turn) < 1e-3
