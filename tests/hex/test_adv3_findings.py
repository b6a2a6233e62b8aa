"""The third outside test of the hex rulings (HEX.md 4-8, 13-14): each test is one finding,
with its hand arithmetic, and fails on the code before its fix.

Positions are small, built with tests/hex/positions.py; the rules data is the shipped
illustrative sample (clear 1 MP, village 2 MP and General Order, stacking limit 3 units, rear
x1.5, cavalry against light infantry +1 in the close combat matrix).
"""

from __future__ import annotations

import copy
import json
import sys
import time

import pytest

import charges

from .positions import RD, SAMPLES, error_of, lb_unit, pos, refusals, rule  # noqa: F401

# -- A.1 rally stacking (HEX.md 8.3 D-19, section 4) ----------------------------------------

def _rally_stack(occupants: list[dict]) -> dict:
    """U (MA 6, allowance 3) at (0,0), out of command; its leader at (0,-6), range 3. The
    only in-range hex reachable for 3 MP is (0,-3), three hexes up the line."""
    return pos("lb", [lb_unit("u", "al", 0, 0, movement_allowance=6, superior="ldr",
                              state={"in_command": False}),
                      *occupants, lb_unit("e", "fr", 5, -5)],
               leaders=[{"id": "ldr", "side": "al", "hexes": [[0, -6]], "command_range": 3}])


FULL = [lb_unit(f"f{i}", "al", 0, -3, stack_pos=i) for i in range(3)]
CAVALRY = [lb_unit("c", "al", 0, -3, type="cavalry")]


@pytest.mark.parametrize("occupants", [FULL, CAVALRY], ids=["three_units", "cavalry"])
def test_rally_route_honours_stacking(occupants):
    """(0,-3) already holds 3 battalions (limit 3: a 4th is over) or cavalry (never with
    infantry), so it cannot end the route. The cheapest in-range hexes then cost 4 MP (e.g.
    (1,-4): distance 3 from (0,-6)); the route keeps (0,-1), (0,-2) on the line and bends at
    (1,-3); the move is its first 3 MP and ends at (1,-3), 4 hexes from the leader. The
    proposed straight path into (0,-3) is refused."""
    r = rule("rally", _rally_stack(occupants), unit="u")
    assert r["legal"] is True
    assert r["best_route"] == [[0, -1], [0, -2], [1, -3], [1, -4]]
    assert r["end_hex"] == [1, -3] and r["spent"] == 3 and r["in_command_after"] is False
    bad = rule("rally", _rally_stack(occupants), unit="u", path=["0,-1", "0,-2", "0,-3"])
    assert refusals(bad) == ["RALLY_STACKING"]


# -- A.2 Mayhem only for the stack's own vacated target (HEX.md 7.2) -------------------------

def _mayhem(markers) -> dict:
    return pos("lb", [lb_unit("B1", "fr", 0, 0, melee_value=6),
                      lb_unit("V", "al", 2, -2, facing=6)], markers=markers, phase="assault")


MARKER = {"kind": "assault", "unit": "B1", "target_hex": [0, -1], "distance": 2}


def test_mayhem_needs_the_marked_target_hex():
    """B1's marker targets (0,-1). (1,0) is an empty flank hex, not the vacated target; with
    no marker at all there is no assault to continue: both refused ASSAULT_NO_TARGET. The
    marked hex itself still gives MAYHEM_ADVANCE_REQUIRED with distance 2 (E16a)."""
    wrong = rule("assault", _mayhem([MARKER]), assault=["B1"], target=["1,0"])
    assert refusals(wrong) == ["ASSAULT_NO_TARGET"] and "advance_to" not in wrong
    none = rule("assault", _mayhem([]), assault=["B1"], target=["0,-1"])
    assert refusals(none) == ["ASSAULT_NO_TARGET"]
    right = rule("assault", _mayhem([MARKER]), assault=["B1"], target=["0,-1"])
    assert right["legal"] and right["advance_to"] == [0, -1]
    assert right["approach_distance"] == 2


