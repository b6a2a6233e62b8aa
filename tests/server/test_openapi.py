"""``/openapi.json`` states what the server enforces (DESIGN.md, HTTP; issue 11), and the server
enforces what it states: the scene's constraints from ``geometry.load_scene``, dice faces 1-6,
the refusals of every operation with their ErrorBody, a correct ``Allow`` on 405, and the
server's own limits. (test_schemathesis.py judges the whole document against a live server.)"""

from __future__ import annotations

import copy
import json

import pytest
from fastapi.testclient import TestClient

import charges
from server.models import MAX_FILES, MAX_UNITS

from .test_api import assert_error


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> dict:
    from server.app import create_app

    with TestClient(create_app(tmp_path_factory.mktemp("spec"))) as c:
        return c.get("/openapi.json").json()


def schema_of(spec: dict, name: str) -> dict:
    return spec["components"]["schemas"][name]


def test_every_refusal_of_every_operation_has_the_error_body(spec: dict):
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    for path, item in spec["paths"].items():
        for method, op in item.items():
            refusals = {code: r for code, r in op["responses"].items() if code[0] in "45"}
            # The upload limit applies to any request, so every operation may answer 413.
            assert "413" in refusals, (method, path)
            for code, response in refusals.items():
                body = response["content"]["application/json"]["schema"]
                assert body == {"$ref": "#/components/schemas/ErrorBody"}, (method, path, code)
    assert set(spec["paths"]["/api/detect"]["post"]["responses"]) == {
        "200", "400", "413", "415", "422", "503"}
    assert set(spec["paths"]["/api/rulings"]["post"]["responses"]) == {"200", "400", "413",
                                                                      "422"}
    assert "404" in spec["paths"]["/api/reviews/{review_id}"]["get"]["responses"]


def test_the_scene_states_the_constraints_of_load_scene(spec: dict):
    unit = schema_of(spec, "Unit")["properties"]
    assert unit["files"]["minimum"] == 1 and unit["ranks"]["minimum"] == 1
    assert unit["files"]["maximum"] == MAX_FILES
    assert unit["base"]["minItems"] == unit["base"]["maxItems"] == 2
    assert unit["base"]["items"]["minimum"] > 0
    assert {"minimum": 0, "type": "number"} in unit["advance_in"]["anyOf"]
    assert unit["sigma_mm"]["minimum"] == 0 and unit["sigma_deg"]["minimum"] == 0
    assert {"minimum": 1, "type": "integer"} in unit["models"]["anyOf"]
    assert set(unit["state"]["enum"]) == {"ready", "fleeing", "engaged", "disrupted",
                                          "destroyed"}
    assert unit["id"]["type"] == "string" and unit["side"]["type"] == "string"
    rear_list = next(s for s in unit["rear_rank"]["anyOf"] if s.get("type") == "array")
    assert rear_list["uniqueItems"] and rear_list["items"]["minimum"] == 0
    assert set(schema_of(spec, "Unit")["required"]) == {"id", "side", "x", "y", "facing",
                                                        "base", "files", "ranks"}
    table = schema_of(spec, "Table")["properties"]
    assert table["width_mm"]["exclusiveMinimum"] == 0
    assert schema_of(spec, "Terrain")["properties"]["polygon"]["minItems"] == 3
    scene = schema_of(spec, "Scene")
    assert "units" in scene["required"] and scene["properties"]["units"]["minItems"] == 2
    assert scene["properties"]["units"]["maxItems"] == MAX_UNITS


def test_the_ruling_request_states_dice_and_rulesets(spec: dict):
    req = schema_of(spec, "RulingRequest")
    assert req["additionalProperties"] is False
    assert set(req["required"]) == {"scene", "charges"}
    assert req["properties"]["charges"]["minItems"] == 1
    dice = next(s for s in req["properties"]["dice"]["anyOf"] if s.get("type") == "object")
    roll = dice["additionalProperties"]
    assert roll["items"] == {"type": "integer", "minimum": 1, "maximum": 6}
    assert (roll["minItems"], roll["maxItems"]) == (2, 3)  # 2D6, or 3D6 with Swiftstride
    assert req["properties"]["ruleset"]["enum"] == list(charges.RULESETS)
    assert list(charges.RULESETS) == ["t9a-1", "tow", "whfb8"]
    decl = schema_of(spec, "ChargeDeclaration")
    assert decl["additionalProperties"] is False
    assert decl["properties"]["charger"]["minLength"] == 1


def test_the_odds_and_the_listing_state_their_ranges(spec: dict):
    params = {p["name"]: p["schema"] for p in spec["paths"]["/api/odds"]["get"]["parameters"]}
    assert params["advance"]["minimum"] == 0 and params["distance"]["minimum"] == 0
    assert params["ruleset"]["enum"] == list(charges.RULESETS)
    params = {p["name"]: p["schema"] for p in spec["paths"]["/api/reviews"]["get"]["parameters"]}
    assert (params["limit"]["minimum"], params["limit"]["maximum"]) == (1, 200)
    before = next(s for s in params["before"]["anyOf"] if s.get("type") == "integer")
    assert before["maximum"] == 2**63 - 1


