"""The fourth outside test of the hex rulings (HEX.md 4-8, 13-14; report of round four): each
test is one finding, with its hand arithmetic, and fails on the code before its fix.

Positions are small, built with tests/hex/positions.py; the rules data is the shipped
illustrative sample (clear 1 MP, river prohibited, stacking limit 3 units, woods and villages
block sight).
"""

from __future__ import annotations

import copy
import json
import time

import pytest

import charges
from charges.hex import rallyroute
from geometry import hexgrid as hg

from .positions import RD, SAMPLES, error_of, lb_unit, pos, refusals, rule  # noqa: F401

# -- 1. the rally route is the true least-MP route (HEX.md 8.3, D-19) -------------------------

def _bridge(gap: int = 8, bounded: bool = True, half: int = 12) -> dict:
    """U (MA 6: allowance 3) at (0,0), out of command; its leader at (0,-6), range 3. A river
    (prohibited) fills row r = -2 for q in [-half, half] but for a bridge gap at (gap,-2);
    bounded, the map is q, r in [-half, half]."""
    river = [{"q": q, "r": -2, "terrain": "river"} for q in range(-half, half + 1) if q != gap]
    p = pos("lb", [lb_unit("u", "al", 0, 0, movement_allowance=6, superior="ldr",
                           state={"in_command": False})],
            leaders=[{"id": "ldr", "side": "al", "hexes": [[0, -6]], "command_range": 3}],
            hexes=river)
    if bounded:
        p["map"]["bounds"] = {"q": [-half, half], "r": [-half, half]}
    return p


def test_rally_route_crosses_a_far_bridge():
    """Every step changes r by at most 1, so a route north crosses row -2 at the gap (8,-2):
    8 steps to it (dq = 8), then 9 to the range (d((8,-2), (0,-6)) = 12, less the range 3):
    17 MP. Every 8-step route to (8,-2) steps q+1 each time, so its first 3 MP end at (3,-1)
    or (3,0) (r = -2 is river). The move stops there, spent 3; the straight step north to
    the river bank (0,-1) lies on no least-cost route (the old search, clipped to an ellipse
    of 6 hexes' detour, sent the unit there)."""
    r = rule("rally", _bridge(), unit="u")
    assert r["legal"] is True
    assert len(r["best_route"]) == 17 and [8, -2] in r["best_route"]
    assert r["best_route"][-1] == [0, -3]  # the first hex within 3 of (0,-6) on the way
    assert r["end_hex"] in ([3, -1], [3, 0]) and r["spent"] == 3
    ok = rule("rally", _bridge(), unit="u", path=["1,-1", "2,-1", "3,-1"])
    assert ok["legal"] and ok["end_hex"] == [3, -1] and ok["spent"] == 3
    assert refusals(rule("rally", _bridge(), unit="u", path=["0,-1"])) == ["RALLY_NOT_SHORTEST"]


def test_rally_route_on_an_unbounded_map():
    """Unbounded, the river (q -12..12) can also be walked round an end, but that costs more:
    west, d((0,0), (-13,-2)) = 15 steps, then d((-13,-2), (0,-6)) = 13 less the range 3 =
    10: 25 MP; east, 13 to (13,-2), then 17 - 3 = 14: 27; the bridge 17 wins. With the gap
    at q = 20 (beyond the river's end: no gap at all in q -12..12), the west end wins: 25 MP
    through (-13,-2), the move its first 3 MP."""
    r = rule("rally", _bridge(bounded=False), unit="u")
    assert len(r["best_route"]) == 17 and r["end_hex"] in ([3, -1], [3, 0])
    west = rule("rally", _bridge(gap=20, bounded=False), unit="u")
    assert len(west["best_route"]) == 25 and [-13, -2] in west["best_route"]
    assert west["spent"] == 3 and west["end_hex"] == west["best_route"][2]
    assert west["legal"] and hg.distance(tuple(west["end_hex"]), (-13, -2)) == 12