# -- A.3 one pistol per unit (HEX.md 5.2, 14) ------------------------------------------------

def test_a_repeated_pistol_counts_once():
    """Cavalry A 4/6 at (0,-1) facing 7 against light infantry D 4/6 at (0,0) facing 1:
    odds 4:4 = 1:1 -> 0; morale 6-6 = 0; matrix cavalry vs LI +1; pistol +1 (once, though
    named twice): raw +2, net +2."""
    p = pos("mpbs-6", [
        {"id": "A", "side": "a", "type": "cavalry", "hexes": [[0, -1]], "facing": 7,
         "strength_printed": 4, "morale": 6},
        {"id": "D", "side": "d", "type": "light_infantry", "hexes": [[0, 0]], "facing": 1,
         "strength_printed": 4, "morale": 6}])
    r = rule("combat", p, defender="D", pistols=["A", "A"])
    assert {i["slot"]: i["value"] for i in r["items"]}["pistols"] == 1
    assert r["raw"] == 2 and r["net"] == 2 and r["pistols_spent"] == ["A"]


# -- A.4 joiners (HEX.md 7.1, section 4) -----------------------------------------------------

def _join() -> dict:
    return pos("lb", [lb_unit("B1", "fr", 0, 0, melee_value=6),
                      lb_unit("T", "al", 0, -1, facing=6),
                      lb_unit("E", "al", 3, 3), lb_unit("C", "fr", 2, 2, type="cavalry"),
                      lb_unit("J", "fr", 0, 1)])


def test_joiners_are_checked():
    """Only friendly units join (E is Allied), cavalry never stacks with infantry (C), an
    assaulter does not join itself; a friendly battalion J joins at the bottom."""
    assert refusals(rule("assault", _join(), assault=["B1"], target=["T"], join=["E"])) == \
        ["ASSAULT_JOIN_NOT_FRIENDLY"]
    assert refusals(rule("assault", _join(), assault=["B1"], target=["T"], join=["C"])) == \
        ["LB_CAVALRY_WITH_INFANTRY"]
    assert refusals(rule("assault", _join(), assault=["B1"], target=["T"], join=["B1"])) == \
        ["ASSAULT_JOIN_ALREADY_ASSAULTING"]
    ok = rule("assault", _join(), assault=["B1"], target=["T"], join=["J"])
    assert ok["legal"] and ok["stack_order"] == ["B1", "J"]


# -- A.5 and A.10 cc_sequence (HEX.md 5.5) ---------------------------------------------------

def _ccseq() -> dict:
    def u(uid, side, q, r, f, active):
        return {"id": uid, "side": side, "type": "cavalry" if side == "a" else
                "light_infantry", "hexes": [[q, r]], "facing": f, "strength_printed": 4,
                "morale": 6, "state": {"active": active}}
    return pos("mpbs-6", [u("P", "a", 0, 0, 1, True), u("Q", "a", 3, 0, 1, True),
                          u("X", "d", 0, -1, 7, False), u("Y", "d", 3, -1, 7, False),
                          u("Z", "d", 1, 0, 9, False)])


DESIG = [{"attackers": ["P"], "defender": "X"}, {"attackers": ["Q"], "defender": "Y"}]


def test_reaction_close_combats_by_inactive_units_against_active_ones():
    """Q is active: its 'reaction' is refused CC_REACTION_BY_ACTIVE (and Z, inactive, is no
    reaction target). Z against X (its own side): CC_REACTION_TARGET_NOT_ACTIVE, and the
    default order lists X once. Z against P is legal: Z first, then X, Y (E17)."""
    a = rule("cc_sequence", _ccseq(), designations=DESIG,
             reactions=[{"attackers": ["Q"], "defender": "Z"}])
    assert "CC_REACTION_BY_ACTIVE" in refusals(a)
    b = rule("cc_sequence", _ccseq(), designations=DESIG,
             reactions=[{"attackers": ["Z"], "defender": "X"}])
    assert "CC_REACTION_TARGET_NOT_ACTIVE" in refusals(b) and b["order"] == ["X", "Y"]
    ok = rule("cc_sequence", _ccseq(), designations=DESIG,
              reactions=[{"attackers": ["Z"], "defender": "P"}])
    assert ok["legal"] and ok["order"] == ["P", "X", "Y"]


