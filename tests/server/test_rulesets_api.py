"""Rulesets over HTTP and on the command line (issue 12): GET /api/rulesets says each
ruleset's dice, a ruling request may name tow or whfb8, and a field only one ruleset needs
(whfb8's facing_roll for a contested facing) is asked for by name."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient


def _unit(uid: str, side: str, x: float, y: float, facing: float, files: int) -> dict:
    return {"id": uid, "side": side, "x": x, "y": y, "facing": facing, "base": [20, 20],
            "files": files, "ranks": 2, "advance_in": 5}


#: A's four front-rank centres: two in B's front arc, two in its right flank arc (B's
#: front/right ray passes x = 800 at the charger's front-rank centres, y = 550).
CONTESTED = {"table": {"width_mm": 1828.8, "depth_mm": 1219.2}, "terrain": [],
             "units": [_unit("A", "red", 800, 540, 90, 4), _unit("B", "blue", 900, 620, -90, 5)]}


def test_rulesets_list_their_dice(client: TestClient) -> None:
    body = client.get("/api/rulesets").json()
    by = {r["name"]: r for r in body["rulesets"]}
    assert {"t9a-1", "tow", "whfb8"} <= set(by)
    assert by["tow"]["dice"] == {"name": "the higher of 2D6", "dice": 2, "keep": 1,
                                 "extra": 0, "min_total": 1, "max_total": 6}
    assert by["tow"]["dice_swiftstride"]["dice"] == 3
    assert by["tow"]["range_measure"] == "paid_path" and by["tow"]["swept"] == "front_edge"
    assert by["t9a-1"]["dice"]["name"] == "2D6" and by["whfb8"]["dice_swiftstride"]["keep"] == 2


def test_a_contested_facing_asks_for_its_roll_by_name(client: TestClient) -> None:
    req = {"ruleset": "whfb8", "scene": CONTESTED,
           "charges": [{"charger": "A", "target": "B"}]}
    r = client.post("/api/rulings", json=req)
    assert r.status_code == 422
    assert r.json()["detail"].startswith("facing_roll.A: ")
    for roll, side in ((2, "front"), (5, "right")):
        c = client.post("/api/rulings", json={**req, "facing_roll": {"A": roll}}).json()
        entry = c["charges"][0]
        assert entry["facing_side"] == side and entry["facing_contested"] is True
        assert entry["front_rank_counts"]["front"] == 2 and entry["front_rank_counts"]["right"] == 2
    bad = client.post("/api/rulings", json={**req, "facing_roll": {"A": 7}})
    assert bad.status_code == 422
    # The Old World breaks the same tie to the arc of least advantage: the front.
    tow = client.post("/api/rulings", json={**req, "ruleset": "tow"}).json()["charges"][0]
    assert tow["facing_side"] == "front" and tow["facing_contested"] is False


def test_cli_rules_tow_and_whfb8(tmp_path: Path) -> None:
    scene = tmp_path / "scene.json"
    scene.write_text(json.dumps(CONTESTED))
    umpire = [sys.executable, "-c", "from server.cli import main; main()"]
    out = subprocess.run([*umpire, "charge", str(scene), "--charger", "A", "--target", "B",
                          "--ruleset", "whfb8", "--json"], capture_output=True, text=True)
    assert out.returncode == 2 and "facing_roll.A" in out.stderr
    out = subprocess.run([*umpire, "charge", str(scene), "--charger", "A", "--target", "B",
                          "--ruleset", "whfb8", "--facing-roll", "A=5", "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["charges"][0]["facing_side"] == "right"
    odds = subprocess.run([*umpire, "odds", "--advance", "7", "--distance", "15.5",
                           "--ruleset", "tow", "--swiftstride", "--json"],
                          capture_output=True, text=True)
    assert odds.returncode == 0, odds.stderr
    rep = json.loads(odds.stdout)
    assert rep["needed_in"] == 9 and abs(rep["odds"] - 5 / 12) < 1e-6  # tow 1.9, TOW-4
