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


def test_charge_refuses_a_repeated_roll_and_a_binary_file(tmp_path):
    """A roll given twice for one charger is an error, not the last one silently; a file
    that is not text is named."""
    r = run("charge", str(SAMPLE), "--charger", "knights", "--target", "spears",
            "--dice", "knights=3,5,2", "--dice", "knights=1,1,1")
    assert r.returncode == 2 and "'knights' is given twice" in r.stderr
    binary = tmp_path / "scene.json"
    binary.write_bytes(b"\xa8\x01{")
    r = run("charge", str(binary), "--charger", "a", "--target", "b")
    assert r.returncode == 2 and str(binary) in r.stderr and "not a text file" in r.stderr
    assert "Traceback" not in r.stderr


def test_more_than_four_chargers_on_one_target_are_refused():
    """The moves of several chargers are searched over every order of them: five against one
    target is refused by name (charges/request.py, MAX_CHARGERS_PER_TARGET)."""
    import charges

    units = [{"id": f"c{i}", "side": "red", "x": 100 + 120 * i, "y": 100, "facing": 90,
              "base": [20, 20], "files": 5, "ranks": 1, "advance_in": 5} for i in range(5)]
    units.append({"id": "t", "side": "blue", "x": 400, "y": 600, "facing": -90,
                  "base": [20, 20], "files": 10, "ranks": 1})
    request = {"scene": {"units": units},
               "charges": [{"charger": f"c{i}", "target": "t"} for i in range(5)]}
    try:
        charges.rule(request)
    except charges.RequestError as e:
        assert "charges[4]" in str(e) and "at most 4" in str(e) and "'t'" in str(e)
    else:
        raise AssertionError("five chargers against one target were accepted")


def test_odds_command():
    r = run("odds", "--advance", "8", "--distance", "11.5")
    assert r.returncode == 0 and "needs 4" in r.stdout and "91.7%" in r.stdout
    r = run("odds", "--advance", "-8", "--distance", "11.5")
    assert r.returncode == 2 and "advance" in r.stderr


def test_a_facing_roll_written_wrongly_is_shown_as_one_die():
    """It asked for two dice ("UNIT=D1,D2") where a facing roll is one D6 (outside testing,
    round 3)."""
    import pytest

    from server.cli import InputError
    from server.cli_charges import parse_dice

    with pytest.raises(InputError, match=r"--facing-roll '3': write it as UNIT=D \(one die, "
                                         r"e.g. knights=4\)"):
        parse_dice(["3"], "--facing-roll")
    assert parse_dice(["knights=4"], "--facing-roll") == {"knights": [4]}


def test_a_scene_saved_with_a_byte_order_mark_is_read(tmp_path):
    """Windows Notepad saves UTF-8 with a BOM; the server and the page read such files, so
    the CLI does too (it said "not valid JSON (Unexpected UTF-8 BOM ...)")."""
    bom = tmp_path / "scene_bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + SAMPLE.read_bytes())
    r = run("charge", str(bom), "--charger", "knights", "--target", "spears", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["charges"][0]["charger"] == "knights"
