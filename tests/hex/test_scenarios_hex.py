"""The hex scenario suite (HEX.md 9): one JSON file per situation under tests/scenarios/mpbs/ and
tests/scenarios/lb/, each with the rule it shows, its hand arithmetic, the decisions D-n it
relies on, the position and request, and the expected figures.

File format::

    {"title", "rule", "arithmetic", "decisions": ["D-n", ...],
     "kind": "combat" | "reactions" | "assault" | "rally" | "cup" | ...,
     "position": {...}, "rules_data": "illustrative" | {...} | null, "options": {...},
     "expect": {subset of the ruling},
     "expect_items": {slot: value},                 # close combat
     "expect_codes": [code, ...],                   # each in reasons
     "expect_refusals": [code, ...],                # exactly the refusing codes
     "expect_candidates": {unit: {"eligible": [...], "blocked": {kind: code}}},
     "expect_error": {"code": ..., "field": ...}}   # a ValueError naming both

Every scenario's ``decisions`` must be among the ruling's; the coverage test below demands that
the files together cover every refusal and validation code and every decision D-1..D-20.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import charges

ROOT = Path(__file__).resolve().parents[1] / "scenarios"
FILES = sorted([*ROOT.glob("mpbs/*.json"), *ROOT.glob("lb/*.json")])
RULES_DATA = Path(__file__).resolve().parents[2] / "server" / "samples" / "hex" / \
    "rules-data-illustrative.json"


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _rules_data(spec: Any) -> Any:
    if spec == "illustrative":
        return json.loads(RULES_DATA.read_text(encoding="utf-8"))
    return spec


def run(s: dict) -> dict:
    return charges.hex_rule(s["kind"], s["position"], rules_data=_rules_data(s.get("rules_data")),
                            **s.get("options", {}))


def subset(expected: Any, got: Any, where: str = "ruling") -> None:
    if isinstance(expected, dict):
        assert isinstance(got, dict), f"{where}: expected an object, got {got!r}"
        for k, v in expected.items():
            assert k in got, f"{where}.{k}: missing"
            subset(v, got[k], f"{where}.{k}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), \
            f"{where}: expected {len(expected)} entries, got {got!r}"
        for i, (e, g) in enumerate(zip(expected, got, strict=True)):
            subset(e, g, f"{where}[{i}]")
    elif isinstance(expected, float) or isinstance(got, float):
        assert got is not None and abs(got - expected) < 1e-9, f"{where}: {got!r} != {expected!r}"
    else:
        assert got == expected, f"{where}: {got!r} != {expected!r}"


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_scenario(path: Path) -> None:
    s = _load(path)
    assert s.get("title") and s.get("rule") and s.get("arithmetic"), "document the scenario"
    if "expect_error" in s:
        with pytest.raises(ValueError) as err:
            run(s)
        for part in s["expect_error"].values():
            assert part in str(err.value), f"{err.value} does not name {part}"
        return
    ruling = run(s)
    json.dumps(ruling)  # JSON-serialisable, as the contract says
    assert ruling["explanation"], "a ruling explains itself"
    for d in s.get("decisions", []):
        assert d in ruling["decisions"], f"{d} not among {ruling['decisions']}"
    subset(s.get("expect", {}), ruling)
    items = {i["slot"]: i["value"] for i in ruling.get("items", [])}
    for slot, value in s.get("expect_items", {}).items():
        assert items.get(slot) == value, f"item {slot}: {items.get(slot)} != {value}"
    codes = [r["code"] for r in ruling["reasons"]]
    for code in s.get("expect_codes", []):
        assert code in codes, f"{code} not in {codes}"
    if "expect_refusals" in s:
        assert sorted(r["code"] for r in ruling["reasons"] if r["refuses"]) == \
            sorted(s["expect_refusals"])
    cands = {c["unit"]: c for c in ruling.get("candidates", [])}
    for uid, exp in s.get("expect_candidates", {}).items():
        c = cands[uid]
        if "eligible" in exp:
            assert c["eligible"] == exp["eligible"], f"{uid}: eligible {c['eligible']}"
        blocked = {b["kind"]: b["code"] for b in c["blocked"]}
        for kind, code in exp.get("blocked", {}).items():
            assert blocked.get(kind) == code, f"{uid} {kind}: {blocked.get(kind)} != {code}"
        notes = [n["code"] for n in c["notes"]]
        for code in exp.get("notes", []):
            assert code in notes, f"{uid}: note {code} not in {notes}"


#: Every refusal and validation code of HEX.md 4, 5, 6, 7 and 8 must be shown by a scenario.
REQUIRED_CODES = """
UNIT_HEX_OFF_MAP TWO_HEX_NOT_ADJACENT TWO_HEX_BAD_FACING FACING_OUT_OF_RANGE STACK_POS_DUPLICATE
WAGON_STACKED_WITH_ARTILLERY WAGON_STACKED_WITH_WAGON WAGON_NOT_BOTTOM LB_MIXED_FORMATIONS_IN_HEX
LB_CAVALRY_WITH_INFANTRY CASUALTIES_EXCEED_STRENGTH NEEDS_RULES_DATA
CC_MULTI_DEFENDER CC_TWO_HEX_BRIDGE CC_NOT_ADJACENT CC_REACTION_BY_TARGET
MOM_NOT_ELIGIBLE_TYPE MOM_NOT_OPEN MOM_FACING_CHANGE MOM_FIRED MOM_RETREATED MOM_FAILED_INTERCEPT
MOM_RESET_BY_INTERCEPTION MOM_ARTILLERY_HEX MOM_REACTED_IN_CC MOM_TOO_SHORT
REACT_WINNER_VS_RETREAT REACT_NOT_INACTIVE REACT_MORALE_BROKEN REACT_ARTILLERY_FIRED
REACT_ALREADY_ATTEMPTED REACT_NOT_FIRE_TARGET REACT_NOT_IN_ZONE REACT_OUT_OF_SECTOR
REACT_OUT_OF_RANGE REACT_NO_LOS REACT_CANNOT_FIRE REACT_FIRE_TARGET_MISMATCH REACT_OOC_NO_ADJACENT
REACT_HEDGEHOG_FIRST INC_NO_LOSSES
ASSAULT_NOT_INFANTRY ASSAULT_NOT_FRONT ASSAULT_PARTIAL_INFANTRY_STACK ASSAULT_SPLIT_TARGETS
ASSAULT_JOIN_OVERSTACK OPPORTUNITY_REACTIONS_POSSIBLE ASSAULT_TARGET_LEADERS_ONLY
ASSAULT_SINGLE_HEX_TWO_TARGETS ASSAULT_MULTIHEX_CANNOT_OCCUPY ASSAULT_MANY_TO_MANY
ASSAULT_MULTIHEX_TARGET_INCOMPLETE ASSAULT_DEFLECTED FIRE_ASSAULT_INVOLVED FIRE_AT_ASSAULT_INVOLVED
FIRE_NO_OPPORTUNITY MAYHEM_ADVANCE_REQUIRED CHIT_NO_EFFECT CHIT_LEADER_ALREADY_MOVED
RALLY_IN_COMMAND RALLY_ADJACENT_ENEMY_START RALLY_STACKED_WITH_LEADER RALLY_ASSAULT_OR_CHARGE
RALLY_ENTERS_ENEMY_ADJACENT RALLY_OVER_ALLOWANCE RALLY_DID_NOT_STOP RALLY_NOT_SHORTEST
RALLY_NOT_STRAIGHT RALLY_GO_TO_GO_MORE_THAN_ONE RALLY_ENTERED_GO_CONTINUED
RALLY_ILLEGAL_FORMATION_CHANGE
""".split()


def _shown(s: dict) -> set[str]:
    out = set(s.get("expect_codes", [])) | set(s.get("expect_refusals", []))
    out |= {s["expect_error"]["code"]} if "expect_error" in s else set()
    for c in s.get("expect_candidates", {}).values():
        out |= set(c.get("blocked", {}).values()) | set(c.get("notes", []))
    mom = s.get("expect", {}).get("momentum", {})
    if mom.get("reason"):
        out.add(mom["reason"])
    for d in s.get("expect", {}).get("draws", []):
        out |= {b["code"] for b in d.get("blocked", [])} | ({d["code"]} if "code" in d else set())
    return out


def test_scenarios_cover_every_code_and_decision() -> None:
    scenarios = [_load(p) for p in FILES]
    assert len(scenarios) >= 40
    shown = set().union(*(_shown(s) for s in scenarios))
    assert sorted(set(REQUIRED_CODES) - shown) == []
    decisions = set().union(*(set(s.get("decisions", [])) for s in scenarios))
    assert sorted(f"D-{n}" for n in range(1, 21) if f"D-{n}" not in decisions) == []
    examples = {s["title"].split(" ")[0] for s in scenarios}
    assert {f"E{n}" for n in range(1, 18)} <= examples
