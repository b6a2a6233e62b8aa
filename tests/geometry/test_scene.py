"""Scene validation names the unit and the field (DESIGN.md, Scene)."""

from __future__ import annotations

import copy

import pytest

import geometry as g

GOOD = {
    "table": {"width_mm": 1828.8, "depth_mm": 1219.2},
    "terrain": [{"id": "rocks", "impassable": True, "opaque": False,
                 "polygon": [[100, 100], [200, 100], [150, 180]]}],
    "units": [
        {"id": "knights", "side": "red", "x": 600.0, "y": 300.0, "facing": 90.0,
         "base": [25, 50], "files": 5, "ranks": 2, "models": 9, "advance_in": 8},
        {"id": "spears", "side": "blue", "x": 620.0, "y": 700.0, "facing": -90.0,
         "base": [20, 20], "files": 6, "ranks": 3, "advance_in": 4},
    ],
}


def _bad(path: str, value) -> dict:
    data = copy.deepcopy(GOOD)
    node = data
    keys = path.split(".")
    for k in keys[:-1]:
        node = node[int(k)] if k.isdigit() else node[k]
    node[keys[-1]] = value
    return data


def test_good_scene_loads_with_defaults():
    s = g.load_scene(GOOD)
    k = s.unit("knights")
    assert k.formation.rear_files == (0, 1, 2, 3)
    assert s.unit("spears").model_count == 18
    assert s.terrain[0].opaque is False


@pytest.mark.parametrize(("path", "value", "words"), [
    ("units.0.models", 11, ["'knights'", "models", "5 files x 2 ranks"]),
    ("units.0.x", 10.0, ["'knights'", "off the table"]),
    ("units.1.y", 370.0, ["'knights'", "overlaps unit 'spears'"]),
    ("units.0.x", float("nan"), ["'knights'", "x", "finite"]),
    ("units.0.facing", float("inf"), ["'knights'", "facing", "finite"]),
    ("units.0.files", "five", ["'knights'", "files"]),
    ("units.0.state", "asleep", ["'knights'", "state"]),
    ("units.0.rear_rank", [0, 1, 7, 2], ["'knights'", "rear_rank", "outside"]),
    ("units.0.rear_rank", [0, 1, 2], ["'knights'", "rear_rank", "holds 4"]),
    ("units.0.rear_rank", [0, 0, 1, 2], ["'knights'", "rear_rank", "twice"]),
    ("units.0.rear_rank", "middle", ["'knights'", "rear_rank"]),
    ("units.0.models", 5, ["'knights'", "models", "empty"]),
    ("units.0.base", [25, -50], ["'knights'", "base", "positive"]),
    ("units.1.id", "knights", ["'knights'", "used by another unit"]),
    ("terrain.0.polygon", [[0, 0], [10, 10], [10, 0], [0, 10]], ["'rocks'", "self-intersects"]),
    ("terrain.0.polygon", [[0, 0], [10, 10]], ["'rocks'", "at least 3"]),
    # Wrong types are refused, not read as numbers (DESIGN.md, Scene): pydantic alone would
    # take the text "90" for 90 and true for 1.
    ("units.0.facing", "90", ["'knights'", "facing", "must be a number", "'90'"]),
    ("units.0.files", "5", ["'knights'", "files", "must be a number"]),
    ("units.0.x", True, ["'knights'", "x", "must be a number"]),
    ("units.0.base", ["25", 50], ["'knights'", "base[0]", "must be a number"]),
    ("units.0.swiftstride", 1, ["'knights'", "swiftstride", "true or false"]),
    ("terrain.0.opaque", "no", ["'rocks'", "opaque", "true or false"]),
    ("terrain.0.polygon", [[0, 0], ["10", 10], [10, 0]], ["'rocks'", "polygon", "number"]),
    ("table.width_mm", "1828.8", ["width_mm", "must be a number"]),
    ("units.0.id", "", ["id", "at least 1 character"]),
    ("units.0.side", "", ["'knights'", "side", "at least 1 character"]),
    ("units.0.id", "k" * 101, ["id", "at most 100 characters"]),
])
def test_bad_scenes_name_the_unit_and_field(path, value, words):
    with pytest.raises(g.SceneError) as err:
        g.load_scene(_bad(path, value))
    for w in words:
        assert w in str(err.value)


def test_scene_error_is_a_value_error():
    with pytest.raises(ValueError):
        g.load_scene([1, 2])


def test_missing_field_is_named():
    data = copy.deepcopy(GOOD)
    del data["units"][1]["facing"]
    with pytest.raises(g.SceneError, match="units\\[1\\] 'spears': facing: Field required"):
        g.load_scene(data)


def test_model_bases_follow_short_rear_rank():
    data = copy.deepcopy(GOOD)
    data["units"][0]["rear_rank"] = "right"
    k = g.load_scene(data).unit("knights")
    assert k.formation.rear_files == (1, 2, 3, 4)
    bases = g.model_bases(k.formation, k.pose)
    assert len(bases) == 9
    assert g.boundary(k.formation, k.pose).area == pytest.approx(125 * 100)
