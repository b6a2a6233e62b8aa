"""``umpire demo``'s hex part (issue 14): a close combat and a reaction check on the Edgehill
sample, read out in the engine's words with the units' names."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import charges
from server.demo_hex import DEFENDER, EVENT, demo_hex, spoken_combat

from .conftest import SAMPLES

HEX = SAMPLES / "hex"
EDGEHILL = json.loads((HEX / "edgehill.json").read_text(encoding="utf-8"))
RULES = json.loads((HEX / "rules-data-illustrative.json").read_text(encoding="utf-8"))


def test_the_hex_demo_reads_the_engines_rulings(capsys):
    combat, reactions = demo_hex()
    assert combat == charges.hex_rule("combat", copy.deepcopy(EDGEHILL), rules_data=RULES,
                                      defender=DEFENDER)
    assert reactions == charges.hex_rule("reactions", copy.deepcopy(EDGEHILL),
                                         rules_data=RULES, event=EVENT)
    text = capsys.readouterr().out
    assert "Byron's Horse against Ramsey's Horse: +3 to the attacker's die" in text
    assert "odds 3 to 4 round to 1:2 for the defender: -1 (11.3.4)." in text
    assert "momentum (roy-byron), counted once: +2 (11.3.6)." in text
    assert "The other 6 modifiers are 0." in text
    assert "leader: none stacked" not in text  # a modifier worth 0 is not read out
    assert "Rupert's Horse enters hex 1011" in text
    assert "par-guns may not react" in text and "illustrative" in text
    assert "HEX.md" not in text


def test_spoken_combat_keeps_every_sentence_but_the_zero_modifiers():
    ruling = charges.hex_rule("combat", copy.deepcopy(EDGEHILL), rules_data=RULES,
                              defender=DEFENDER)
    spoken = spoken_combat(ruling)
    zero = [i for i in ruling["items"] if i["value"] == 0]
    assert len(spoken) == len(ruling["explanation"]) - len(zero) + 1
    assert spoken.index("The other 6 modifiers are 0.") == spoken.index(
        next(s for s in spoken if s.startswith("In all"))) - 1


def test_umpire_demo_ends_with_the_hex_part(tmp_path):
    r = subprocess.run([sys.executable, "-c", "from server.cli import main; main()", "demo",
                        "-o", str(tmp_path / "demo.png")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.index("Situation report") < r.stdout.index("Hex-and-counter games")
    assert "Who may react?" in r.stdout
