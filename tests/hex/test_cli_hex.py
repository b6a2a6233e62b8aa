"""``umpire hex ...`` end to end (HEX.md 13-14): --json prints the ruling, bad input exits 2
with the field and the code and never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "server" / "samples" / "hex"
EDGEHILL = str(SAMPLES / "edgehill.json")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from server.cli import main; main()", "hex",
                           *args], capture_output=True, text=True, timeout=120)


def test_combat_json_uses_the_rules_data_the_position_names():
    p = run("combat", EDGEHILL, "--defender", "par-ramsey", "--pistol", "roy-byron", "--json")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["ruling"] == "close_combat" and r["raw"] == 4 and r["net"] == 4
    assert [i["slot"] for i in r["items"]] == ["leader", "morale", "odds", "momentum",
                                               "flank_rear", "matrix", "pistols",
                                               "formation_state", "salvo", "terrain"]


def test_reactions_and_option_and_readable_output(tmp_path):
    ev = tmp_path / "ev.json"
    ev.write_text(json.dumps({"kind": "enter_hex", "unit": "roy-rupert", "hex": [0, 1]}))
    p = run("reactions", EDGEHILL, "--event", str(ev), "--option", "los_spine=either")
    assert p.returncode == 0, p.stderr
    assert "par-ramsey may react: reaction_fire" in p.stdout


def test_bad_inputs_exit_2_naming_the_field(tmp_path):
    bad = json.loads(Path(EDGEHILL).read_text())
    bad["units"][0]["facing"] = 13
    bad["rules_data"] = str(SAMPLES / "rules-data-illustrative.json")
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(bad))
    for args, words in [
            (("combat", str(f), "--defender", "par-ramsey"), ["FACING_OUT_OF_RANGE", "facing",
                                                              "roy-rupert"]),
            (("combat", EDGEHILL, "--defender", "ghost"), ["defender", "UNKNOWN_UNIT"]),
            (("rally", EDGEHILL, "--unit", "par-essex"), ["UNKNOWN_KIND"]),
            (("combat", str(tmp_path / "none.json"), "--defender", "x"), ["cannot read"])]:
        p = run(*args)
        assert p.returncode == 2, (args, p.stdout, p.stderr)
        assert "Traceback" not in p.stderr
        for w in words:
            assert w in p.stderr, (w, p.stderr)


def test_lb_commands_accept_negative_hexes_with_equals():
    lb = str(SAMPLES / "quatre-bras.json")
    p = run("rally", lb, "--unit", "al-8-militia", "--path=-1,0", "--path=-1,-1",
            "--path=0,-2", "--json")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["legal"] and r["end_hex"] == [0, -2] and r["allowance"] == 3
    p = run("cup", lb, "--seed", "4", "--json")
    assert p.returncode == 0, p.stderr
    assert len(json.loads(p.stdout)["draws"]) == 10
    p = run("assault", lb, "--assault", "fr-bn1", "--assault", "fr-bn2", "--target", "al-27",
            "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["approach_distance"] == 1


def test_any_kind_from_a_request_file(tmp_path):
    req = tmp_path / "req.json"
    req.write_text(json.dumps({"designations": [{"attackers": ["roy-byron"],
                                                 "defender": "par-ramsey"}]}))
    p = run("rule", "cc_sequence", EDGEHILL, "--request", str(req), "--json")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["ruling"] == "cc_sequence" and r["legal"] and r["order"] == ["par-ramsey"]
