"""Paths the wheel grid steps over (charges/grid_edges.py; RULES-editions.md 5, X5).

X5's better move lies in a legal window of wheel angles narrower than the 1-degree grid: the
least wheel that reaches the 3 + 3 end position (48.016 degrees, no forward move first) is
legal, and the first grid angle, 49, needs a forward move first that brings the rock into the
sweep. The search finds it from the edge of the grid's run of angles. On bench tables every
edge path is where the path stops existing: a forward distance is 0 there, and a thousandth
of a degree further out there is no path.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import charges
import geometry as g
from bench.tables import random_table
from charges.grid_edges import edge_paths
from charges.plan import SearchPlan
from charges.search import search_charge
from charges.shortest import distances, slot_of
from charges.world import World
from tests.charges import engine as S

X5 = Path(__file__).parent.parent / "scenarios" / "t9a-1" / "x5_whole_boundary_sweep.json"


def _x5() -> tuple[g.Scene, g.Unit, g.Unit]:
    req = json.loads(X5.read_text())["request"]
    scene = g.load_scene(req["scene"])
    return scene, scene.unit("a"), scene.unit("t")


def test_x5_window_is_narrower_than_the_grid():
    scene, a, t = _x5()
    world = World.for_unit(scene, a, t.id)
    move, _ = search_charge(a, t, "front", world)
    assert move is not None and move.candidate is not None
    c = move.candidate
    assert move.charger_models + move.target_models == 6
    frame = S.facing_frame(t.body, "front")
    form, start = a.formation, a.pose
    slot = slot_of(c.family, c.align_point, frame)
    # The wheel angles that reach the same end the same way, every 0.05 degree from it.
    sign = np.sign(c.wheel_deg)
    legal = []
    for k in range(100):
        theta = c.wheel_deg + sign * 0.05 * k
        p = S.candidate_at(form, start, frame, slot, c.s, theta)
        if p is not None and S.check_candidate(form, start, p, t.body, world).ok:
            legal.append(abs(theta))
    assert min(legal) == pytest.approx(48.016348, abs=1e-5)
    assert max(legal) - min(legal) < 1.0  # narrower than a grid step
    grid = S.candidate_at(form, start, frame, slot, c.s, sign * 49.0)
    assert grid is not None and grid.d1 > 1.0  # a forward move first ...
    assert not S.check_candidate(form, start, grid, t.body, world).ok  # ... into the rock


def test_x5_ruling_takes_the_least_wheel():
    req = json.loads(X5.read_text())["request"]
    c = charges.rule(req)["charges"][0]
    assert c["contact"]["models"] == 6
    kinds = [step["kind"] for step in c["path"]]
    assert kinds == ["wheel", "forward", "align"]  # no forward move first
    assert c["path"][0]["angle_deg"] == pytest.approx(-48.016348, abs=1e-5)
    assert c["path"][1]["distance_mm"] == pytest.approx(59.798, abs=1e-3)


@pytest.mark.parametrize("seed", [3, 4])
def test_edge_paths_are_where_paths_stop_existing(seed):
    rng = np.random.default_rng(seed)
    scene = g.load_scene(random_table(rng, per_side=10, terrain=4))
    checked = 0
    for m in charges.charge_map(scene, charges.get_ruleset("t9a-1")):
        if not m.declarable:
            continue
        ch, tg = scene.unit(m.charger), scene.unit(m.target)
        plan = SearchPlan.of(ch, tg, m.facing)
        table, src = edge_paths(ch.formation, ch.pose, plan.frame, plan.big,
                                np.arange(len(plan.big)))
        for i in range(len(table)):
            c = table.row(i)
            slot = slot_of(c.family, c.align_point, plan.frame)
            d1, d2, ok = distances(ch.formation, ch.pose, plan.frame, slot, np.array([c.s]),
                                   np.array([c.wheel_deg]))
            assert ok[0]
            assert d1[0] == pytest.approx(c.d1, abs=1e-6)
            assert d2[0] == pytest.approx(c.d2, abs=1e-6)
            assert min(c.d1, c.d2) < 1e-6  # the edge: a forward distance is 0
            grid_theta = plan.big.theta[src[i]]
            out = c.wheel_deg + np.sign(c.wheel_deg - grid_theta) * 1e-3
            _, _, ok_out = distances(ch.formation, ch.pose, plan.frame, slot, np.array([c.s]),
                                     np.array([out]))
            assert not ok_out[0]
            assert abs(c.wheel_deg - grid_theta) < S.THETA_GRID_DEG
            checked += 1
    assert checked > 50
