"""The hex rulings over HTTP (HEX.md 13-14, issue 14): ``POST /api/hex/{combat, reactions,
assault, rally, cup}`` answer exactly what ``charges.hex_rule`` rules on the same position; the
rules data a position names is found among the shipped files only; every refusal is a 4xx in
the server's envelope with the engine's code, field, where, units and hexes; the OpenAPI
describes the routes; and a live ``umpire serve`` answers a plain urllib client the same.
"""

from __future__ import annotations

import copy
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

import charges

from .conftest import SAMPLES
from .live import LiveServer, live_server

HEX = SAMPLES / "hex"
EDGEHILL = json.loads((HEX / "edgehill.json").read_text(encoding="utf-8"))
QUATRE_BRAS = json.loads((HEX / "quatre-bras.json").read_text(encoding="utf-8"))
RULES = json.loads((HEX / "rules-data-illustrative.json").read_text(encoding="utf-8"))
#: HEX.md 14: Rupert's Horse enters the hex in front of Ramsey's Horse.
ENTER = {"kind": "enter_hex", "unit": "roy-rupert", "hex": [0, 1]}


def engine(kind: str, position: dict, **params) -> dict:
    """The ruling the engine makes itself, with the rules data loaded as the CLI loads it."""
    return charges.hex_rule(kind, copy.deepcopy(position), rules_data=RULES, **params)


def post(client, kind: str, position: dict, **params):
    return client.post(f"/api/hex/{kind}", json={"position": position, **params})


def test_close_combat_is_the_engines_ruling_with_its_figures(client):
    """Edgehill, Ramsey's Horse defending (11.3): odds 3 to 4 round to 1:2 (-1), morale +1,
    Momentum +2, attacked from a flank hex +1: net +3."""
    r = post(client, "combat", EDGEHILL, defender="par-ramsey")
    assert r.status_code == 200, r.text
    ruling = r.json()
    assert ruling == engine("combat", EDGEHILL, defender="par-ramsey")
    assert ruling["ruling"] == "close_combat" and ruling["legal"] and ruling["complete"]
    assert ruling["net"] == 3 and ruling["raw"] == 3 and ruling["capped"] is False
    assert ruling["odds"]["attack"] == 3 and ruling["odds"]["defence"] == 4
    assert ruling["odds"]["ratio"] == "1:2" and ruling["odds"]["value"] == -1
    items = {i["slot"]: (i["value"], i["rule"]) for i in ruling["items"]}
    assert items["odds"] == (-1, "11.3.4") and items["momentum"] == (2, "11.3.6")
    assert items["morale"] == (1, "11.3.3") and items["flank_rear"] == (1, "11.3.7")
    assert sum(v for v, _ in items.values()) == 3
    assert ruling["attackers"] == ["roy-byron"]
    # Naming the attacker gives the same figures; a reading changes them as the engine does.
    named = post(client, "combat", EDGEHILL, defender="par-ramsey", attackers=["roy-byron"])
    assert named.json()["net"] == 3
    nearest = post(client, "combat", EDGEHILL, defender="par-ramsey", odds_rounding="nearest")
    assert nearest.json() == engine("combat", EDGEHILL, defender="par-ramsey",
                                    odds_rounding="nearest")


def test_reactions_say_who_may_react_and_why_the_others_may_not(client):
    r = post(client, "reactions", EDGEHILL, event=ENTER)
    assert r.status_code == 200, r.text
    ruling = r.json()
    assert ruling == engine("reactions", EDGEHILL, event=ENTER)
    by_unit = {c["unit"]: c for c in ruling["candidates"]}
    assert by_unit["par-ramsey"]["eligible"] == ["reaction_fire", "reaction_move",
                                                 "interception"]
    assert by_unit["par-essex"]["eligible"] == ["reaction_move.hedgehog"]
    guns = by_unit["par-guns"]
    assert guns["eligible"] == []
    assert guns["blocked"][0]["code"] == "REACT_OUT_OF_RANGE"
    assert guns["blocked"][0]["rule"] == "9.1.2"
    assert "roy-rupert" not in by_unit  # only the other side reacts


