"""A hex of a request off the position's map (its ``map.bounds``; HEX.md 14: unbounded without
them) is refused as a unit's hex off the map is (``UNIT_HEX_OFF_MAP``): ``HEX_OFF_MAP``, naming
the field and the hex, exit 2 on the command line (422 over HTTP: tests/server/
test_refusal_words.py). An outside tester found 999,999 ruled as an ordinary hex."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

import charges
from charges.hex.errors import HexRequestError

SAMPLES = Path(__file__).resolve().parents[2] / "server" / "samples" / "hex"
EDGEHILL = json.loads((SAMPLES / "edgehill.json").read_text())  # q and r -6 to 6
QUATRE_BRAS = json.loads((SAMPLES / "quatre-bras.json").read_text())  # q -6 to 6, r -8 to 6
DATA = json.loads((SAMPLES / "rules-data-illustrative.json").read_text())


def rule(kind: str, position: dict, **params) -> dict:
    return charges.hex_rule(kind, copy.deepcopy(position), rules_data=DATA, **params)


@pytest.mark.parametrize(("kind", "position", "params", "field", "hex_"), [
    ("reactions", EDGEHILL, {"event": {"kind": "enter_hex", "unit": "roy-byron",
                                       "hex": [999, 999]}}, "event.hex", [999, 999]),
    ("reactions", EDGEHILL, {"event": {"kind": "enter_hex", "unit": "roy-byron",
                                       "hex": "0,7"}}, "event.hex", [0, 7]),
    ("momentum", EDGEHILL, {"unit": "roy-rupert", "path": [[0, 2], [-7, 1]]}, "path[1].hex",
     [-7, 1]),
    ("rally", QUATRE_BRAS, {"unit": "al-8-militia", "path": ["-1,0", "-1,-9"]}, "path[1]",
     [-1, -9]),
    ("assault", QUATRE_BRAS, {"assault": ["fr-bn1", "fr-bn2"], "target": ["al-27", "7,-1"]},
     "target[1]", [7, -1]),
], ids=["event", "event-text", "momentum-path", "rally-path", "assault-target"])
def test_a_request_hex_off_the_map_is_refused(kind, position, params, field, hex_):
    with pytest.raises(HexRequestError) as caught:
        rule(kind, position, **params)
    e = caught.value
    assert (e.code, e.field, e.hexes) == ("HEX_OFF_MAP", field, [hex_])
    assert str(e).startswith(f"{field}: HEX_OFF_MAP: {hex_} is off the map (q -6 to 6, r ")
    assert e.to_json()["hexes"] == [hex_]


def test_the_edge_is_on_the_map_and_a_map_without_bounds_has_no_edge():
    event = {"kind": "enter_hex", "unit": "roy-byron", "hex": [6, -6]}
    assert rule("reactions", EDGEHILL, event=event)["ruling"] == "reactions"
    unbounded = copy.deepcopy(EDGEHILL)
    del unbounded["map"]["bounds"]
    far = rule("reactions", unbounded, event={**event, "hex": [999, 999]})
    assert far["ruling"] == "reactions"


def test_the_command_line_exits_2_naming_the_field(tmp_path: Path):
    ev = tmp_path / "ev.json"
    ev.write_text(json.dumps({"kind": "enter_hex", "unit": "roy-byron", "hex": [999, 999]}))
    p = subprocess.run([sys.executable, "-c", "from server.cli import main; main()", "hex",
                        "reactions", str(SAMPLES / "edgehill.json"), "--event", str(ev)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "event.hex: HEX_OFF_MAP: [999, 999] is off the map" in p.stderr
    assert "Traceback" not in p.stderr
