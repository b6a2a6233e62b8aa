"""The paths at the ends of a wheel's interval of reachable end offsets (charges/turn_edges.py):
for one wheel angle and kind of arrival both forward distances are affine in the end offset,
so the ends are where one of them is 0; and the least target turn found there is measured: a
wheel 0.02 degrees closer to the facing at the same end is blocked."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import numpy as np
import pytest

import charges
from charges.exact_check import check_candidate
from charges.facing_frame import facing_frame
from charges.request import parse_request
from charges.resolution import assess
from charges.shortest import distances, slot_of
from charges.turn_edges import turn_edge_at, turn_edge_table
from charges.world import World

SCENARIO = Path(__file__).parents[1] / "scenarios" / "t9a-1" / \
    "63_target_turn_least_after_a_pre_wheel.json"


@pytest.fixture(scope="module")
def assessed():
    request = json.loads(SCENARIO.read_text(encoding="utf-8"))["request"]
    req = parse_request(request)
    d = req.charges[0]
    sc = req.scene
    return assess(sc, sc.unit(d.charger), sc.unit(d.target), req.ruleset, d)


def test_edge_rows_have_a_forward_distance_of_zero(assessed):
    res = assessed
    form, start = res.charger.formation, res.charger.pose
    frame = facing_frame(res.target.body, res.declaration.facing)
    table, slots, which = turn_edge_table(form, start, frame)
    assert len(table) > 10
    for i in range(0, len(table), 7):
        d1, d2, ok = distances(form, start, frame, int(slots[i]), np.array([table.s[i]]),
                               np.array([table.theta[i]]))
        assert ok[0]
        zero = d1[0] if which[i] == 1 else d2[0]
        assert abs(zero) < 1e-6
        assert abs(table.d1[i] - max(d1[0], 0)) < 1e-6 and abs(table.d2[i] - max(d2[0], 0)) < 1e-6


def test_the_least_turn_at_an_edge_is_measured(assessed):
    res = assessed
    move = res.move
    assert move is not None and move.target_final is not None
    c = move.candidate
    form, start = res.charger.formation, res.charger.pose
    frame = facing_frame(res.target.body, move.facing)
    tw = partial(World.for_unit, res.world_scene, res.target,
                 ignore=frozenset({res.charger.id}))()
    slot = slot_of(c.family, c.align_point, frame)
    which = 1 if c.d1 < 1e-6 else 2
    closer = turn_edge_at(form, start, frame, slot, which, c.wheel_deg + 0.02)
    assert closer is not None and abs(closer.align_deg) < abs(c.align_deg)
    assert not check_candidate(form, start, closer, res.target.body, res.world,
                               target_turns=True, target_world=tw).ok
    ruling = charges.rule(json.loads(SCENARIO.read_text(encoding="utf-8"))["request"])
    assert abs(ruling["charges"][0]["priorities"]["target_turned_deg"]
               - abs(move.target_turn_deg)) < 1e-3
