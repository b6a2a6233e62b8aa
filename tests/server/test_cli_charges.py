"""``umpire charge`` and ``umpire odds`` (DESIGN.md, Command line: exit codes 0 and 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "server" / "samples" / "scene.json"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from server.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=120)


def test_charge_prints_the_ruling_as_json():
    r = run("charge", str(SAMPLE), "--charger", "knights", "--target", "spears",
            "--dice", "knights=3,5,2", "--json")
    assert r.returncode == 0, r.stderr
    ruling = json.loads(r.stdout)
    c = ruling["charges"][0]
    assert c["outcome"] == "success" and c["range_in"] == 16
    assert c["contact"]["charger_models"] + c["contact"]["target_models"] == 11


def test_charge_bad_input_exits_2_naming_the_field(tmp_path):
    r = run("charge", str(SAMPLE), "--charger", "knightz", "--target", "spears")
    assert r.returncode == 2 and "charges[0].charger" in r.stderr
    r = run("charge", str(SAMPLE), "--charger", "knights", "--target", "spears",
            "--dice", "knights=3")
    assert r.returncode == 2 and "dice.knights" in r.stderr
    bad = tmp_path / "scene.json"
    bad.write_text("{not json")
    r = run("charge", str(bad), "--charger", "a", "--target", "b")
    assert r.returncode == 2 and "not valid JSON" in r.stderr


def test_odds_command():
    r = run("odds", "--advance", "8", "--distance", "11.5")
    assert r.returncode == 0 and "needs 4" in r.stdout and "91.7%" in r.stdout
    r = run("odds", "--advance", "-8", "--distance", "11.5")
    assert r.returncode == 2 and "advance" in r.stderr