@pytest.mark.parametrize("order,field,code", [
    (5, "order", "BAD_ORDER"), ([["P"]], "order", "BAD_ORDER"),
    (["P", "NOPE"], "order[1]", "CC_ORDER_UNKNOWN_COMBAT"),
    (["P", "X"], "order", "CC_ORDER_INCOMPLETE"),
    (["P", "P", "X", "Y"], "order[1]", "CC_ORDER_DUPLICATE")])
def test_malformed_order_is_a_request_error(order, field, code):
    msg = error_of("cc_sequence", _ccseq(), designations=DESIG, order=order,
                   reactions=[{"attackers": ["Z"], "defender": "P"}])
    assert msg.startswith(f"{field}: {code}:")


def test_order_as_one_comma_separated_string():
    """HEX.md 14's form: "P,X,Y" is the three defenders, not one letter per entry."""
    r = rule("cc_sequence", _ccseq(), designations=DESIG, order="P,X,Y",
             reactions=[{"attackers": ["Z"], "defender": "P"}])
    assert r["legal"] and r["order"] == ["P", "X", "Y"]


# -- A.6 and A.7 the cup (HEX.md 8.2-8.3, 7.1) -----------------------------------------------

def _cup() -> dict:
    ma = {"movement_allowance": 6, "superior": "ldr"}
    return pos("lb", [
        lb_unit("u_led", "al", 0, 0, state={"in_command": False}, **ma),
        lb_unit("u_noflag", "al", 0, -6, **ma),
        lb_unit("u_ooc", "al", 3, -6, state={"in_command": False}, **ma),
        lb_unit("inf_top", "fr", 6, 0, stack_pos=0),
        lb_unit("art_under", "fr", 6, 0, type="artillery", formation="unlimbered",
                stack_pos=1),
        lb_unit("art_top", "fr", 8, 0, type="artillery", formation="unlimbered")],
        leaders=[{"id": "ldr", "side": "al", "hexes": [[0, 0]], "command_range": 3}],
        maneuver_units=[], reinforcements=[])


def test_rally_chit_agrees_with_the_rally_ruling():
    """u_led is stacked with its leader (counts as in command); u_noflag has no flag and is
    6 hexes from a range-3 leader (out of command); u_ooc is out of command. The Rally chit
    moves u_noflag and u_ooc, and the rally ruling agrees unit by unit."""
    d = rule("cup", _cup(), order=["rally"])["draws"][0]
    assert d["units"] == ["u_noflag", "u_ooc"]
    assert d["blocked"] == [{"unit": "u_led", "code": "RALLY_STACKED_WITH_LEADER"}]
    assert refusals(rule("rally", _cup(), unit="u_led")) == ["RALLY_STACKED_WITH_LEADER"]
    assert rule("rally", _cup(), unit="u_noflag")["legal"] is True


def test_artillery_that_is_not_the_top_unit_does_not_fire():
    """art_under lies under infantry: CHIT_NOT_TOP_UNIT, and fire_check refuses it; art_top
    fires. In the Quatre Bras sample fr-art's battalions carry assault markers, so they go to
    the top and fr-art takes no part (the assault ruling says so too)."""
    d = rule("cup", _cup(), order=["artillery"])["draws"][0]
    assert d["acts"] == ["art_top"]
    assert {"unit": "art_under", "code": "CHIT_NOT_TOP_UNIT"} in d["blocked"]
    fc = rule("fire_check", _cup(), firer="art_under", target="u_ooc", segment="artillery_chit")
    assert refusals(fc) == ["FIRE_NOT_TOP_UNIT"]
    qb = json.loads((SAMPLES / "quatre-bras.json").read_text())
    d = rule("cup", qb, order=["artillery"])["draws"][0]
    assert d["acts"] == ["al-bat"]
    assert {"unit": "fr-art", "code": "CHIT_NOT_TOP_UNIT"} in d["blocked"]


