"""The checker must catch broken rulings: each test tampers with a good ruling of the sample
scene and expects ``check_ruling`` to fail with a message naming the problem."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests.checker import check_ruling, rule_and_check

SAMPLE = Path(__file__).resolve().parents[2] / "server" / "samples" / "scene.json"


@pytest.fixture(scope="module")
def scene() -> dict:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def good(scene: dict) -> tuple[dict, dict]:
    request = {"scene": scene, "charges": [{"charger": "knights", "target": "spears"}],
               "dice": {"knights": [3, 5, 2]}}
    ruling = rule_and_check(request)
    assert ruling["charges"][0]["outcome"] == "success"
    return request, ruling


def _fails(request: dict, ruling: dict, *words: str) -> str:
    with pytest.raises(AssertionError) as info:
        check_ruling(request, ruling)
    msg = str(info.value)
    for w in words:
        assert w in msg, msg
    return msg


def test_good_ruling_passes(good):
    check_ruling(*good)


def test_shifted_final_is_caught(good):
    request, ruling = copy.deepcopy(good)
    ruling["charges"][0]["final"]["x"] += 0.5
    _fails(request, ruling, "final")


def test_shifted_path_pose_is_caught(good):
    request, ruling = copy.deepcopy(good)
    ruling["charges"][0]["path"][2]["pose"]["y"] -= 0.05
    _fails(request, ruling, "path[2]", "replays to")


def test_wrong_contact_count_is_caught(good):
    request, ruling = copy.deepcopy(good)
    ruling["charges"][0]["contact"]["target_models"] = 7
    _fails(request, ruling, "brute-force count", "5 + 6")


def test_wrong_priority_total_is_caught(good):
    request, ruling = copy.deepcopy(good)
    ruling["charges"][0]["priorities"]["models_in_contact"] = 12
    _fails(request, ruling, "models_in_contact")


def test_path_through_a_unit_is_caught(good):
    """Put a friendly unit across the path: the forward step now sweeps through it."""
    request, ruling = copy.deepcopy(good)
    request["scene"]["units"].append(
        {"id": "wall", "side": "red", "x": 630.0, "y": 450.0, "facing": 0.0,
         "base": [20, 20], "files": 2, "ranks": 1})
    ruling["units"].append({"id": "wall", "side": "red", "x": 630.0, "y": 450.0,
                            "facing": 0.0, "state": "ready"})
    kinds = [st["kind"] for st in ruling["charges"][0]["path"]]
    lane = len(kinds) - 1 - kinds[::-1].index("forward")  # the forward move into contact
    _fails(request, ruling, f"path[{lane}] forward", "overlaps unit 'wall'")


def test_path_touching_another_enemy_is_caught(good):
    request, ruling = copy.deepcopy(good)
    # An enemy just beside the forward lane: touching, not overlapping.
    # The lane is the forward move after the wheel (its heading depends on the engine's
    # choice of path; the skirmisher is set parallel to it).
    kinds = [st["kind"] for st in ruling["charges"][0]["path"]]
    assert "wheel" in kinds and kinds[kinds.index("wheel") + 1] == "forward"
    final = ruling["charges"][0]["path"][kinds.index("wheel") + 1]["pose"]
    heading = final["facing"]
    request["scene"]["units"].append(
        {"id": "skirmish", "side": "blue", "x": 560.0, "y": 450.0, "facing": heading,
         "base": [20, 20], "files": 1, "ranks": 1})
    ruling["units"].append({"id": "skirmish", "side": "blue", "x": 560.0, "y": 450.0,
                            "facing": heading, "state": "ready"})
    # Move it until it exactly touches the charger's swept lane (left edge of the lane).
    import geometry as g

    pose = g.Pose.from_json(final)
    sc = g.load_scene(request["scene"])
    kn = sc.unit("knights")
    half_w = kn.formation.width / 2
    lane_left = pose.to_world(-half_w, 0.0)
    r = pose.right
    cx, cy = lane_left[0] - 10.0 * r[0], lane_left[1] - 10.0 * r[1]
    request["scene"]["units"][-1].update(x=cx, y=cy)
    ruling["units"][-1].update(x=cx, y=cy)
    _fails(request, ruling, "touches enemy unit 'skirmish'")


def test_path_through_terrain_is_caught(good):
    request, ruling = copy.deepcopy(good)
    request["scene"]["terrain"].append(
        {"id": "pond", "impassable": True, "opaque": False,
         "polygon": [[600, 440], [640, 440], [640, 470], [600, 470]]})
    _fails(request, ruling, "impassable terrain 'pond'")


def test_off_flush_final_is_caught(good):
    """Turn the whole ending by a degree: poses replay, but the front is not flush."""
    request, ruling = copy.deepcopy(good)
    c = ruling["charges"][0]
    align = [st["kind"] for st in c["path"]].index("align")
    c["path"][align]["angle_deg"] += 1.0
    _fails(request, ruling, f"path[{align}] align", "replays to")


def test_units_list_out_of_step_is_caught(good):
    request, ruling = copy.deepcopy(good)
    for u in ruling["units"]:
        if u["id"] == "knights":
            u["state"] = "ready"
    _fails(request, ruling, "units 'knights' state")


def test_failed_charge_claims_are_checked(scene):
    request = {"scene": scene, "charges": [{"charger": "knights", "target": "spears"}],
               "dice": {"knights": [1, 1, 1]}}
    ruling = rule_and_check(request)
    c = ruling["charges"][0]
    assert c["outcome"] == "failed"
    bad = copy.deepcopy(ruling)
    for u in bad["units"]:
        if u["id"] == "knights":
            u["state"] = "ready"
    _fails(request, bad, "state")


def test_wrong_facing_is_caught(good):
    request, ruling = copy.deepcopy(good)
    ruling["charges"][0]["facing"] = "flank"
    _fails(request, ruling, "charged facing 'flank'")


def test_charges_on_two_targets_pass(scene):
    request = {"scene": scene, "charges": [{"charger": "knights", "target": "spears"},
                                           {"charger": "swordsmen", "target": "archers"}],
               "dice": {"knights": [6, 5, 2], "swordsmen": [6, 6]}}
    ruling = rule_and_check(request)
    assert [c["outcome"] for c in ruling["charges"]] == ["success", "success"]


SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / "t9a-1"


def test_multiple_charge_rulings_pass_and_their_combined_count_is_checked():
    """Two chargers against one target (RULES.md 8): the ruling passes the checker, which
    recounts the combined models by brute force, and a wrong combined count is caught."""
    request = json.loads((SCENARIOS / "51_multiple_side_by_side_counts_once.json").read_text()
                         )["request"]
    ruling = rule_and_check(request)
    assert [c["outcome"] for c in ruling["charges"]] == ["success", "success"]
    assert ruling["charges"][0]["multiple_charge"]["models_in_contact"] == 18
    bad = copy.deepcopy(ruling)
    for c in bad["charges"]:
        c["multiple_charge"]["models_in_contact"] = 20  # each charger's own 4 + 6, summed
    _fails(request, bad, "multiple_charge claims 20", "gives 18")
