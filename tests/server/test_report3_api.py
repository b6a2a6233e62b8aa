"""The HTTP and command-line fixes for the third outside report (/tmp/adv3/web/report.md):

1. a huge but finite ``sigma_mm``/``sigma_deg`` (1e155 squared is past a float) is refused 422
   naming the field and its bound, and the CLI exits 2; no float of the scene or request can
   give a 500;
4. fields a scene, a request or a marker set does not know are named in the ruling's (or the
   detection report's) ``warnings``, with the name probably meant, never refused;
5. an option the ruleset has no use for (``facing_roll`` in tow) is named the same way;
2. a charge naming a unit of the marker set that the photo does not show says so;
8. the possessive of a unit id ending in s.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

from ..inprocess import run_umpire
from .conftest import SAMPLES

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
CONTESTED = SCENARIOS / "whfb8" / "05_contested_without_facing_roll_is_asked_for.json"


def request(scene: dict, **extra) -> dict:
    return {"ruleset": "t9a-1", "scene": copy.deepcopy(scene),
            "charges": [{"charger": "knights", "target": "spears"}], **extra}


@pytest.mark.parametrize(("field", "value", "bound"), [
    ("sigma_mm", 1e155, "100000 mm"), ("sigma_mm", 1e200, "100000 mm"),
    ("sigma_deg", 1e160, "360 degrees"), ("sigma_deg", 1e300, "360 degrees")])
def test_a_huge_sigma_is_refused_naming_the_field_and_its_bound(client, sample_scene, field,
                                                                 value, bound):
    body = request(sample_scene, dice={"knights": [3, 5, 2]})
    body["scene"]["units"][0][field] = value
    r = client.post("/api/rulings", json=body)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert f"scene.units[0].{field}: must be at most {bound}" in detail


def test_the_schema_states_the_sigma_bounds():
    from server import models as m

    unit = m.Unit.model_json_schema()["properties"]  # what /openapi.json shows of a unit
    assert unit["sigma_mm"]["maximum"] == 100_000 and unit["sigma_deg"]["maximum"] == 360


def test_no_float_of_the_scene_gives_a_500(client, sample_scene):
    """Every number of the scene at the extremes a JSON number can take: refused or ruled."""
    def units(f, v):
        def change(s):
            s["units"][0][f] = v
        return change

    changes = []
    for v in (1e308, -1e308, 1e155, 5e-324, -5e-324, 0.0):
        for f in ("x", "y", "facing", "advance_in", "sigma_mm", "sigma_deg"):
            changes.append(units(f, v))
        changes.append(units("base", [v, v]))
        changes.append(lambda s, v=v: s.update(table={"width_mm": v, "depth_mm": v}))
        changes.append(lambda s, v=v: s.update(
            table={"width_mm": v, "depth_mm": v},
            units=[{**u, "x": v / 2, "y": v / 2} for u in s["units"]]))
        changes.append(lambda s, v=v: s.update(
            terrain=[{"id": "r", "polygon": [[0, 0], [v, 0], [0, v]]}]))
    for change in changes:
        body = request(sample_scene, dice={"knights": [3, 5, 2]})
        change(body["scene"])
        r = client.post("/api/rulings", json=body)
        assert r.status_code in (200, 422), (r.status_code, r.text[:300])


def run_cli(capsys, monkeypatch, *args: str) -> subprocess.CompletedProcess:
    """``umpire ARGS`` in this process (tests/inprocess.py)."""
    code, out, err = run_umpire(monkeypatch, capsys, *args)
    return subprocess.CompletedProcess(args, code, out, err)


def test_the_cli_refuses_a_huge_sigma_with_exit_2_and_prints_warnings(tmp_path, sample_scene,
                                                                     capsys, monkeypatch):
    scene = copy.deepcopy(sample_scene)
    scene["units"][0]["sigma_mm"] = 1e155
    path = tmp_path / "sigma.json"
    path.write_text(json.dumps(scene))
    r = run_cli(capsys, monkeypatch, "charge", str(path), "--charger", "knights", "--target",
                "spears")
    assert r.returncode == 2, r.stderr
    assert "sigma_mm: must be at most 100000 mm" in r.stderr and "Traceback" not in r.stderr
    # A misspelt field and an option the ruleset does not use: ruled, and said on stderr.
    scene = copy.deepcopy(sample_scene)
    scene["units"][0]["swiftstirde"] = scene["units"][0].pop("swiftstride")
    path.write_text(json.dumps(scene))
    r = run_cli(capsys, monkeypatch, "charge", str(path), "--charger", "knights", "--target",
                "spears", "--ruleset", "tow", "--facing-roll", "knights=5", "--json")
    assert r.returncode == 0, r.stderr
    assert "scene.units[0].swiftstirde is not a field of the scene contract; it was ignored. " \
           "Did you mean swiftstride?" in r.stderr
    assert "facing_roll is used by whfb8 only; ignored for tow" in r.stderr
    json.loads(r.stdout)  # stdout stays the ruling JSON


def test_unknown_scene_fields_are_warned_about_by_path_and_not_refused(client, sample_scene):
    body = request(sample_scene)
    knights = body["scene"]["units"][0]
    knights["swiftstirde"] = knights.pop("swiftstride")
    body["scene"]["units"][2]["State"] = "fleeing"
    body["scene"]["terrain"][0]["impasable"] = False
    body["scene"]["tabel"] = {"width_mm": 600, "depth_mm": 600}
    r = client.post("/api/rulings", json=body)
    assert r.status_code == 200, r.text
    warnings = r.json()["warnings"]
    assert warnings == [  # in the order of the keys
        "scene.terrain[0].impasable is not a field of the scene contract; it was ignored. "
        "Did you mean impassable?",
        "scene.units[0].swiftstirde is not a field of the scene contract; it was ignored. "
        "Did you mean swiftstride?",
        "scene.units[2].State is not a field of the scene contract; it was ignored. "
        "Did you mean state?",
        "scene.tabel is not a field of the scene contract; it was ignored. Did you mean table?",
    ]
    # A clean request has none; a detected scene's own additions are not unknown.
    clean = request(sample_scene)
    clean["scene"]["units"][0]["pose_evidence"] = {"used": "marker"}
    clean["scene"]["detection"] = {"warnings": []}
    r = client.post("/api/rulings", json=clean)
    assert r.status_code == 200 and r.json()["warnings"] == []


def test_an_option_the_ruleset_does_not_use_is_warned_about(client):
    contested = json.loads(CONTESTED.read_text())["request"]
    charger = contested["charges"][0]["charger"]
    body = {**contested, "ruleset": "tow", "facing_roll": {charger: 5}}
    body.pop("dice", None)
    r = client.post("/api/rulings", json=body)
    assert r.status_code == 200, r.text
    assert r.json()["warnings"] == ["facing_roll is used by whfb8 only; ignored for tow"]
    body = {**body, "ruleset": "whfb8"}
    r = client.post("/api/rulings", json=body)
    assert r.status_code == 200 and r.json()["warnings"] == []
    body = {**body, "facing_roll": None, "on_accidental_contact": "continue",
            "ruleset": "t9a-1"}
    r = client.post("/api/rulings", json={k: v for k, v in body.items() if v is not None})
    assert r.json()["warnings"] == ["on_accidental_contact is used by tow only; ignored for "
                                    "t9a-1"]


def test_a_possessive_of_an_id_ending_in_s(client):
    scenario = json.loads((SCENARIOS / "t9a-1" / "07_not_in_front_arc.json").read_text())
    r = client.post("/api/rulings", json=scenario["request"])
    reasons = r.json()["charges"][0]["reasons"]
    assert "spears is not inside knights' front arc" in reasons, reasons


@pytest.fixture(scope="module")
def markers_with_typo_and_ghost() -> str:
    """The sample marker set with a misspelt unit field, and a unit whose marker (30) is not
    on the photo."""
    doc = json.loads((SAMPLES / "markers.json").read_text())
    doc["units"][0]["swiftstirde"] = doc["units"][0].pop("swiftstride", True)
    doc["table"]["markers"][0]["sise_mm"] = 1
    ghost = {**doc["units"][5], "id": "ghost", "marker": 30}
    doc["units"].append(ghost)
    return json.dumps(doc)


def test_detection_warns_of_unknown_marker_fields_and_reviews_name_a_unit_not_seen(
        client, sample_photo, markers_with_typo_and_ghost):
    photo = {"photo": ("table.jpg", sample_photo, "image/jpeg")}
    r = client.post("/api/detect", files=photo, data={"markers": markers_with_typo_and_ghost})
    assert r.status_code == 200, r.text
    det = r.json()["detection"]
    assert det["missing_units"] == ["ghost"]
    assert "markers.units[0].swiftstirde is not a field of the marker set contract; it was " \
           "ignored. Did you mean swiftstride?" in det["warnings"]
    assert any(w.startswith("markers.table.markers[0].sise_mm is not a field")
               for w in det["warnings"])
    r = client.post("/api/reviews", files=photo, data={
        "markers": markers_with_typo_and_ghost,
        "charges": json.dumps([{"charger": "knights", "target": "ghost"}])})
    assert r.status_code == 422, r.text
    assert r.json()["detail"].startswith(
        "charges[0].target: unit 'ghost' is in the marker set but was not found (marker 30 "
        "not seen) on the photo")
