"""The scene model's bounds on its numbers and its warnings on fields it does not know (outside
report 3, findings 1 and 4): geometry/scene.py."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import charges
from geometry.scene import SceneError, load_scene, scene_warnings

SAMPLE = Path(__file__).resolve().parents[2] / "server" / "samples" / "scene.json"


@pytest.fixture(scope="module")
def scene() -> dict:
    return json.loads(SAMPLE.read_text())


@pytest.mark.parametrize(("path", "value", "words"), [
    (("units", 0, "sigma_mm"), 1e155, "sigma_mm: must be at most 100000 mm (a position "
                                      "uncertainty larger than the largest table means nothing)"),
    (("units", 0, "sigma_deg"), 1e160, "sigma_deg: must be at most 360 degrees"),
    (("units", 0, "x"), -1e200, "x: must be at least -1e+06 mm"),
    (("units", 0, "facing"), 1e300, "facing: must be at most 1e+06 degrees"),
    (("units", 0, "base"), [1e300, 50], "base: must be at most 1000 mm"),
    (("table", "width_mm"), 1e300, "width_mm: must be at most 100000 mm"),
])
def test_numbers_past_any_table_are_refused_naming_the_field(scene, path, value, words):
    data = copy.deepcopy(scene)
    *head, last = path
    holder = data
    for key in head:
        holder = holder[key]
    holder[last] = value
    with pytest.raises(SceneError) as e:
        load_scene(data)
    assert words in str(e.value)
    # ...and so charges.rule raises the ValueError the CLI turns into exit code 2, not an
    # OverflowError from the uncertainty (1e155 squared).
    with pytest.raises(ValueError, match="must be at"):
        charges.rule({"scene": data, "charges": [{"charger": "knights", "target": "spears"}]})


def test_sigmas_at_their_bounds_are_ruled(scene):
    data = copy.deepcopy(scene)
    data["units"][0].update(sigma_mm=100_000.0, sigma_deg=360.0)
    ruling = charges.rule({"scene": data, "charges": [{"charger": "knights",
                                                        "target": "spears"}]})
    assert ruling["charges"][0]["certain"] is False


def test_scene_warnings_name_unknown_fields_by_path_with_the_closest_name(scene):
    data = copy.deepcopy(scene)
    data["units"][1]["swift_stride"] = True
    data["units"][1]["colour"] = "red"
    data["table"]["depht_mm"] = 3
    assert scene_warnings(data) == [
        "scene.table.depht_mm is not a field of the scene contract; it was ignored. Did you "
        "mean depth_mm?",
        "scene.units[1].swift_stride is not a field of the scene contract; it was ignored. "
        "Did you mean swiftstride?",
        "scene.units[1].colour is not a field of the scene contract; it was ignored.",
    ]
    assert scene_warnings(scene) == []
    assert scene_warnings("not a scene") == []
