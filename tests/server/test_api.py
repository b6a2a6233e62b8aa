"""The HTTP API (DESIGN.md, HTTP; issue 5): every route, every refusal, and no 500 for anything
a client sends. The real charge engine and detector run behind every call."""

from __future__ import annotations

import hashlib
import io
import json
import random
import time
from pathlib import Path

import anyio
import cv2
import httpx
import numpy as np
import pytest
from fastapi.testclient import TestClient
from PIL import Image

from server.app import create_app
from server.models import Review, Ruling

from .conftest import a_charge, roll

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def review_form(photo: bytes, markers: str, charges: object, dice: object = None,
                ruleset: str | None = None) -> dict:
    data = {"markers": markers,
            "charges": charges if isinstance(charges, str) else json.dumps(charges)}
    if dice is not None:
        data["dice"] = dice if isinstance(dice, str) else json.dumps(dice)
    if ruleset is not None:
        data["ruleset"] = ruleset
    return {"files": {"photo": ("table.jpg", photo, "image/jpeg")}, "data": data}


def assert_error(r: httpx.Response, status: int, *words: str) -> dict:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert body["error"] and body["detail"]
    for w in words:
        assert w.lower() in body["detail"].lower(), (w, body)
    return body


# -- the page and the docs ---------------------------------------------------------------------


def test_page_and_its_assets_are_served(client: TestClient):
    r = client.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    for anchor in ('id="photo-input"', 'id="markers-input"', 'id="table-canvas"',
                   'id="outcome"', 'id="overlay-img"', 'id="history-list"'):
        assert anchor in r.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200


def test_openapi_describes_every_route_with_its_models(client: TestClient):
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    for path, method in (("/api/detect", "post"), ("/api/rulings", "post"),
                         ("/api/reviews", "post"), ("/api/reviews", "get"),
                         ("/api/reviews/{review_id}", "get"),
                         ("/api/reviews/{review_id}/overlay.png", "get"),
                         ("/api/reviews/{review_id}/photo", "get"),
                         ("/api/reviews/{review_id}/thumbnail.jpg", "get"),
                         ("/api/odds", "get"), ("/api/rulesets", "get")):
        assert method in paths[path], (path, method)
    schemas = spec["components"]["schemas"]
    for name in ("RulingRequest", "Ruling", "ChargeRuling", "Review", "ReviewList",
                 "DetectedScene", "ErrorBody", "Odds"):
        assert name in schemas, name
    assert paths["/api/reviews"]["post"]["responses"]["201"]
    assert client.get("/docs").status_code == 200


# -- POST /api/detect ------------------------------------------------------------------------


def test_detect_finds_every_unit_of_the_sample(detected: dict, sample_markers_text: str):
    markers = json.loads(sample_markers_text)
    assert {u["id"] for u in detected["units"]} == {u["id"] for u in markers["units"]}
    assert isinstance(detected["detection"], dict)


def test_detect_takes_markers_as_a_file_too(client, sample_photo, sample_markers_text, detected):
    r = client.post("/api/detect", files={
        "photo": ("t.jpg", sample_photo, "image/jpeg"),
        "markers": ("markers.json", sample_markers_text.encode(), "application/json")})
    assert r.status_code == 200, r.text
    assert [u["id"] for u in r.json()["units"]] == [u["id"] for u in detected["units"]]


def test_detect_refuses_a_file_that_is_not_an_image(client, sample_markers_text):
    r = client.post("/api/detect", files={"photo": ("t.jpg", b"hello, not a photo", "image/jpeg")},
                    data={"markers": sample_markers_text})
    assert_error(r, 415, "photo", "not an image")