def test_rally_search_without_any_way_in_is_bounded_and_quick():
    """Unbounded map; the leader at (0,-6) sits inside a closed ring of river at distance 4
    (its whole range 3 is walled in). No in-range hex is reachable at all (D-19): the goal is
    the reachable hex nearest the leader, distance 5, just outside the ring; the nearest to
    U (0,0) is (0,-1) (distance 5 from (0,-6)): 1 MP. Outside everything the position places
    every hex is alike, so the search needs only that region (an unbounded search would never
    end)."""
    ring = [{"q": q, "r": r, "terrain": "river"} for q, r in hg.ring((0, -6), 4)]
    p = pos("lb", [lb_unit("u", "al", 0, 0, movement_allowance=6, superior="ldr",
                           state={"in_command": False})],
            leaders=[{"id": "ldr", "side": "al", "hexes": [[0, -6]], "command_range": 3}],
            hexes=ring)
    t = time.perf_counter()
    r = rule("rally", p, unit="u")
    assert time.perf_counter() - t < 2
    assert r["best_route"] == [[0, -1]] and r["end_hex"] == [0, -1] and r["spent"] == 1


def test_rally_search_too_big_is_refused(monkeypatch):
    """A search past its limit of settled hexes is refused naming the unit, not left to run
    (the limit is made small here; the real one, 150 000 hexes, takes a few seconds)."""
    monkeypatch.setattr(rallyroute, "MAX_SEARCH", 50)
    assert "unit: RALLY_SEARCH_TOO_BIG" in error_of("rally", _bridge(), unit="u")


# -- 2. the chit cup's maneuver units (HEX.md 8.1-8.2, 14) -----------------------------------

def _cup(mus: list[dict]) -> dict:
    return pos("lb", [lb_unit("fr-bn1", "fr", 0, 0), lb_unit("fr-bn2", "fr", 1, 0),
                      lb_unit("al-27", "al", 5, -5)],
               leaders=[{"id": "fr-gen", "side": "fr", "hexes": [[0, 0]]}],
               maneuver_units=mus, reinforcements=[])


@pytest.mark.parametrize("mid", ["rally", "Artillery", "fr:leaders"])
def test_mu_named_like_an_action_chit_is_refused(mid):
    """`--order` names MUs and the four action chits in one list: an MU called 'rally' ate
    the Rally chit (draw 'rally' activated the MU; the real Rally chit could never be
    drawn)."""
    msg = error_of("cup", _cup([{"id": mid, "side": "fr", "units": ["fr-bn1"]}]), seed=1)
    assert f"maneuver_units[0] '{mid}': id: MU_ID_IS_ACTION_CHIT" in msg
    assert "maneuver_units[0].id" in msg


def test_mu_of_enemy_or_shared_units_is_refused():
    """A side forms its MUs from its own units, each in one MU: F1 listing the Allied al-27,
    or F2 listing fr-bn1 already in F1 (or twice in itself), is a position error naming the
    MU's units."""
    enemy = _cup([{"id": "F1", "side": "fr", "units": ["fr-bn1", "al-27"]}])
    assert "maneuver_units[0] 'F1': units: MU_UNIT_OTHER_SIDE" in error_of("cup", enemy, seed=1)
    leader = _cup([{"id": "A1", "side": "al", "units": ["al-27", "fr-gen"]}])
    assert "maneuver_units[0] 'A1': units: MU_UNIT_OTHER_SIDE" in error_of("cup", leader,
                                                                          seed=1)
    shared = _cup([{"id": "F1", "side": "fr", "units": ["fr-bn1"]},
                   {"id": "F2", "side": "fr", "units": ["fr-bn1", "fr-bn2"]}])
    msg = error_of("cup", shared, seed=1)
    assert "maneuver_units[1] 'F2': units: MU_UNIT_DUPLICATE" in msg and "'F1'" in msg
    twice = _cup([{"id": "F1", "side": "fr", "units": ["fr-bn1", "fr-bn1"]}])
    assert "maneuver_units[0] 'F1': units: MU_UNIT_DUPLICATE" in error_of("cup", twice, seed=1)
    fine = rule("cup", _cup([{"id": "F1", "side": "fr", "units": ["fr-bn1", "fr-gen"]},
                             {"id": "A1", "side": "al", "units": ["al-27"]}]),
                order="A1,rally,F1,leaders,artillery,reinforcements")
    assert fine["legal"] and [d["type"] for d in fine["draws"]] == \
        ["mu", "rally", "mu", "leaders", "artillery", "reinforcements"]


# -- 3. the cup without a seed (HEX.md 8.1, 13) ----------------------------------------------

def _qb() -> dict:
    return json.loads((SAMPLES / "quatre-bras.json").read_text())


