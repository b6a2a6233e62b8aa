"""Refusals in plain words naming the field (DESIGN.md, HTTP: "Bad input answers 4xx with a JSON
body naming the problem"), for what an outside tester found answered without a field, in
pydantic's or Pillow's jargon, in the command line's words, or not refused at all:

- bodies FastAPI cannot read (not UTF-8, nested too deeply, an integer too long to convert);
- a photo sent as a text part; unknown and repeated form parts, and repeated query
  parameters; the review form takes the ruling request's ``flee`` and
  ``on_accidental_contact`` as ``POST /api/rulings`` does;
- a field that takes one of several shapes (a union) refused without pydantic's tags;
- a roll of the wrong number of dice, refused with what the unit needs;
- the 415 and the pixel-bomb 413 in the server's own words;
- hex answers naming JSON fields, not command-line flags; a ruling route called on another
  game's position; a hex off the map.

What depends on how a request is sent (bytes of a body, multipart parts) is sent by a real
client to a live ``umpire serve``; pure validation goes through the TestClient.
"""

from __future__ import annotations

import copy
import http.client
import json
import re
import struct
import zlib
from collections.abc import Iterator

import httpx
import pytest

import charges

from .conftest import SAMPLES
from .live import LiveServer, live_server
from .test_api import assert_error

HEX = SAMPLES / "hex"
EDGEHILL = json.loads((HEX / "edgehill.json").read_text(encoding="utf-8"))
QUATRE_BRAS = json.loads((HEX / "quatre-bras.json").read_text(encoding="utf-8"))
PHOTO = (SAMPLES / "table.jpg").read_bytes()
MARKERS = (SAMPLES / "markers.json").read_bytes()
CHARGE = json.dumps([{"charger": "knights", "target": "spears"}])
#: pydantic's names for the shapes of a union, as they appeared in a field's path.
JARGON = re.compile(r"literal\[|dict\[|list\[|constrained-|function-|Expected UploadFile|"
                    r"<class ")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("words")) as s:
        yield s


def stored(server: LiveServer) -> int:
    return len(httpx.get(f"{server.url}/api/reviews", params={"limit": 200}).json()["reviews"])


def raw_post(server: LiveServer, path: str, body: bytes) -> tuple[int, dict]:
    """``body`` exactly as given, as JSON, over a plain http.client connection."""
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        c.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        r = c.getresponse()
        return r.status, json.loads(r.read())
    finally:
        c.close()


def sample_request(**changes: object) -> dict:
    scene = json.loads((SAMPLES / "scene.json").read_text(encoding="utf-8"))
    return {"scene": scene, "charges": [{"charger": "knights", "target": "spears"}], **changes}


# -- bodies that cannot be read -----------------------------------------------------------------


@pytest.mark.parametrize(("body", "words"), [
    (b'{"scene": "\xff\xfe"}', ("not UTF-8", "byte 11")),
    (b"[" * 100_000 + b"]" * 100_000, ("nested too deeply",)),
    (json.dumps(sample_request()).replace('"facing": 90.0', '"facing": ' + "9" * 5000, 1)
     .encode(), ("4300 digits",)),
], ids=["invalid-utf8", "nested-100000", "integer-5000-digits"])
def test_an_unreadable_body_is_named_and_said_why(live: LiveServer, body: bytes,
                                                  words: tuple[str, ...]):
    for path in ("/api/rulings", "/api/hex/combat"):
        status, answer = raw_post(live, path, body)
        assert status == 400, (path, answer)
        assert answer["error"] == "bad_json" and answer["field"] == "body", answer
        assert answer["detail"].startswith("body: "), answer
        assert "error parsing the body" not in answer["detail"]
        for w in words:
            assert w in answer["detail"], (w, answer)


def test_a_json_part_too_long_to_read_is_named(client):
    huge = '[{"charger": ' + "9" * 5000 + ', "target": "spears"}]'
    r = client.post("/api/reviews", files={"photo": ("t.jpg", b"x", "image/jpeg")},
                    data={"markers": "{}", "charges": huge})
    body = assert_error(r, 400, "charges:", "4300 digits")
    assert body["field"] == "charges"


# -- multipart forms -------------------------------------------------------------------------