def test_la_bataille_assault_rally_and_cup(client):
    a = post(client, "assault", QUATRE_BRAS, assault=["fr-bn1", "fr-bn2"], target=["al-27"])
    assert a.status_code == 200, a.text
    assert a.json() == engine("assault", QUATRE_BRAS, assault=["fr-bn1", "fr-bn2"],
                              target=["al-27"])
    assert a.json()["approach_distance"] == 1
    assert [(m["id"], m["value"]) for m in a.json()["melee"]] == [("al-27", 11)]

    path = ["-1,0", "-1,-1", "0,-2"]
    r = post(client, "rally", QUATRE_BRAS, unit="al-8-militia", path=path)
    assert r.status_code == 200, r.text
    assert r.json()["legal"] and r.json()["end_hex"] == [0, -2]
    assert r.json()["allowance"] == 3 and r.json()["spent"] == 3

    c = post(client, "cup", QUATRE_BRAS, seed=4)
    assert c.status_code == 200, c.text
    assert c.json() == engine("cup", QUATRE_BRAS, seed=4)
    assert len(c.json()["draws"]) == 10
    order = [d["chit"] for d in c.json()["draws"]]
    replay = post(client, "cup", QUATRE_BRAS, order=order)
    assert [d["acts"] for d in replay.json()["draws"]] == [d["acts"] for d in c.json()["draws"]]


def test_rules_data_inline_or_a_shipped_name_and_never_a_path(client):
    bare = {k: v for k, v in EDGEHILL.items() if k != "rules_data"}
    inline = post(client, "combat", bare, defender="par-ramsey", rules_data=RULES)
    named = post(client, "combat", EDGEHILL, defender="par-ramsey")
    assert inline.json()["net"] == named.json()["net"] == 3
    # A path the client chose is not opened: the ruling says which table it lacks.
    for name in ("/etc/passwd", "../hex/rules-data-illustrative.json", "server/samples/hex/"
                 "rules-data-illustrative.json"):
        r = post(client, "combat", {**EDGEHILL, "rules_data": name}, defender="par-ramsey")
        assert r.status_code == 200, r.text
        assert r.json()["complete"] is False
        needs = [x for x in r.json()["reasons"] if x["code"] == "NEEDS_RULES_DATA"]
        assert needs and "not loaded" in needs[0]["message"]
        assert "root:" not in r.text


def test_engine_refusals_are_422_in_the_servers_envelope(client):
    bad = copy.deepcopy(EDGEHILL)
    bad["units"][0]["facing"] = 2  # cavalry in normal order faces a vertex (an odd code)
    r = post(client, "combat", bad, defender="par-ramsey")
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "invalid" and body["code"] == "FACING_OUT_OF_RANGE"
    assert body["field"] == "facing" and body["where"] == "units[0] 'roy-rupert'"
    assert body["units"] == ["roy-rupert"] and "FACING_OUT_OF_RANGE" in body["detail"]
    cases = [("combat", EDGEHILL, {"defender": "ghost"}, "UNKNOWN_UNIT", "defender"),
             ("rally", EDGEHILL, {"unit": "par-essex"}, "UNKNOWN_KIND", "position.ruleset"),
             ("cup", QUATRE_BRAS, {"order": ["F1", "Z9"]}, "CUP_UNKNOWN_CHIT", "order")]
    for kind, pos, params, code, field in cases:
        r = post(client, kind, pos, **params)
        assert r.status_code == 422, (kind, r.text)
        assert (r.json()["code"], r.json()["field"]) == (code, field), r.json()
    two_hex = copy.deepcopy(EDGEHILL)
    two_hex["units"][2]["hexes"] = [[-2, 2], [0, 2]]
    r = post(client, "combat", two_hex, defender="par-ramsey")
    assert r.json()["code"] == "TWO_HEX_NOT_ADJACENT" and r.json()["hexes"] == [[-2, 2], [0, 2]]


def deep(levels: int) -> dict:
    node: dict = {}
    for _ in range(levels):
        node = {"a": node}
    return node


def test_nothing_a_client_sends_is_a_server_error(client):
    """Broken JSON, wrong types, NaN, huge numbers, deep nesting, unknown routes and names."""
    wrong = copy.deepcopy(EDGEHILL)
    wrong["units"][1]["facing"] = "9"
    far = copy.deepcopy(EDGEHILL)
    far["units"][0]["hexes"] = [[10**40, 0]]
    bodies = [b"{not json", b"[1, 2]", b"null",
              json.dumps({"position": wrong, "defender": "par-ramsey"}).encode(),
              json.dumps({"position": far, "defender": "par-ramsey"}).encode(),
              json.dumps({"position": EDGEHILL, "defender": "par-ramsey", "attackers": "x",
                          "halve_rounding": "sideways"}).encode(),
              json.dumps({"position": {**EDGEHILL, "extra": deep(60)},
                          "defender": "par-ramsey"}).encode(),
              json.dumps({"position": EDGEHILL, "defender": "par-ramsey"}).replace(
                  '"morale": 8', '"morale": NaN').encode()]
    for body in bodies:
        r = client.post("/api/hex/combat", content=body,
                        headers={"Content-Type": "application/json"})
        assert r.status_code == 422, (body[:60], r.status_code, r.text[:300])
        assert r.json()["error"] and r.json()["detail"]
    huge_seed = post(client, "cup", QUATRE_BRAS, seed=10**30)
    assert huge_seed.status_code == 422 and "seed" in huge_seed.json()["detail"]
    both = post(client, "cup", QUATRE_BRAS, seed=4, order=["F1"])  # as the CLI refuses it
    assert both.status_code == 422 and "not both" in both.json()["detail"]
    assert post(client, "teleport", EDGEHILL).status_code == 404
    assert client.get("/api/hex/combat").status_code == 405
    assert client.get("/api/hex/samples/nowhere").status_code == 404
    assert client.get("/api/hex/samples/..%2F..%2Fpyproject").status_code in (404, 422)
    assert client.get("/api/hex/samples/rules-data-illustrative").status_code == 404