def test_cup_without_seed_draws_a_fresh_seed_and_reports_it(monkeypatch):
    """No seed and no order: a fresh random seed, reported in `seed`, and `seed=N` replays
    that draw exactly (it used to be seed 0 every time, reported as null)."""
    seeds = set()
    for _ in range(4):
        r = charges.hex_rule("cup", _qb())
        assert isinstance(r["seed"], int) and 0 <= r["seed"] < 2**31
        again = charges.hex_rule("cup", _qb(), seed=r["seed"])
        assert [d["chit"] for d in again["draws"]] == [d["chit"] for d in r["draws"]]
        assert any(str(r["seed"]) in s for s in r["explanation"])
        seeds.add(r["seed"])
    assert len(seeds) > 1  # four draws of 2**31 seeds: equal only by a one-in-10**8 chance
    from charges.hex import cup
    monkeypatch.setattr(cup.secrets, "randbelow", lambda n: 7)
    r = charges.hex_rule("cup", _qb())
    assert r["seed"] == 7
    assert r["draws"] == charges.hex_rule("cup", _qb(), seed=7)["draws"]
    # seeded and replayed draws are as before: the seed given, and none for a replay
    assert charges.hex_rule("cup", _qb(), seed=4)["seed"] == 4
    assert charges.hex_rule("cup", _qb(), order=["rally"])["seed"] is None


def test_cup_without_seed_over_http(tmp_path):
    from fastapi.testclient import TestClient

    from server.app import create_app
    with TestClient(create_app(tmp_path / "data")) as c:
        r = c.post("/api/hex/cup", json={"position": _qb()})
        assert r.status_code == 200
        seed = r.json()["seed"]
        assert isinstance(seed, int)
        again = c.post("/api/hex/cup", json={"position": _qb(), "seed": seed})
        assert again.json()["draws"] == r.json()["draws"]


# -- 4. assault markers (HEX.md 7.1-7.2, 14) -------------------------------------------------

def _marked(markers, phase="assault", more=()) -> dict:
    """B (column facing 0, melee 6) at (0,0); Allied T at (0,-1) and Y at (1,-1), both in B's
    front (side_3_2_1: (-1,0), (0,-1), (1,-1))."""
    return pos("lb", [lb_unit("B", "fr", 0, 0, melee_value=6),
                      lb_unit("T", "al", 0, -1, facing=6, melee_value=6),
                      lb_unit("Y", "al", 1, -1, facing=6, melee_value=6), *more],
               markers=markers, phase=phase)


def _mk(unit, hx, dist):
    return {"kind": "assault", "unit": unit, "target_hex": hx, "distance": dist}


def test_marker_on_another_hex_is_not_this_assault():
    """Assault segment: B's marker targets (1,-1) (Y), distance 2. Assaulting T at (0,-1) is
    refused ASSAULT_MARKER_OTHER_TARGET, and the distance 2 is not T's. Against Y, legal:
    distance 2, melee 6 (T faces S: B is in its front, x1). While declaring (maneuver
    segment) the marker's distance is still not T's (it was 2 for T before), and a note
    says why."""
    p = _marked([_mk("B", [1, -1], 2)])
    r = rule("assault", p, assault=["B"], target=["T"])
    assert refusals(r) == ["ASSAULT_MARKER_OTHER_TARGET"] and r["approach_distance"] is None
    y = rule("assault", p, assault=["B"], target=["Y"])
    assert y["legal"] and y["approach_distance"] == 2 and y["melee"][0]["value"] == 6
    d = rule("assault", _marked([_mk("B", [1, -1], 2)], phase="maneuver"), assault=["B"],
             target=["T"])
    assert d["legal"] and d["approach_distance"] is None
    assert "ASSAULT_MARKER_OTHER_TARGET" in [x["code"] for x in d["reasons"]]