def test_a_photo_sent_as_text_is_told_to_be_a_file(live: LiveServer):
    for path, data in (("/api/detect", {"photo": "table.jpg", "markers": MARKERS.decode()}),
                       ("/api/reviews", {"photo": "table.jpg", "markers": MARKERS.decode(),
                                         "charges": CHARGE})):
        r = httpx.post(live.url + path, data=data, timeout=30)
        body = assert_error(r, 422, "photo: ", "as a file")
        assert not JARGON.search(body["detail"]), body


def test_unknown_form_parts_are_refused_naming_them(live: LiveServer):
    before = stored(live)
    files = {"photo": ("t.jpg", PHOTO, "image/jpeg"),
             "markers": ("markers.json", MARKERS, "application/json")}
    r = httpx.post(f"{live.url}/api/reviews", files=files,
                   data={"charges": CHARGE, "bogus": "1", "dise": '{"knights": [3, 5, 2]}'},
                   timeout=30)
    body = assert_error(r, 422, "bogus", "dise", "not parts of this form", "dice")
    assert body["field"] == "bogus"
    r = httpx.post(f"{live.url}/api/detect", files=files, data={"charges": CHARGE}, timeout=30)
    body = assert_error(r, 422, "charges: not a part of this form", "photo, markers")
    assert stored(live) == before


def test_a_part_sent_twice_is_refused(live: LiveServer):
    before = stored(live)
    twice = [("photo", ("a.jpg", PHOTO, "image/jpeg")), ("photo", ("b.jpg", b"x", "image/jpeg")),
             ("markers", ("markers.json", MARKERS, "application/json"))]
    r = httpx.post(f"{live.url}/api/reviews", files=twice, data={"charges": CHARGE},
                   timeout=30)
    body = assert_error(r, 422, "photo: sent 2 times")
    assert body["field"] == "photo"
    r = httpx.post(f"{live.url}/api/detect", files=[
        ("photo", ("a.jpg", PHOTO, "image/jpeg")),
        ("markers", ("m.json", MARKERS, "application/json")),
        ("markers", ("m.json", MARKERS, "application/json"))], timeout=30)
    assert_error(r, 422, "markers: sent 2 times")
    assert stored(live) == before


@pytest.mark.parametrize(("query", "field"), [
    ("advance=5&distance=8&ruleset=tow&ruleset=whfb8", "ruleset"),
    ("advance=5&advance=6&distance=8", "advance"),
])
def test_a_query_parameter_given_twice_is_refused(live: LiveServer, query: str, field: str):
    """It used to take the last value silently: ``ruleset=tow&ruleset=whfb8`` answered whfb8's
    odds."""
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=10)
    conn.request("GET", f"/api/odds?{query}")
    resp = conn.getresponse()
    status, body = resp.status, json.loads(resp.read())
    conn.close()
    assert status == 422, body
    assert body["field"] == field
    assert body["detail"] == f"{field}: given 2 times in the query; give it once"
    r = httpx.get(f"{live.url}/api/reviews?limit=2&limit=3", timeout=10)
    assert_error(r, 422, "limit: given 2 times")
    assert httpx.get(f"{live.url}/api/odds?advance=5&distance=8", timeout=10).status_code == 200


def test_a_review_takes_flee_and_on_accidental_contact_as_a_ruling_does(live: LiveServer):
    """The review form's parts are a ruling request's: a tow Flee! reaction (the spears flee
    and escape the knights), and the choice for accidental contact, bare or as JSON."""
    form = {"charges": CHARGE, "dice": '{"knights": [3, 5, 2]}', "ruleset": "tow",
            "flee": '{"spears": [2, 3]}', "on_accidental_contact": "continue"}
    r = httpx.post(f"{live.url}/api/reviews", timeout=60, data=form, files={
        "photo": ("t.jpg", PHOTO, "image/jpeg"),
        "markers": ("markers.json", MARKERS, "application/json")})
    assert r.status_code == 201, r.text
    review = r.json()
    assert review["flee"] == {"spears": [2, 3]} and review["on_accidental_contact"] == "continue"
    assert review["ruling"]["charges"][0]["outcome"] == "target_escaped"
    assert httpx.get(f"{live.url}{review['url']}").json()["flee"] == {"spears": [2, 3]}
    for value, words in (("explode", ("on_accidental_contact: must be 'halt' or 'continue'",
                                      '"explode"')),
                         ('{"knights": "explode"}', ("on_accidental_contact.knights:",)),
                         ('{"spears": [2, "3"]}', ("flee.spears[1]",))):
        part = "flee" if "spears" in value else "on_accidental_contact"
        r = httpx.post(f"{live.url}/api/reviews", timeout=60, data={**form, part: value},
                       files={"photo": ("t.jpg", PHOTO, "image/jpeg"),
                              "markers": ("markers.json", MARKERS, "application/json")})
        body = assert_error(r, 422, *words)
        assert not JARGON.search(body["detail"]), body


