"""Bad positions and bad requests (issue 14): whatever field is wrong, ``charges.hex_rule``
raises a ``ValueError`` naming it (exit 2 on the command line), never another exception."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

import charges

SAMPLES = Path(__file__).resolve().parents[2] / "server" / "samples" / "hex"
BAD = [None, 1, -3, 2.5, "x", "", [], {}, [1], [[1, 2, 3]], {"a": 1}, True, "0,0", [0, 0],
       float("nan")]


def _paths(o, pre=()):
    if isinstance(o, dict):
        for k, v in o.items():
            yield pre + (k,)
            yield from _paths(v, pre + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield pre + (i,)
            yield from _paths(v, pre + (i,))


def _calls() -> list[tuple[dict, str, dict]]:
    mp = json.loads((SAMPLES / "edgehill.json").read_text())
    lb = json.loads((SAMPLES / "quatre-bras.json").read_text())
    return [(mp, "combat", {"defender": "par-ramsey", "pistols": ["roy-byron"]}),
            (mp, "reactions", {"event": {"kind": "enter_hex", "unit": "roy-rupert",
                                         "hex": [0, 1]}}),
            (mp, "momentum", {"unit": "roy-rupert", "path": [[0, 2], [0, 1]]}),
            (mp, "incorporation", {"mover": "roy-byron", "absorbed": "roy-rupert"}),
            (mp, "cc_sequence", {"designations": [{"attackers": ["roy-byron"],
                                                   "defender": "par-ramsey"}]}),
            (lb, "assault", {"assault": ["fr-bn1", "fr-bn2"], "target": ["al-27"]}),
            (lb, "rally", {"unit": "al-8-militia", "path": ["-1,0"]}),
            (lb, "cup", {"seed": 3}), (lb, "fire_check", {"firer": "fr-bn1", "target": "al-27"})]


@pytest.mark.parametrize("seed", range(4))
def test_one_wrong_field_is_a_value_error(seed):
    data = json.loads((SAMPLES / "rules-data-illustrative.json").read_text())
    rng = random.Random(seed)
    calls = _calls()
    for _ in range(150):
        pos, kind, opts = copy.deepcopy(rng.choice(calls))
        where = rng.choice([pos, opts])
        path = rng.choice(list(_paths(where)))
        node = where
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = rng.choice(BAD)
        try:
            json.dumps(charges.hex_rule(kind, pos, rules_data=data, **opts))
        except ValueError as e:
            assert ":" in str(e)  # "field: CODE: message"


def test_malformed_own_rules_data_is_named_not_a_crash():
    """README: bring your own rules data. An entry of the wrong type (a hand-written typo) is
    refused naming the entry the ruling was reading, never an internal error (an HTTP tester
    found 500s on 44 of 784 such requests)."""
    data = json.loads((SAMPLES / "rules-data-illustrative.json").read_text())
    calls = _calls()
    for game in ("mpbs", "lb"):
        for path in [p for p in _paths(data[game]) if len(p) <= 3 and
                     all(isinstance(k, str) for k in p)]:
            for bad in ("x", [], 3, None):
                d = copy.deepcopy(data)
                node = d[game]
                for k in path[:-1]:
                    node = node[k]
                node[path[-1]] = bad
                for pos, kind, opts in calls:
                    if (game == "lb") != (pos.get("ruleset") == "lb"):
                        continue
                    try:
                        charges.hex_rule(kind, copy.deepcopy(pos), rules_data=d,
                                         **copy.deepcopy(opts))
                    except ValueError as e:
                        assert ":" in str(e)
    typo = copy.deepcopy(data)
    typo["mpbs"]["cc_matrix"] = "x"
    pos, kind, opts = calls[0]
    with pytest.raises(ValueError, match=r"^rules_data\.cc_matrix: BAD_RULES_DATA"):
        charges.hex_rule(kind, copy.deepcopy(pos), rules_data=typo, **copy.deepcopy(opts))
