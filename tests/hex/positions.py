"""Small hex positions built in the tests (HEX.md 4, 14) and the rulings made on them with the
shipped illustrative rules data: the outside rounds' findings tests share them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import charges

SAMPLES = Path(__file__).resolve().parents[2] / "server" / "samples" / "hex"
RD = json.loads((SAMPLES / "rules-data-illustrative.json").read_text())


def pos(ruleset: str, units: list[dict], leaders=(), markers=(), hexes=(), phase=None,
        **extra) -> dict:
    p = {"schema": "umpire.hex-position/1", "ruleset": ruleset,
         "map": {"default_terrain": "clear", "hexes": list(hexes)},
         "turn": {"number": 1, "clock": "14:00",
                  "phase": phase or ("close_combat" if ruleset == "mpbs-6" else "maneuver"),
                  "active_side": "a" if ruleset == "mpbs-6" else "fr",
                  "initiative_side": "fr"},
         "units": units, "leaders": list(leaders), "markers": list(markers)}
    p.update(extra)
    return p


def lb_unit(uid, side, q, r, **kw) -> dict:
    u = {"id": uid, "side": side, "type": "infantry", "hexes": [[q, r]], "facing": 0,
         "formation": "column"}
    u.update(kw)
    return u


def rule(kind: str, p: dict, **opts) -> dict:
    return charges.hex_rule(kind, p, rules_data=RD, **opts)


def refusals(r: dict) -> list[str]:
    return sorted(x["code"] for x in r["reasons"] if x["refuses"])


def error_of(kind: str, p: dict, **opts) -> str:
    with pytest.raises(ValueError) as e:
        rule(kind, p, **opts)
    return str(e.value)