# -- unions and dice ----------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "detail"), [
    ("explode", "on_accidental_contact: must be 'halt' or 'continue' (for every charger), or "
                'an object giving one of them per charger id, not "explode"'),
    (3, "on_accidental_contact: must be 'halt' or 'continue' (for every charger), or an "
        "object giving one of them per charger id, not 3"),
    ({"knights": "explode"}, "on_accidental_contact.knights: Input should be 'halt' or "
                             "'continue'"),
])
def test_a_union_field_says_what_it_accepts(client, value: object, detail: str):
    r = client.post("/api/rulings", json=sample_request(ruleset="tow",
                                                        on_accidental_contact=value))
    body = assert_error(r, 422)
    assert body["detail"] == detail
    assert [e["loc"] for e in body["errors"]] == [
        ["body", "on_accidental_contact", *([] if not isinstance(value, dict) else ["knights"])]]


def test_union_fields_of_scenes_and_hex_requests_say_what_they_accept(client):
    scene = sample_request()["scene"]
    scene["units"][0]["rear_rank"] = "middle"
    body = assert_error(client.post("/api/rulings", json=sample_request(scene=scene)), 422)
    assert body["detail"].startswith("scene.units[0].rear_rank: must be 'centre', 'left', "
                                     "'right' or a list")
    cases = [
        ("rally", {"position": QUATRE_BRAS, "unit": "al-8-militia", "path": ["x"]},
         'path[0]: must be a hex: [q, r] (two whole numbers) or the text "Q,R"'),
        ("rally", {"position": QUATRE_BRAS, "unit": "al-8-militia", "path": [[1, "a"]]},
         "path[0][1]: Input should be a valid integer"),
        ("assault", {"position": QUATRE_BRAS, "assault": 3, "target": ["al-27"]},
         "assault: must be a unit id or a list of unit ids, not 3"),
        ("assault", {"position": QUATRE_BRAS, "assault": ["fr-bn1"], "target": [{"q": 1}]},
         "target[0]: must be a unit id, a hex"),
        ("reactions", {"position": EDGEHILL, "event": {"kind": "enter_hex", "unit":
                                                       "roy-rupert", "hex": True}},
         "event.hex: must be a hex"),
        ("combat", {"position": {**EDGEHILL, "rules_data": 5}, "defender": "par-ramsey"},
         "position.rules_data: must be the rules data as an object, or the name"),
    ]
    for kind, request, start in cases:
        body = assert_error(client.post(f"/api/hex/{kind}", json=request), 422)
        assert body["detail"].startswith(start), (kind, body["detail"])
        assert not JARGON.search(body["detail"]), body


def test_a_roll_of_the_wrong_count_says_what_the_unit_needs(client):
    """The knights have Swiftstride (the best two of 3D6): one die and two dice are refused
    alike, naming the 3 they need; without Swiftstride the same die is told 2."""
    for dice in ([4], [4, 5], [4, 5, 6, 1]):
        r = client.post("/api/rulings", json=sample_request(dice={"knights": dice}))
        assert_error(r, 422, f"dice.knights: the best two of 3D6 needs 3 dice, got {len(dice)}")
    scene = sample_request()["scene"]
    scene["units"][0]["swiftstride"] = False
    r = client.post("/api/rulings", json=sample_request(scene=scene, dice={"knights": [4]}))
    assert_error(r, 422, "dice.knights: 2D6 needs 2 dice, got 1")
    r = client.post("/api/rulings", json=sample_request(dice={"knights": [4, 7, 1]}))
    assert_error(r, 422, "dice.knights[1]: Input should be less than or equal to 6")