def test_stack_distance_is_from_each_units_marker_on_the_target():
    """B1 (marker on T, distance 3) and B2 (marker on T, distance 2) in one hex: the lowest,
    2; melee 6 + 6 = 12 (front). If B2's marker is on (1,-1) instead, distance 1, that is
    another assault's: declaring on T the stack's distance is B1's 3 (it took 1), and in the
    assault segment B2 cannot assault T at all."""
    def stack(b2_target, phase):
        return pos("lb", [lb_unit("B1", "fr", 0, 0, melee_value=6, stack_pos=0),
                          lb_unit("B2", "fr", 0, 0, melee_value=6, stack_pos=1),
                          lb_unit("T", "al", 0, -1, facing=6, melee_value=6)],
                   markers=[_mk("B1", [0, -1], 3), _mk("B2", b2_target, 2 if b2_target ==
                                                       [0, -1] else 1)], phase=phase)
    r = rule("assault", stack([0, -1], "assault"), assault=["B1", "B2"], target=["T"])
    assert r["legal"] and r["approach_distance"] == 2 and r["melee"][0]["value"] == 12
    d = rule("assault", stack([1, -1], "maneuver"), assault=["B1", "B2"], target=["T"])
    assert d["legal"] and d["approach_distance"] == 3
    a = rule("assault", stack([1, -1], "assault"), assault=["B1", "B2"], target=["T"])
    assert refusals(a) == ["ASSAULT_MARKER_OTHER_TARGET"] and a["approach_distance"] == 3


def test_two_markers_on_one_unit_is_a_position_error():
    """B carries markers on (1,-1) (distance 2) and on (0,-1) (distance 3): one unit
    assaulting two targets (7.1 ASSAULT_SPLIT_TARGETS), refused at load naming markers[1]."""
    p = _marked([_mk("B", [1, -1], 2), _mk("B", [0, -1], 3)])
    msg = error_of("assault", p, assault=["B"], target=["T"])
    assert "markers[1]: unit: ASSAULT_SPLIT_TARGETS" in msg and "markers[0]" in msg


def test_marker_target_hex_is_checked_against_the_map_and_its_unit():
    """[40,40] on a map bounded to +-5 is off the map (UNIT_HEX_OFF_MAP, as for units); (0,-2)
    is not adjacent to B at (0,0); a negative distance says 'must be 0 or more' (it said
    'outside 0..None')."""
    p = _marked([_mk("B", [40, 40], 2)])
    p["map"]["bounds"] = {"q": [-5, 5], "r": [-5, 5]}
    assert "markers[0]: target_hex: UNIT_HEX_OFF_MAP" in error_of("assault", p, assault=["B"],
                                                                  target=["T"])
    far = _marked([_mk("B", [0, -2], 2)])
    assert "markers[0]: target_hex: ASSAULT_NOT_ADJACENT" in error_of(
        "assault", far, assault=["B"], target=["T"])
    neg = error_of("assault", _marked([_mk("B", [0, -1], -3)]), assault=["B"], target=["T"])
    assert "distance: FIELD_INVALID: -3: must be 0 or more" in neg and "None" not in neg


def test_enemy_unit_among_the_assaulters_is_refused():
    """Allied X (column facing 8 at (1,-2), T in its front) listed with French B against
    Allied T: refused ASSAULT_NOT_FRIENDLY naming X, and X adds nothing (the melee was 18 =
    B 6 + X 6 x 2 'flank'). B alone: T faces S, B is S of it: front, melee 6 x 1 = 6."""
    p = _marked([], phase="maneuver",
                more=[lb_unit("X", "al", 1, -2, facing=8, melee_value=6)])
    r = rule("assault", p, assault=["B", "X"], target=["T"])
    assert refusals(r) == ["ASSAULT_NOT_FRIENDLY"]
    why = next(x for x in r["reasons"] if x["code"] == "ASSAULT_NOT_FRIENDLY")
    assert why["units"] == ["X"] and r["melee"] == []
    alone = rule("assault", p, assault=["B"], target=["T"])
    assert alone["legal"] and alone["melee"][0]["value"] == 6


# -- 5. a hex or hexside listed twice (HEX.md 4, 14) -----------------------------------------

def _dup(hexes=(), sides=()) -> dict:
    p = pos("mpbs-6", [
        {"id": "A", "side": "a", "type": "heavy_infantry", "hexes": [[0, -1]], "facing": 7,
         "strength_printed": 4, "morale": 6},
        {"id": "D", "side": "d", "type": "light_infantry", "hexes": [[0, 0]], "facing": 1,
         "strength_printed": 4, "morale": 6}], hexes=hexes)
    p["map"]["hexsides"] = list(sides)
    return p