def test_detect_refuses_a_broken_jpeg(client, sample_photo, sample_markers_text):
    broken = sample_photo[: len(sample_photo) // 2]
    r = client.post("/api/detect", files={"photo": ("t.jpg", broken, "image/jpeg")},
                    data={"markers": sample_markers_text})
    assert_error(r, 400, "photo", "broken")


def test_detect_refuses_an_empty_photo(client, sample_markers_text):
    r = client.post("/api/detect", files={"photo": ("t.jpg", b"", "image/jpeg")},
                    data={"markers": sample_markers_text})
    assert_error(r, 400, "photo", "empty")


def test_detect_refuses_markers_that_are_not_json(client, sample_photo):
    r = client.post("/api/detect", files={"photo": ("t.jpg", sample_photo, "image/jpeg")},
                    data={"markers": "{dictionary: DICT_4X4_50"})
    body = assert_error(r, 400, "markers", "not valid JSON")
    assert body["field"] == "markers"


def test_detect_refuses_markers_of_the_wrong_shape(client, sample_photo):
    for markers in ("[1, 2, 3]", '{"dictionary": "DICT_4X4_50", "table": 7}'):
        r = client.post("/api/detect", files={"photo": ("t.jpg", sample_photo, "image/jpeg")},
                        data={"markers": markers})
        assert r.status_code == 422, r.text
        assert "markers" in r.json()["detail"].lower() or "table" in r.json()["detail"].lower()


def test_detect_without_a_photo_names_the_missing_field(client, sample_markers_text):
    r = client.post("/api/detect", data={"markers": sample_markers_text})
    assert_error(r, 422, "photo")


def test_a_photo_without_a_table_is_a_detection_error(client, sample_markers_text):
    buf = io.BytesIO()
    Image.new("RGB", (640, 480), (120, 130, 90)).save(buf, "PNG")
    r = client.post("/api/detect", files={"photo": ("plain.png", buf.getvalue(), "image/png")},
                    data={"markers": sample_markers_text})
    assert 400 <= r.status_code < 500 and r.json()["detail"]


def test_a_pixel_bomb_is_refused_before_decoding(client, sample_markers_text):
    ok, png = cv2.imencode(".png", np.zeros((7500, 7500), np.uint8))  # 56 MP, a few kB
    assert ok and len(png) < 1_000_000
    t = time.perf_counter()
    r = client.post("/api/detect", files={"photo": ("bomb.png", png.tobytes(), "image/png")},
                    data={"markers": sample_markers_text})
    assert_error(r, 413, "megapixels")
    assert time.perf_counter() - t < 2


# -- upload limit ----------------------------------------------------------------------------


def test_uploads_over_the_limit_get_413(tmp_path: Path, sample_markers_text: str):
    with TestClient(create_app(tmp_path, max_upload_mb=0.05)) as c:
        r = c.post("/api/detect", files={"photo": ("big.jpg", b"\xff" * 80_000, "image/jpeg")},
                   data={"markers": sample_markers_text})
        assert_error(r, 413, "0.05 MB")
        r = c.post("/api/rulings", content=b"[" * 60_000,
                   headers={"content-type": "application/json"})
        assert_error(r, 413)


def test_chunked_uploads_over_the_limit_get_413(tmp_path: Path):
    """A client that does not announce the length is counted as it streams."""
    def chunks():
        for _ in range(20):
            yield b"x" * 10_000

    with TestClient(create_app(tmp_path, max_upload_mb=0.05)) as c:
        r = c.post("/api/rulings", content=chunks(), headers={"content-type": "application/json"})
        assert_error(r, 413)


def test_default_limit_is_25_mb(tmp_path: Path):
    with TestClient(create_app(tmp_path)) as c:
        r = c.post("/api/rulings", content=b" " * 26_000_000,
                   headers={"content-type": "application/json"})
        assert_error(r, 413, "25 MB")
        r = c.post("/api/rulings", content=b" " * 1_000_000,
                   headers={"content-type": "application/json"})
        assert r.status_code == 422


# -- POST /api/rulings -----------------------------------------------------------------------


def test_ruling_without_dice_gives_the_odds(client: TestClient, sample_scene: dict):
    charger, target = a_charge(sample_scene)
    r = client.post("/api/rulings", json={"scene": sample_scene,
                                          "charges": [{"charger": charger, "target": target}]})
    assert r.status_code == 200, r.text
    ruling = r.json()
    Ruling.model_validate(ruling)
    c = ruling["charges"][0]
    assert (c["charger"], c["target"]) == (charger, target)
    assert c["outcome"] is None and 0 <= c["odds"] <= 1 and c["explanation"]
    assert {u["id"] for u in ruling["units"]} == {u["id"] for u in sample_scene["units"]}


def test_ruling_with_dice_gives_the_outcome_the_roll_makes(client: TestClient,
                                                           sample_scene: dict):
    """The sample's knights (Advance Rate 8, Swiftstride: best two of 3D6) are 10.167" from
    the spears' front: the roll needed is 3 (10.167 - 8 = 2.167, rounded up), missed only by
    three 1s, so the odds are 215/216. Three 6s give 8 + 12 = 20" >= 10.167": the charge
    succeeds. Three 1s give 8 + 2 = 10" < 10.167": it fails, and the failed charge moves the
    highest single die, 1" = 25.4 mm, after turning to face the target (Charge Range, Failed
    Charge)."""
    def rule(dice: list[int]) -> dict:
        r = client.post("/api/rulings", json={
            "ruleset": "t9a-1", "scene": sample_scene,
            "charges": [{"charger": "knights", "target": "spears"}], "dice": {"knights": dice}})
        assert r.status_code == 200, r.text
        return r.json()["charges"][0]

    sixes, ones = rule([6, 6, 6]), rule([1, 1, 1])
    for c in (sixes, ones):
        assert (c["facing"], c["distance_in"], c["needed_in"]) == ("front", 10.167, 3)
        assert abs(c["odds"] - 215 / 216) < 1e-5
    assert (sixes["outcome"], sixes["range_in"]) == ("success", 20.0)
    assert [s["kind"] for s in sixes["path"]][-1] == "align"
    assert sixes["contact"]["charger_models"] > 0 and sixes["contact"]["target_models"] > 0
    assert (ones["outcome"], ones["range_in"]) == ("failed", 10.0)
    assert [s["kind"] for s in ones["path"]] == ["turn", "forward"]
    assert abs(ones["path"][1]["distance_mm"] - 25.4) < 0.01


def test_ruling_with_an_unknown_unit_names_it(client: TestClient, sample_scene: dict):
    charger, _ = a_charge(sample_scene)
    r = client.post("/api/rulings", json={"scene": sample_scene,
                                          "charges": [{"charger": charger, "target": "ghosts"}]})
    assert_error(r, 422, "ghosts")


def test_ruling_refusals_name_the_field(client: TestClient, sample_scene: dict):
    charger, target = a_charge(sample_scene)
    good = {"scene": sample_scene, "charges": [{"charger": charger, "target": target}]}
    cases = [
        ({**good, "charges": []}, "charges"),
        ({**good, "charges": [{"charger": charger}]}, "target"),
        ({**good, "dice": {charger: ["six"]}}, "dice"),
        ({**good, "dice": {charger: [7, 9]}}, "dice"),
        ({**good, "ruleset": "chess"}, "ruleset"),
        ({"charges": good["charges"]}, "scene"),
        ({**good, "scene": {**sample_scene, "units": [{**sample_scene["units"][0], "x": "far"}]}},
         "x"),
        ({**good, "scene": {**sample_scene, "units": sample_scene["units"] + [
            {**sample_scene["units"][0], "id": "twin"}]}}, "overlap"),
    ]
    for body, word in cases:
        r = client.post("/api/rulings", json=body)
        assert 400 <= r.status_code < 500, (body, r.text)
        assert word.lower() in r.json()["detail"].lower(), (word, r.json())


def test_ruling_body_that_is_not_json(client: TestClient):
    r = client.post("/api/rulings", content=b"{not json",
                    headers={"content-type": "application/json"})
    assert_error(r, 422, "json")


# -- GET /api/odds ---------------------------------------------------------------------------


def test_odds_of_a_charge_roll(client: TestClient):
    r = client.get("/api/odds", params={"advance": 8, "distance": 11.5})
    assert r.status_code == 200, r.text
    body = r.json()
    # 11.5" with 8" advance needs 4 on 2D6: 33 of 36 rolls (RULES.md 3).
    assert body["needed_in"] == 4 and abs(body["odds"] - 33 / 36) < 1e-6
    swift = client.get("/api/odds", params={"advance": 8, "distance": 11.5,
                                            "swiftstride": True}).json()
    assert swift["odds"] > body["odds"]


def test_odds_refusals(client: TestClient):
    assert_error(client.get("/api/odds", params={"advance": 8}), 422, "distance")
    assert_error(client.get("/api/odds", params={"advance": "fast", "distance": 3}), 422,
                 "advance")
    r = client.get("/api/odds", params={"advance": 8, "distance": 3, "ruleset": "chess"})
    assert_error(r, 422, "ruleset")


# -- reviews ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stored(tmp_path_factory, sample_photo, sample_markers_text, detected):
    """One app with one review made from the sample photo."""
    data = tmp_path_factory.mktemp("reviews")
    charger, target = a_charge(detected)
    dice = {charger: roll(detected, charger, 4, 5, 2)}
    with TestClient(create_app(data), raise_server_exceptions=False) as c:
        r = c.post("/api/reviews", **review_form(sample_photo, sample_markers_text,
                                                 [{"charger": charger, "target": target}],
                                                 dice))
        assert r.status_code == 201, r.text
        yield c, r.json(), dice


def test_review_is_created_with_scene_ruling_and_overlay(stored):
    _, review, dice = stored
    Review.model_validate(review)
    assert review["id"] and review["overlay_url"].endswith("/overlay.png")
    assert review["dice"] == dice
    assert review["ruling"]["charges"][0]["outcome"] in ("success", "failed", "impossible",
                                                         "special", "caught_fleeing")
    assert review["scene"]["units"]


def test_review_files_are_served(stored, sample_photo):
    c, review, _ = stored
    r = c.get(review["overlay_url"])
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    assert r.content.startswith(PNG_MAGIC)
    r = c.get(review["photo_url"])
    assert r.status_code == 200 and r.content == sample_photo
    assert r.headers["content-type"] == "image/jpeg"
    assert hashlib.sha256(sample_photo).hexdigest() in r.headers["etag"]
    r = c.get(review["thumbnail_url"])
    assert r.status_code == 200 and r.content[:2] == b"\xff\xd8"
    thumb = Image.open(io.BytesIO(r.content))
    assert max(thumb.size) <= 320


def test_review_is_listed_and_read_back(stored):
    c, review, _ = stored
    listing = c.get("/api/reviews").json()
    item = next(x for x in listing["reviews"] if x["id"] == review["id"])
    assert item["thumbnail_url"] == review["thumbnail_url"]
    assert item["charges"][0]["outcome"] == review["ruling"]["charges"][0]["outcome"]
    again = c.get(f"/api/reviews/{review['id']}").json()
    assert again == review


def test_unknown_review_is_404_everywhere(stored):
    c, _, _ = stored
    for suffix in ("", "/overlay.png", "/photo", "/thumbnail.jpg"):
        assert_error(c.get(f"/api/reviews/0123456789abcdef{suffix}"), 404, "no such review")


def test_review_listing_pages(stored):
    c, _, _ = stored
    assert_error(c.get("/api/reviews", params={"limit": 0}), 422, "limit")
    assert_error(c.get("/api/reviews", params={"limit": "many"}), 422, "limit")
    page = c.get("/api/reviews", params={"limit": 1}).json()
    assert len(page["reviews"]) == 1


def test_review_refusals_name_the_field(stored, sample_photo, sample_markers_text, detected):
    c, _, _ = stored
    before = len(c.get("/api/reviews", params={"limit": 200}).json()["reviews"])
    charger, target = a_charge(detected)
    cases = [
        (review_form(sample_photo, sample_markers_text, "not json"), 400, "charges"),
        (review_form(sample_photo, sample_markers_text, {"charger": charger}), 422, "charges"),
        (review_form(sample_photo, sample_markers_text, []), 422, "charges"),
        (review_form(sample_photo, sample_markers_text,
                     [{"charger": charger, "target": "ghosts"}]), 422, "ghosts"),
        (review_form(sample_photo, sample_markers_text, [{"charger": charger, "target": target}],
                     dice="{6, 6}"), 400, "dice"),
        (review_form(sample_photo, sample_markers_text, [{"charger": charger, "target": target}],
                     dice={charger: "66"}), 422, "dice"),
        (review_form(sample_photo, "nope", [{"charger": charger, "target": target}]), 400,
         "markers"),
        (review_form(b"GIF89a....", sample_markers_text,
                     [{"charger": charger, "target": target}]), 415, "photo"),
    ]
    for form, status, word in cases:
        assert_error(c.post("/api/reviews", **form), status, word)
    after = len(c.get("/api/reviews", params={"limit": 200}).json()["reviews"])
    assert after == before, "a refused review must not be stored"


# -- nothing a client sends gives a 500 ------------------------------------------------------


def _garbage_values(rng: random.Random) -> list[object]:
    return [None, True, 0, -1, 1e308, -1e308, float("nan"), "", "x" * 5000, [], {}, [[[]]],
            {"a": {"b": {"c": []}}}, rng.random(), rng.randint(-10**12, 10**12), "\u0000\ud7ff",
            [1, "2", None], {"charger": None}]


def _mutations(doc: object, rng: random.Random, n: int) -> list[object]:
    """``n`` copies of ``doc`` each with one random sub-tree replaced by garbage."""
    out = []
    for _ in range(n):
        copy = json.loads(json.dumps(doc))
        node, key = None, None
        cur = copy
        for _depth in range(rng.randint(1, 6)):
            if isinstance(cur, dict) and cur:
                node, key = cur, rng.choice(list(cur))
            elif isinstance(cur, list) and cur:
                node, key = cur, rng.randrange(len(cur))
            else:
                break
            cur = node[key]
        if node is None:
            out.append(rng.choice(_garbage_values(rng)))
            continue
        if rng.random() < 0.15 and isinstance(node, dict):
            del node[key]
        else:
            node[key] = rng.choice(_garbage_values(rng))
        out.append(copy)
    return out


def test_garbage_at_every_endpoint_never_gives_a_500(client, sample_scene, sample_photo,
                                                     sample_markers_text, detected):
    rng = random.Random(20240505)
    charger, target = a_charge(sample_scene)
    request = {"ruleset": "t9a-1", "scene": sample_scene,
               "charges": [{"charger": charger, "target": target}],
               "dice": {charger: roll(sample_scene, charger, 3, 4)}}
    statuses: list[tuple[str, int]] = []

    def check(what: str, r: httpx.Response) -> None:
        statuses.append((what, r.status_code))
        assert r.status_code < 500, (what, r.status_code, r.text[:500])
        if r.status_code >= 400:
            assert r.json()["detail"], (what, r.text)

    raw_bodies = [b"", b"null", b"[]", b"{}", b"\xff\xfe\x00", b"{" * 3000 + b"}" * 3000,
                  b'{"scene": NaN}', b'{"charges": Infinity}', rng.randbytes(2000)]
    for body in raw_bodies:
        check("rulings raw", client.post("/api/rulings", content=body,
                                         headers={"content-type": "application/json"}))
        check("rulings text/plain", client.post("/api/rulings", content=body,
                                                headers={"content-type": "text/plain"}))
    for doc in _mutations(request, rng, 120):
        check("rulings mutated", client.post(
            "/api/rulings", content=json.dumps(doc, allow_nan=True),
            headers={"content-type": "application/json"}))

    # Multipart endpoints: garbage photos, markers, charges, dice, ruleset, missing fields.
    photos = [b"", rng.randbytes(5000), sample_photo[:1000], sample_photo[:-3000],
              b"\x89PNG\r\n\x1a\n" + rng.randbytes(300), b"BM" + rng.randbytes(200)]
    markers = json.loads(sample_markers_text)
    marker_texts = ["", "null", "[]", "\xff", *[json.dumps(m, allow_nan=True)
                                               for m in _mutations(markers, rng, 25)]]
    for p in photos:
        check("detect photo", client.post("/api/detect", files={"photo": ("p", p, "image/jpeg")},
                                          data={"markers": sample_markers_text}))
    for mt in marker_texts:
        check("detect markers", client.post(
            "/api/detect", files={"photo": ("p.jpg", sample_photo, "image/jpeg")},
            data={"markers": mt}))
    check("detect no fields", client.post("/api/detect"))
    check("detect json", client.post("/api/detect", json={"photo": "x", "markers": {}}))
    check("detect photo as text", client.post("/api/detect", data={"photo": "x", "markers": "{}"}))
    decl = [{"charger": charger, "target": target}]
    for form in [
        {"charges": "", "dice": None}, {"charges": "{}", "dice": "[]"},
        {"charges": json.dumps([{"charger": 1, "target": 2}])},
        {"charges": json.dumps(decl), "dice": json.dumps({charger: [0, 99]})},
        {"charges": json.dumps(decl), "dice": json.dumps({"nobody": [3, 3]})},
        {"charges": json.dumps(decl), "dice": json.dumps({charger: [3]})},
        {"charges": json.dumps(decl), "ruleset": ""},
        {"charges": json.dumps(decl), "ruleset": "x" * 10000},
        {"charges": json.dumps(decl * 50)},
        *[{"charges": json.dumps(m, allow_nan=True)} for m in _mutations(decl, rng, 15)],
    ]:
        data = {"markers": sample_markers_text, **{k: v for k, v in form.items() if v is not None}}
        check("reviews", client.post(
            "/api/reviews", files={"photo": ("p.jpg", sample_photo, "image/jpeg")}, data=data))
    for p in photos[:3]:
        check("reviews photo", client.post(
            "/api/reviews", files={"photo": ("p", p, "image/jpeg")},
            data={"markers": sample_markers_text, "charges": json.dumps(decl)}))

    for path in ("/api/reviews/%00", "/api/reviews/..%2F..%2Fetc", "/api/reviews/" + "z" * 3000,
                 "/api/reviews/x/overlay.png", "/api/reviews/x/photo", "/api/nothing",
                 "/static/../server/app.py", "/api/reviews?limit=-5&before=abc"):
        check(f"GET {path}", client.get(path))
    for params in ({"advance": "nan", "distance": "inf"}, {"advance": -5, "distance": -3},
                   {"advance": 1e300, "distance": 1e300}, {"advance": "", "distance": ""},
                   {"advance": 8, "distance": 11.5, "swiftstride": "perhaps"}):
        check("odds", client.get("/api/odds", params=params))
    check("wrong method", client.delete("/api/reviews"))
    check("wrong method", client.put("/api/rulings", json={}))
    assert len(statuses) > 200


# -- concurrency -----------------------------------------------------------------------------


def test_a_slow_photo_does_not_stall_other_requests(tmp_path: Path, sample_photo: bytes,
                                                    sample_markers_text: str):
    """While big photos are being detected in worker threads, the event loop still answers."""
    app = create_app(tmp_path)
    img = cv2.imdecode(np.frombuffer(sample_photo, np.uint8), cv2.IMREAD_COLOR)
    big = cv2.imencode(".jpg", cv2.resize(img, None, fx=2, fy=2))[1].tobytes()
    latencies: list[float] = []
    detect_done: list[float] = []

    async def main() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            async def slow() -> None:
                r = await c.post("/api/detect", files={"photo": ("b.jpg", big, "image/jpeg")},
                                 data={"markers": sample_markers_text}, timeout=60)
                assert r.status_code in (200, 422), r.text
                detect_done.append(time.perf_counter())

            async def quick() -> None:
                await anyio.sleep(0.05)
                while not detect_done:
                    t = time.perf_counter()
                    r = await c.get("/api/reviews")
                    assert r.status_code == 200
                    latencies.append(time.perf_counter() - t)
                    await anyio.sleep(0.01)

            async with anyio.create_task_group() as tg:
                tg.start_soon(slow)
                tg.start_soon(slow)
                tg.start_soon(quick)

    anyio.run(main)
    assert latencies, "the detection finished before any other request was tried"
    assert max(latencies) < 0.5, max(latencies)


# -- every scenario of the charge suite through HTTP --------------------------------------------


#: The charge rulesets' scenarios (not those naming a known gap: the scenario runner expects
#: those to fail).
SCENARIOS = [p for folder in ("t9a-1", "tow", "whfb8") for p in sorted(
    (Path(__file__).resolve().parents[1] / "scenarios" / folder).glob("*.json"))
    if "known_gap" not in json.loads(p.read_text())]


def _contains(got: object, want: object, where: str = "ruling") -> None:
    """Everything in ``want`` (the engine's ruling) is in ``got`` (the answer) unchanged; the
    answer may add the documented fields the engine left out, as null."""
    if isinstance(want, dict):
        assert isinstance(got, dict), where
        for key, value in want.items():
            assert key in got, f"{where}.{key} missing"
            _contains(got[key], value, f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _contains(g, w, f"{where}[{i}]")
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


@pytest.mark.parametrize("path", SCENARIOS, ids=[f"{p.parent.name}/{p.stem}" for p in SCENARIOS])
def test_every_scenario_rules_over_http_as_documented(client: TestClient, path: Path):
    """Each ruling kind (special charges, fleeing targets, multiple charges...) comes back
    through the API with every figure the scenario's arithmetic expects (facing, shares,
    distance, roll needed, odds, range, outcome, path, final pose, models in contact,
    priorities, the units after the charge), compared by the scenario runner's own rules and
    tolerances, and as the engine gives it, to the last digit; each bad request is a 4xx naming
    the same field the engine names. (The suite-wide checker in tests/conftest.py judges every
    ruling made here too.)"""
    import charges
    from tests.scenarios.test_scenarios import _check_charge, _compare

    case = json.loads(path.read_text())
    r = client.post("/api/rulings", json=case["request"])
    if "expect_error" in case:
        assert_error(r, 422, *case["expect_error"])
        return
    assert r.status_code == 200, r.text
    answer = r.json()
    Ruling.model_validate(answer)
    _contains(answer, json.loads(json.dumps(charges.rule(json.loads(path.read_text())[
        "request"]))))
    expect, overrides, errors = case["expect"], case.get("tolerance", {}), []
    assert len(expect.get("charges", [])) <= len(answer["charges"])
    for i, want in enumerate(expect.get("charges", [])):
        got = (next(c for c in answer["charges"] if c["charger"] == want["charger"])
               if "charger" in want else answer["charges"][i])
        _check_charge(want, got, f"charges[{got['charger']}]", overrides, errors)
    units = {u["id"]: u for u in answer["units"]}
    for uid, want in expect.get("units", {}).items():
        _compare(want, units[uid], f"units.{uid}", uid, "units", overrides, errors)
    text = " ".join(s for c in answer["charges"] for s in c["explanation"]).lower()
    errors += [f"explanation: missing {w!r}" for w in expect.get("explanation_contains", [])
               if w.lower() not in text]
    assert not errors, "\n".join(errors)


def test_error_details_name_the_field_as_the_client_wrote_it(client: TestClient):
    """A body that is not JSON says so and where; a body field called ``path`` keeps its
    name (only the location word in front is dropped); an absurd distance is refused."""
    r = client.post("/api/rulings", content=b'{"ruleset":',
                    headers={"content-type": "application/json"})
    assert r.status_code == 422
    assert r.json()["detail"] == "body: not valid JSON (at character 11)"
    r = client.post("/api/hex/rally", json={"position": {}, "unit": "x", "path": [["a"]]})
    assert r.status_code == 422 and "path[0]" in r.json()["detail"]
    r = client.get("/api/odds", params={"advance": 8, "distance": 1e308})
    assert r.status_code == 422 and r.json()["detail"].startswith("distance:")
    # A JSON body sent as text/plain is not read as JSON: the answer says so.
    r = client.post("/api/rulings", content=b'{"charges": []}',
                    headers={"content-type": "text/plain"})
    assert r.status_code == 422 and "application/json" in r.json()["detail"]
    r = client.post("/api/rulings", content=b"[1, 2]",
                    headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["detail"].startswith("body: ")