# -- photos ------------------------------------------------------------------------------------


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that announces ``width`` x ``height`` pixels and holds none: what a decoder reads
    before deciding whether to decode (a decompression bomb's first bytes)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")


def test_a_400_megapixel_photo_gets_the_servers_own_413(live: LiveServer):
    for path, data in (("/api/detect", {}), ("/api/reviews", {"charges": CHARGE})):
        r = httpx.post(live.url + path, timeout=30, data=data, files={
            "photo": ("bomb.png", png_header_only(20_000, 20_000), "image/png"),
            "markers": ("markers.json", MARKERS, "application/json")})
        body = assert_error(r, 413, "photo: 400 megapixels is more than the 50 megapixels "
                                    "accepted")
        assert "decompression bomb" not in body["detail"] and "178956970" not in body["detail"]


def test_the_415_names_every_format_accepted(client):
    import io

    from PIL import Image

    gif = io.BytesIO()
    Image.new("RGB", (64, 48)).save(gif, "GIF")
    for data in (gif.getvalue(), b"not an image"):
        r = client.post("/api/detect", files={"photo": ("t", data, "image/gif")},
                        data={"markers": MARKERS.decode()})
        assert_error(r, 415, "JPEG, PNG, WebP, BMP or TIFF expected")
    doc = client.get("/openapi.json").json()
    assert "JPEG, PNG, WebP, BMP or TIFF" in json.dumps(doc["components"]["schemas"][
        "Body_detect_api_detect_post"])


# -- hex answers ---------------------------------------------------------------------------------


def test_hex_answers_name_json_fields_not_command_line_flags(client):
    bare = {k: v for k, v in EDGEHILL.items() if k != "rules_data"}
    engine = charges.hex_rule("combat", copy.deepcopy(bare), defender="par-ramsey")
    assert "--rules-data" in json.dumps(engine)  # the command line keeps its words
    r = client.post("/api/hex/combat", json={"position": bare, "defender": "par-ramsey"})
    assert r.status_code == 200, r.text
    assert "--" not in r.text
    needs = next(x for x in r.json()["reasons"] if x["code"] == "NEEDS_RULES_DATA")
    assert 'supply it as "rules_data" in the request' in needs["message"]
    body = assert_error(client.post("/api/hex/reactions", json={"position": EDGEHILL}), 422,
                        'event: BAD_REQUEST: a trigger record is required: give "event"',
                        '"events"')
    assert "--" not in body["detail"] and "--" not in body["message"]


def test_a_route_called_on_another_games_position_names_its_ruleset(client):
    body = assert_error(client.post("/api/hex/combat", json={"position": QUATRE_BRAS,
                                                             "defender": "al-27"}), 422)
    assert body["code"] == "UNKNOWN_KIND" and body["field"] == "position.ruleset"
    assert body["detail"] == ("position.ruleset: UNKNOWN_KIND: POST /api/hex/combat rules on "
                              "positions of mpbs (mpbs-6), and this position's ruleset is "
                              "'lb', ruled at /api/hex/assault, /api/hex/rally and "
                              "/api/hex/cup")
    body = assert_error(client.post("/api/hex/rally", json={"position": EDGEHILL,
                                                            "unit": "par-essex"}), 422,
                        "ruled at /api/hex/combat and /api/hex/reactions")
    assert body["field"] == "position.ruleset"


@pytest.mark.parametrize(("kind", "position", "params", "field"), [
    ("reactions", EDGEHILL, {"event": {"kind": "enter_hex", "unit": "roy-byron",
                                       "hex": [999, 999]}}, "event.hex"),
    ("reactions", EDGEHILL, {"events": [{"kind": "enter_hex", "unit": "roy-byron",
                                         "hex": [0, 1]},
                                        {"kind": "enter_hex", "unit": "roy-byron",
                                         "hex": "7,0"}]}, "events[1].hex"),
    ("rally", QUATRE_BRAS, {"unit": "al-8-militia", "path": ["-1,0", "999,999"]}, "path[1]"),
    ("assault", QUATRE_BRAS, {"assault": ["fr-bn1", "fr-bn2"], "target": ["999,999"]},
     "target[0]"),
], ids=["event", "events", "rally-path", "assault-target"])
def test_a_hex_off_the_map_is_refused_naming_the_field(client, kind: str, position: dict,
                                                       params: dict, field: str):
    r = client.post(f"/api/hex/{kind}", json={"position": position, **params})
    body = assert_error(r, 422, f"{field}: HEX_OFF_MAP", "is off the map (q -6 to 6, r -")
    assert (body["code"], body["field"]) == ("HEX_OFF_MAP", field)
    assert len(body["hexes"]) == 1
    # The edge of the map is still on it.
    edge = json.loads(json.dumps(params).replace("999,999", "0,-2").replace("999, 999", "6, -6")
                      .replace('"7,0"', '"6,0"'))
    assert client.post(f"/api/hex/{kind}", json={"position": position, **edge}).status_code \
        == 200