def test_samples_kinds_and_map(client):
    listed = client.get("/api/hex/samples").json()["samples"]
    assert {s["name"]: s["ruleset"] for s in listed} == {"edgehill": "mpbs-6",
                                                          "quatre-bras": "lb"}
    s = client.get("/api/hex/samples/edgehill").json()
    assert s["position"] == EDGEHILL and s["rules_data"] == RULES
    units = {u["id"]: u for u in s["map"]["units"]}
    assert set(units) == {u["id"] for u in EDGEHILL["units"]}
    assert units["par-essex"]["hexes"] == [[-2, 0], [-1, 0]]
    assert client.post("/api/hex/map", json={"position": EDGEHILL}).json() == s["map"]
    assert client.get("/api/hex/kinds").json() == charges.hex.describe()


def test_openapi_describes_the_hex_routes(client):
    doc = client.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    for kind, model in (("combat", "CombatRequest"), ("reactions", "ReactionsRequest"),
                        ("assault", "AssaultRequest"), ("rally", "RallyRequest"),
                        ("cup", "CupRequest")):
        op = doc["paths"][f"/api/hex/{kind}"]["post"]
        ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        assert ref.endswith(f"/{model}")
        assert op["responses"]["422"]["content"]["application/json"]["schema"]["$ref"] \
            .endswith("/ErrorBody")
        assert {"400", "413"} <= set(op["responses"])
        assert schemas[model]["additionalProperties"] is False
    combat = schemas["CombatRequest"]["properties"]
    assert combat["defender"]["minLength"] == 1
    assert combat["halve_rounding"]["anyOf"][0]["enum"] == ["exact", "up"]
    assert combat["leader_outside_cap"]["anyOf"][0]["type"] == "boolean"
    facing = schemas["HexUnit"]["properties"]["facing"]["anyOf"][0]
    assert (facing["minimum"], facing["maximum"]) == (0, 11)
    assert set(schemas["ErrorBody"]["properties"]) >= {"error", "detail", "field", "code",
                                                          "where", "units", "hexes"}
    assert "/api/hex/samples/{name}" in doc["paths"] and "/api/hex/kinds" in doc["paths"]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("hex-live")) as s:
        yield s


def fetch(url: str, body: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_a_live_server_answers_urllib(live: LiveServer, tmp_path: Path):
    status, listed = fetch(f"{live.url}/api/hex/samples")
    assert status == 200 and len(listed["samples"]) == 2
    status, sample = fetch(live.url + listed["samples"][0]["url"])
    assert status == 200 and sample["map"]["hexes"]
    status, ruling = fetch(f"{live.url}/api/hex/combat",
                           {"position": EDGEHILL, "defender": "par-ramsey"})
    assert status == 200 and ruling == engine("combat", EDGEHILL, defender="par-ramsey")
    status, ruling = fetch(f"{live.url}/api/hex/reactions", {"position": EDGEHILL,
                                                             "event": ENTER})
    assert status == 200 and ruling["candidates"][0]["unit"] == "par-ramsey"
    status, refused = fetch(f"{live.url}/api/hex/combat",
                            {"position": EDGEHILL, "defender": "nobody"})
    assert status == 422 and refused["code"] == "UNKNOWN_UNIT"
    assert "Traceback" not in live.log.read_text(errors="replace")


def test_combat_takes_the_cli_flags_singular_names_too(client):
    """HEX.md 13: the HTTP body carries "the options above", whose flags are ``--attacker`` and
    ``--pistol``; the engine takes both spellings, and so does HTTP (it answered 422)."""
    plural = post(client, "combat", EDGEHILL, defender="par-ramsey", attackers=["roy-byron"],
                  pistols=["roy-byron"])
    singular = post(client, "combat", EDGEHILL, defender="par-ramsey", attacker=["roy-byron"],
                    pistol=["roy-byron"])
    assert plural.status_code == 200 and singular.status_code == 200, singular.text
    assert singular.json() == plural.json()
    assert singular.json() == engine("combat", EDGEHILL, defender="par-ramsey",
                                     attacker=["roy-byron"], pistol=["roy-byron"])