# -- A.8 entering GO may be declared (HEX.md 8.3, D-20) --------------------------------------

def test_formation_change_to_general_order_on_entering_go():
    """A column (MA 6, allowance 3) enters the village (0,-1): 2 MP, GO terrain, it stops
    there in General Order. Declaring that change is allowed; declaring it in clear is not."""
    base = _rally_stack([])
    base["map"]["hexes"] = [{"q": 0, "r": -1, "terrain": "village"}]
    r = rule("rally", base, unit="u", path=["0,-1"], formation_change="general_order")
    assert r["legal"] and r["formation_after"] == "general_order"
    assert r["spent"] == 2 and r["end_hex"] == [0, -1]
    clear = rule("rally", _rally_stack([]), unit="u", path=["0,-1"],
                 formation_change="general_order")
    assert refusals(clear) == ["RALLY_ILLEGAL_FORMATION_CHANGE"]


# -- A.9 NEEDS_RULES_DATA cites its own section (HEX.md 13, 6.3) ------------------------------

def test_every_reaction_move_entry_cites_9_2_2():
    p = json.loads((SAMPLES / "edgehill.json").read_text())
    p.pop("rules_data", None)
    r = charges.hex_rule("reactions", p, event={"kind": "enter_hex", "unit": "roy-rupert",
                                                "hex": [0, 1]})
    rules = {(b["kind"], b["rule"]) for c in r["candidates"] for b in c["blocked"]
             if b["code"] == "NEEDS_RULES_DATA"}
    assert len(r["candidates"]) >= 3
    assert rules == {("reaction_move", "9.2.2"), ("interception", "9.3")}


# -- A.10 non-finite and negative numbers (HEX.md 4, 13) --------------------------------------

def _line(melee) -> dict:
    return pos("lb", [lb_unit("L", "fr", 0, 0, melee_value=melee),
                      lb_unit("X", "al", 0, -1, facing=6)])


@pytest.mark.parametrize("melee", [float("nan"), float("inf"), -8])
def test_bad_melee_value_names_the_field(melee):
    assert "melee_value: FIELD_INVALID" in error_of("assault", _line(melee), assault=["L"],
                                                    target=["X"])


def test_infinite_rear_multiplier_is_bad_rules_data():
    """X in line faces 1 (bearing 30); L at (0,0) lies south of it (bearing 180), delta 150:
    its rear, so the rear multiplier is read."""
    p = _line(6)
    p["units"][1]["facing"] = 1
    p["units"][1]["formation"] = "line"
    data = copy.deepcopy(RD)
    data["lb"]["rear_multiplier"] = float("inf")
    with pytest.raises(ValueError) as e:
        charges.hex_rule("assault", p, rules_data=data, assault=["L"], target=["X"])
    assert "rules_data.rear_multiplier: BAD_RULES_DATA" in str(e.value)


def test_fractional_mp_cost_is_bad_rules_data():
    """int(0.5) would be a free step (and zero-cost loops in the route search)."""
    data = copy.deepcopy(RD)
    data["lb"]["tec_mp"]["clear"] = 0.5
    with pytest.raises(ValueError) as e:
        charges.hex_rule("rally", _rally_stack([]), rules_data=data, unit="u")
    assert "rules_data.tec_mp.clear: BAD_RULES_DATA" in str(e.value)


# -- A.11 two-hex column (HEX.md 3.3, 14) ----------------------------------------------------

def test_two_hex_column_is_refused_at_load():
    p = pos("lb", [{"id": "L", "side": "fr", "type": "infantry", "hexes": [[0, 0], [1, 0]],
                    "facing": 1, "formation": "column", "melee_value": 8},
                   lb_unit("X", "al", 0, -1, facing=6)])
    assert "'L': formation: TWO_HEX_BAD_FACING" in error_of("assault", p, assault=["L"],
                                                             target=["X"])


# -- A.12 leaders and incorporation (HEX.md 4, 6.5, 8.3) -------------------------------------

