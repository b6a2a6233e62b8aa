"""Fixes for outside report 4 (/tmp/adv4/web/report.md) on the HTTP server and the CLI:

- finding 11: ``POST /api/rulings`` (and a stored review's ruling) is the JSON ``charges.rule``
  gives and the CLI prints: no ``secondary_targets: null`` and the like added by the response
  model, and every null the engine itself gives (``outcome`` of odds only) kept;
- finding 10: ``umpire detect -o ... --overlay ...`` and ``umpire demo -o ...`` check every
  output path before writing anything: a folder that does not exist is refused with exit 2
  naming the option, and no file is written.

The browser side of the report is in test_browser.py and test_page_fixes.py.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import charges

from ..inprocess import run_umpire
from .conftest import SAMPLES

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
PHOTO, MARKERS = str(SAMPLES / "table.jpg"), str(SAMPLES / "markers.json")


def sample_requests(scene: dict) -> list[dict]:
    out = []
    for ruleset in ("t9a-1", "tow", "whfb8"):
        for charger, target, dice in (("knights", "spears", [3, 5, 2]),
                                      ("knights", "spears", None),
                                      ("swordsmen", "archers", [6, 6])):
            req = {"ruleset": ruleset, "scene": scene,
                   "charges": [{"charger": charger, "target": target}]}
            if dice:
                req["dice"] = {charger: dice}
            out.append(req)
    # Secondary targets, one that cannot turn and a disordered charge (tow 28, 56).
    for name in ("28_secondary_targets_unavoidable", "56_secondary_target_that_cannot_turn"
                                                     "_leaves_the_gap"):
        out.append(json.loads((SCENARIOS / "tow" / f"{name}.json").read_text())["request"])
    return out


def test_an_http_ruling_is_the_engines_json(client, sample_scene: dict):
    """Report 4, finding 11: every HTTP charge carried secondary_targets, secondary_final,
    secondary_unaligned and disordered_against as null where charges.rule has no such keys."""
    for req in sample_requests(sample_scene):
        want = charges.rule(copy.deepcopy(req))
        r = client.post("/api/rulings", json=req)
        assert r.status_code == 200, r.text
        got = r.json()
        assert got == json.loads(json.dumps(want)), (req["ruleset"], req["charges"])
        for c in got["charges"]:
            if "dice" not in req:  # the engine's own nulls stay
                assert "outcome" in c and c["outcome"] is None
            if "secondary_targets" not in c:
                assert not {"secondary_final", "secondary_unaligned", "disordered_against"} & set(c)
    secondary = [c for req in sample_requests(sample_scene)[-2:]
                 for c in client.post("/api/rulings", json=req).json()["charges"]]
    assert all(c["secondary_targets"] for c in secondary)  # the real ones are still given


def test_a_reviews_ruling_is_the_engines_json(client, sample_photo: bytes,
                                             sample_markers_text: str):
    r = client.post("/api/reviews", files={"photo": ("table.jpg", sample_photo, "image/jpeg")},
                    data={"markers": sample_markers_text,
                          "charges": json.dumps([{"charger": "knights", "target": "spears"}]),
                          "dice": json.dumps({"knights": [3, 5, 2]})})
    assert r.status_code == 201, r.text
    review = r.json()
    for got in (review["ruling"], client.get(review["url"]).json()["ruling"]):
        for c in got["charges"]:
            assert "secondary_targets" not in c and "disordered_against" not in c, c.keys()
    scene = {k: v for k, v in review["scene"].items() if k != "detection"}
    want = charges.rule({"ruleset": "t9a-1", "scene": scene, "charges": review["charges"],
                         "dice": review["dice"]})
    assert review["ruling"] == json.loads(json.dumps(want))


# ---- finding 10: every output path checked before anything is written ----------------------

def test_detect_into_a_missing_folder_writes_nothing(tmp_path, monkeypatch, capsys):
    """Report 4, finding 10: the scene file was written, then the overlay failed with exit 2."""
    scene = tmp_path / "scene.json"
    missing = tmp_path / "no-such-folder" / "x.png"
    code, out, err = run_umpire(monkeypatch, capsys, "detect", PHOTO, "--markers", MARKERS,
                                "-o", str(scene), "--overlay", str(missing))
    assert code == 2, err
    assert f"--overlay {missing}: cannot write it, no such folder" in err, err
    assert not scene.exists()
    assert list(tmp_path.iterdir()) == []

    # The same the other way round: -o into a missing folder, --overlay where it can go.
    overlay = tmp_path / "ov.png"
    code, out, err = run_umpire(monkeypatch, capsys, "detect", PHOTO, "--markers", MARKERS,
                                "-o", str(tmp_path / "gone" / "scene.json"), "--overlay",
                                str(overlay))
    assert code == 2, err
    assert f"-o {tmp_path / 'gone' / 'scene.json'}: cannot write it" in err, err
    assert list(tmp_path.iterdir()) == []

    # A folder given as the file is refused the same way.
    folder = tmp_path / "pictures.png"
    folder.mkdir()
    code, out, err = run_umpire(monkeypatch, capsys, "detect", PHOTO, "--markers", MARKERS,
                                "-o", str(scene), "--overlay", str(folder))
    assert code == 2 and f"--overlay {folder}: is a folder" in err, err
    assert list(tmp_path.iterdir()) == [folder]


def test_detect_with_both_outputs_writes_both(tmp_path, monkeypatch, capsys):
    scene, overlay = tmp_path / "scene.json", tmp_path / "ov.png"
    code, out, err = run_umpire(monkeypatch, capsys, "detect", PHOTO, "--markers", MARKERS,
                                "-o", str(scene), "--overlay", str(overlay))
    assert code == 0, err
    assert json.loads(scene.read_text())["units"]
    assert overlay.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ov.png", "scene.json"]  # no temp


@pytest.mark.parametrize("where", ["no-such-folder/x.png", "."])
def test_demo_into_a_missing_folder_fails_before_the_ruling(tmp_path, monkeypatch, capsys,
                                                            where):
    """``umpire demo -o /nonexistent/dir/x.png`` printed the detection, the situation report
    and the whole ruling before failing."""
    target = tmp_path / where
    code, out, err = run_umpire(monkeypatch, capsys, "demo", "-o", str(target))
    assert code == 2, err
    assert f"-o {target}: " in err, err
    assert "Situation report" not in out and "Detected" not in out
    assert list(tmp_path.iterdir()) == []


# ---- finding 13: the pictures tell sides apart as the rules do -------------------------------

def test_sides_differing_only_in_case_are_drawn_in_two_colours(sample_scene: dict):
    """Report 4, finding 13: the rules rule "red" knights against "Red" spears as enemies, the
    overlay drew both in the red side's colour (its palette compared sides in lower case)."""
    import numpy as np

    import geometry as g
    from vision import overlay, palette

    scene = copy.deepcopy(sample_scene)
    next(u for u in scene["units"] if u["id"] == "spears")["side"] = "Red"
    ruling = charges.rule({"scene": scene, "charges": [{"charger": "knights",
                                                        "target": "spears"}]})
    assert ruling["charges"][0]["declarable"]  # enemies for the rules
    img = overlay.draw_plan(scene, None)
    H = overlay.plan_transform(scene, None)
    sc = g.load_scene(scene)

    def boundary_colour_hits(unit_id: str, colour) -> int:
        u = sc.unit(unit_id)
        hits = 0
        for a, b in g.facing_segments(u.formation, u.pose).values():
            for t in np.linspace(0.1, 0.9, 9):
                p = np.array([a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, 1.0]) @ H.T
                x, y = int(round(p[0] / p[2])), int(round(p[1] / p[2]))
                patch = img[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3).astype(int)
                hits += bool((np.abs(patch - np.array(colour)).max(axis=1) <= 10).any())
        return hits

    assert boundary_colour_hits("knights", palette.VERMILLION) >= 30
    assert boundary_colour_hits("spears", palette.VERMILLION) == 0
    colours = palette.side_colours(u["side"] for u in scene["units"])
    assert colours["red"] == palette.VERMILLION and colours["blue"] == palette.BLUE
    assert colours["Red"] not in (palette.VERMILLION, palette.BLUE)
    assert boundary_colour_hits("spears", colours["Red"]) >= 30