def test_a_hex_listed_twice_is_a_position_error():
    """(0,0) as woods then as clear: which terrain counted depended on the order (net +1 one
    way, 0 the other). Refused naming map.hexes[1]; listed once as woods, net 0 (HI vs LI
    +1, woods -1)."""
    two = [{"q": 0, "r": 0, "terrain": "woods"}, {"q": 0, "r": 0, "terrain": "clear"}]
    for hexes in (two, two[::-1]):
        msg = error_of("combat", _dup(hexes), defender="D")
        assert "map.hexes[1]: q, r: HEX_DUPLICATE" in msg and "map.hexes[0]" in msg
    assert rule("combat", _dup(two[:1]), defender="D")["net"] == 0


def test_a_hexside_listed_twice_is_a_position_error():
    """Side 0 of (0,0) and side 3 of (0,-1) are one hexside (canonical (0,0,0))."""
    sides = [{"q": 0, "r": 0, "side": 0, "feature": "hedge"},
             {"q": 0, "r": -1, "side": 3, "feature": "wall"}]
    msg = error_of("combat", _dup(sides=sides), defender="D")
    assert "map.hexsides[1]: q, r, side: HEXSIDE_DUPLICATE" in msg and "map.hexsides[0]" in msg
    assert rule("combat", _dup(sides=sides[:1]), defender="D")["legal"]


# -- 6. reactions: one line of sight per unit and event hex (HEX.md 6.2-6.4) ------------------

def _many(n: int = 120) -> tuple[dict, dict]:
    """Active cavalry X enters (0,0); n inactive light infantry stand 6..26 hexes away, with
    woods around (so the lines must be traced); the reaction-move, hedgehog and interception
    zones reach 300 hexes, so each candidate asks for sight once per kind."""
    data = copy.deepcopy(RD)
    for z in data["mpbs"]["reaction_zones"].values():
        z["eligible"] = ["light_infantry", "cavalry", "heavy_infantry"]
        z["zone"] = [{"class": c, "max_range": 300} for c in ("front", "flank", "rear")]
    units = [{"id": "X", "side": "a", "type": "cavalry", "hexes": [[0, 1]], "facing": 1,
              "strength_printed": 4, "morale": 6, "state": {"active": True}}]
    for i in range(n):
        k, d = i % 6, 6 + (i * 7) % 21
        h = hg.add(hg.add((0, 0), hg.DIRS[k], d), hg.DIRS[(k + 2) % 6], i % 5)
        units.append({"id": f"u{i}", "side": "d", "type": "light_infantry",
                      "hexes": [list(h)], "facing": 1, "strength_printed": 2, "morale": 5})
    woods = [{"q": q, "r": r, "terrain": "woods"} for q in range(-30, 31, 7)
             for r in range(-30, 31, 5) if max(abs(q), abs(r), abs(q + r)) > 3]
    return pos("mpbs-6", units, hexes=woods), data


def test_line_of_sight_is_traced_once_per_unit_and_hex(monkeypatch):
    """Counting the hex-line samples traced (HEX.md 3.1 cube rounding): at most the two runs
    of one line per candidate (the old code traced a line for every reaction kind, three
    times as many), and the ruling is the same."""
    p, data = _many()
    calls = {"n": 0}
    real = hg._cube_round

    def counting(*a):
        calls["n"] += 1
        return real(*a)
    monkeypatch.setattr(hg, "_cube_round", counting)
    t = time.perf_counter()
    r = charges.hex_rule("reactions", p, rules_data=data,
                         event={"kind": "enter_hex", "unit": "X", "hex": [0, 0]})
    assert time.perf_counter() - t < 3
    cands = {c["unit"]: c for c in r["candidates"]}
    assert len(cands) == 120
    one_line_each = sum(2 * (min(hg.distance(tuple(h), (0, 0)) for h in u["hexes"]) + 1)
                        for u in p["units"][1:])
    first_steps = 2 * 3 * 120  # hg.first_steps: two samples per kind and candidate at most
    assert calls["n"] <= one_line_each + first_steps
    seen = [c for c in cands.values() if "interception" in c["eligible"]]
    hidden = [c for c in cands.values() if any(b["code"] == "REACT_NO_LOS"
                                              for b in c["blocked"])]
    assert seen and hidden  # the woods hide some and not others
    for c in hidden:  # the same answer for every kind that reached the sight check
        kinds = {b["kind"] for b in c["blocked"] if b["code"] == "REACT_NO_LOS"}
        assert kinds == {"reaction_move", "reaction_move.hedgehog", "interception"}