def test_leader_off_the_map():
    p = _rally_stack([])
    p["map"]["bounds"] = {"q": [-6, 6], "r": [-7, 3]}
    p["leaders"].append({"id": "far", "side": "al", "hexes": [[99, 99]]})
    assert "leaders[1] 'far': hexes: UNIT_HEX_OFF_MAP" in error_of("rally", p, unit="u")


def test_superior_of_the_other_side():
    p = _rally_stack([])
    p["leaders"][0]["side"] = "fr"
    assert "'u': superior: FIELD_INVALID" in error_of("rally", p, unit="u")


def test_incorporation_needs_strength_and_morale():
    p = pos("mpbs-6", [
        {"id": "M", "side": "a", "type": "cavalry", "hexes": [[0, 0]], "facing": 1,
         "strength_printed": 4, "casualties": 2, "morale": 8},
        {"id": "S", "side": "a", "type": "cavalry", "hexes": [[0, -1]], "facing": 1}])
    assert "'S': strength_printed: FIELD_MISSING" in error_of("incorporation", p, mover="M",
                                                               absorbed="S")


# -- A.13 the rally search is bounded (HEX.md 8.3, 14) ----------------------------------------

def _far(leader, ma) -> dict:
    p = _rally_stack([])
    p["units"][0]["movement_allowance"] = ma
    p["units"] = p["units"][:1]
    p["leaders"][0]["hexes"] = [leader]
    return p


def test_far_leader_is_fast():
    """Leader 100 hexes away on the diagonal (50,-100), MA 99 (allowance 50): the least-cost
    route is 97 hexes (distance 100 less the range 3); the move is its first 50 MP, ending 50
    hexes from the leader; the search finishes in about a second (it took minutes)."""
    t = time.perf_counter()
    r = rule("rally", _far([50, -100], 99), unit="u")
    assert time.perf_counter() - t < 6
    assert len(r["best_route"]) == 97 and r["spent"] == 50 and r["allowance"] == 50
    assert r["legal"] and r["routes_tied"] > 1


@pytest.mark.parametrize("leader,ma,needle", [
    ([0, -6], 400, "'u': movement_allowance: FIELD_INVALID"),
    ([0, -101], 6, "leaders 'ldr': hexes: RALLY_LEADER_TOO_FAR"),
    ([0, -10 ** 12], 6, "hexes[0]: FIELD_INVALID")])
def test_absurd_values_are_refused(leader, ma, needle):
    t = time.perf_counter()
    assert needle in error_of("rally", _far(leader, ma), unit="u")
    assert time.perf_counter() - t < 1


# -- exit 2 on the command line, 422 over HTTP (HEX.md 13) ------------------------------------

def test_cli_exits_2_and_http_answers_422(tmp_path, monkeypatch, capsys):
    """In process (a new interpreter costs seconds): the console entry point itself."""
    from server.cli import main

    p, req = tmp_path / "p.json", tmp_path / "req.json"
    p.write_text(json.dumps(_ccseq()))
    req.write_text(json.dumps({"designations": DESIG, "order": 5}))
    monkeypatch.setattr(sys, "argv", ["umpire", "hex", "rule", "cc_sequence", str(p),
                                      "--request", str(req)])
    with pytest.raises(SystemExit) as done:
        main()
    stderr = capsys.readouterr().err
    assert done.value.code == 2 and "order: BAD_ORDER" in stderr
    assert "Traceback" not in stderr
    from fastapi.testclient import TestClient

    from server.app import create_app
    with TestClient(create_app(tmp_path / "data"), raise_server_exceptions=False) as c:
        r = c.post("/api/hex/rally", json={"position": _far([0, -6], 400), "unit": "u",
                                           "rules_data": RD})
        assert r.status_code == 422 and "movement_allowance" in r.text
        r = c.post("/api/hex/assault", json={"position": _line(-8), "assault": ["L"],
                                             "target": ["X"], "rules_data": RD})
        assert r.status_code == 422 and "melee_value" in r.text
