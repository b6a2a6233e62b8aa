"""The failed charge that wheels (tow 1.6, whfb8 2.6 and RULES-editions.md 7a): the one-wheel
move towards the target's centre, and whfb8's second wheel round what stops it, against a
brute force over a finer grid of two-wheel paths."""

from __future__ import annotations

import json
import math
from pathlib import Path

import charges
import geometry as g
from charges.failed_wheel import failed_wheel_move, two_wheel_failed_move
from charges.world import World

from ..checker import check_ruling

SCENE = Path(__file__).parents[1] / "scenarios" / "tow" / \
    "30_failed_charge_ends_1_in_from_another_enemy.json"


def _request(rock_x: float = 720.0) -> dict:
    """TOW-1's scene in whfb8, the target 10 files wide, an impassable rock 22 mm wide 100 mm
    ahead, from ``rock_x`` (the charger spans x 600..725: at 720 the rock is 5 mm inside its
    right edge, at 700 25 mm); dice [1, 4]: 9 in against 10 in, a failed move of 4 in."""
    request = json.loads(SCENE.read_text())["request"]
    request["ruleset"] = "whfb8"
    request["scene"]["units"] = request["scene"]["units"][:2]
    request["scene"]["units"][1]["files"] = 10
    request["scene"]["terrain"] = [{"id": "rock", "impassable": True, "opaque": False,
                                    "polygon": [[rock_x, 400], [rock_x + 22, 400],
                                                [rock_x + 22, 416], [rock_x, 416]]}]
    request["dice"] = {"a": [1, 4]}
    return request


def _worlds(scene: g.Scene) -> tuple[g.Unit, tuple[float, float], World]:
    a, t = scene.unit("a"), scene.unit("t")
    return a, t.pose.centre, World.for_unit(scene, a)


def test_one_wheel_stops_at_the_rock_and_two_wheels_end_closer():
    scene = g.load_scene(_request()["scene"])
    a, aim, world = _worlds(scene)
    dist = g.in_to_mm(4)
    one = failed_wheel_move(a.formation, a.pose, aim, dist, world, 25.4, world)
    # Straight at t's centre, stopped with the front 1 in short of the rock (y 400): 74.6 mm.
    assert one.turn_deg == 0 and math.isclose(one.moved_mm, 400 - 25.4 - 300, abs_tol=1e-3)
    assert one.stopped_by and "rock" in one.stopped_by
    two = two_wheel_failed_move(a.formation, a.pose, aim, dist, world, 25.4, world)
    gap = math.dist(two.final.centre, aim)
    assert gap < math.dist(one.final.centre, aim) - 3.0  # 229.4 mm -> about 225 mm
    # It steers round: the whole 4 in, paid (whfb8 2.6 [D] 3: "totalling the highest die").
    paid = sum(s.length_mm(a.formation) for s in two.steps)
    assert two.stopped_by is None and math.isclose(paid, dist, abs_tol=1e-3)
    rock = scene.terrain[0].shape
    assert g.boundary(a.formation, two.final).distance(rock) >= 25.4 - 1e-3


def test_no_way_round_stops_straight_short_of_the_rock():
    """The rock 25 mm inside the charger's right edge: no path of the 4 in gets round it 1 in
    clear, so the move goes straight at the target and stops 1 in short (whfb8 2.6 [D] 4: "no
    wheel can steer it round"). A wheel away that is itself stopped short is no way round,
    even if its corner carries the centre a few mm nearer (outside testing, round 2, F3)."""
    scene = g.load_scene(_request(700.0)["scene"])
    a, aim, world = _worlds(scene)
    two = two_wheel_failed_move(a.formation, a.pose, aim, g.in_to_mm(4), world, 25.4, world)
    assert [s.kind for s in two.steps] == ["forward"]
    assert math.isclose(two.moved_mm, 400 - 25.4 - 300, abs_tol=1e-3)
    assert two.final.facing == a.pose.facing


def test_two_wheels_agree_with_a_finer_brute_force():
    """Every first wheel of 2 degrees either way and ten first legs, then the one-wheel move,
    each moving the whole distance: the search's path ends within 1 mm of the best of them."""
    scene = g.load_scene(_request()["scene"])
    a, aim, world = _worlds(scene)
    form, dist = a.formation, g.in_to_mm(4)
    found = two_wheel_failed_move(form, a.pose, aim, dist, world, 25.4, world)
    best = math.inf
    for sign, pivot in ((1, "left"), (-1, "right")):
        for ang in range(2, 91, 2):
            cost = form.width * math.radians(ang)
            if cost >= dist:
                break
            wheel = g.Wheel(pivot, sign * ang)
            if world.blocked(wheel.swept(form, a.pose)) is not None:
                break
            p1 = wheel.apply(form, a.pose)
            if g.boundary(form, p1).distance(scene.terrain[0].shape) < 25.4:
                continue
            room = failed_wheel_move(form, p1, (p1.x + 1e3 * p1.forward[0],
                                                p1.y + 1e3 * p1.forward[1]),
                                     dist - cost, world, 25.4, world).moved_mm
            for k in range(1, 11):
                p2 = g.forward(p1, room * k / 10)
                rest = dist - cost - room * k / 10
                end = failed_wheel_move(form, p2, aim, rest, world, 25.4, world)
                if end.stopped_by is None:
                    best = min(best, math.dist(end.final.centre, aim))
    assert math.isfinite(best)
    assert math.dist(found.final.centre, aim) <= best + 1.0


def test_whfb8_ruling_goes_round_and_says_so():
    request = _request()
    ruling = charges.rule(request)
    check_ruling(request, ruling)
    e = ruling["charges"][0]
    assert e["outcome"] == "failed" and e["path"][0]["kind"] == "wheel"
    text = e["explanation"][-1]
    assert "of the paths with up to two wheels" in text and "rock" in text