def test_the_review_form_states_what_its_json_parts_hold(spec: dict):
    ref = spec["paths"]["/api/reviews"]["post"]["requestBody"]["content"][
        "multipart/form-data"]["schema"]["$ref"]
    form = spec["components"]["schemas"][ref.rsplit("/", 1)[1]]
    props = form["properties"]
    assert props["charges"]["type"] == "array" and props["charges"]["minItems"] == 1
    assert props["charges"]["items"] == {"$ref": "#/components/schemas/ChargeDeclaration"}
    assert props["dice"]["additionalProperties"]["items"]["maximum"] == 6
    assert {"type": "object", "description": "markers.json as a JSON object"} in \
        props["markers"]["anyOf"]
    assert props["ruleset"]["enum"] == list(charges.RULESETS)
    assert set(form["required"]) == {"photo", "markers", "charges"}
    links = spec["paths"]["/api/reviews"]["post"]["responses"]["201"]["links"]
    assert links["GetReview"]["parameters"] == {"review_id": "$response.body#/id"}
    assert links["GetReview"]["operationId"] == \
        spec["paths"]["/api/reviews/{review_id}"]["get"]["operationId"]


# -- the server refuses what the document refuses --------------------------------------------


def ruling(scene: dict, **changes: object) -> dict:
    """The sample's charge with the first unit changed."""
    scene = copy.deepcopy(scene)
    scene["units"][0].update(changes)
    return {"scene": scene, "charges": [{"charger": "knights", "target": "spears"}]}


@pytest.mark.parametrize(("changes", "word"), [
    ({"x": "600"}, "x"),  # a string that looks like a number is not a number
    ({"files": 5.5}, "files"),
    ({"files": True}, "files"),
    ({"swiftstride": 1}, "swiftstride"),
    ({"id": 7}, "id"),
    ({"files": MAX_FILES + 1}, "files"),
    ({"base": [25]}, "base"),
    ({"base": [0.5, 50]}, "base"),
    ({"advance_in": -1}, "advance_in"),
    ({"sigma_mm": None}, "sigma_mm"),
    ({"rear_rank": "middle"}, "rear_rank"),
    ({"y": 1.5e69}, "y"),
])
def test_a_unit_outside_the_schema_is_refused_naming_the_field(client: TestClient,
                                                               sample_scene: dict,
                                                               changes: dict, word: str):
    assert_error(client.post("/api/rulings", json=ruling(sample_scene, **changes)), 422, word)


def test_requests_outside_the_schema_are_refused(client: TestClient, sample_scene: dict):
    good = ruling(sample_scene)
    for body, word in [
        ({**good, "scene": {**good["scene"], "units": good["scene"]["units"][:1]}}, "units"),
        ({**good, "dice": {"knights": [0, 3, 4]}}, "dice"),
        ({**good, "dice": {"knights": [3]}}, "dice"),
        ({**good, "ruleset": "t9a-99"}, "unknown ruleset"),
        ({**good, "ruleset": "t9a-3"}, "not implemented yet"),
        ({**good, "charges": [{"charger": "knights", "target": ""}]}, "target"),
        ({**good, "colour": "red"}, "colour"),
    ]:
        assert_error(client.post("/api/rulings", json=body), 422, word)
    nan = json.dumps(good).replace('"x": 600.0', '"x": NaN', 1)
    assert "NaN" in nan
    assert_error(client.post("/api/rulings", content=nan,
                             headers={"content-type": "application/json"}), 422, "x")
    assert_error(client.get("/api/odds", params={"advance": -1, "distance": 3}), 422, "advance")
    assert_error(client.get("/api/odds", params={"advance": "inf", "distance": 3}), 422,
                 "advance")
    assert_error(client.get("/api/reviews", params={"before": 2**63}), 422, "before")


def test_the_sample_request_of_the_document_is_ruled(client: TestClient, spec: dict):
    """The example of RulingRequest is a real charge (schemathesis sends it first)."""
    example = schema_of(spec, "RulingRequest")["examples"][0]
    r = client.post("/api/rulings", json=example)
    assert r.status_code == 200, r.text
    charge = r.json()["charges"][0]
    assert (charge["charger"], charge["target"]) == ("knights", "spears")
    assert charge["outcome"] in ("success", "failed")


@pytest.mark.parametrize(("method", "path", "allow"), [
    ("PUT", "/api/reviews", "GET, HEAD, POST"),
    ("OPTIONS", "/api/reviews", "GET, HEAD, POST"),
    ("DELETE", "/api/rulings", "POST"),
    ("HEAD", "/api/rulings", "POST"),
    ("POST", "/api/reviews/0123456789abcdef", "GET, HEAD"),
    ("POST", "/api/odds", "GET, HEAD"),
    ("PATCH", "/", "GET, HEAD"),
])
def test_405_says_every_method_the_path_allows(client: TestClient, method: str, path: str,
                                               allow: str):
    r = client.request(method, path)
    assert r.status_code == 405
    if method != "HEAD":
        assert_error(r, 405)
    assert r.headers["allow"] == allow
