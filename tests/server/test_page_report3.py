"""The web page's fixes for outside report 3 (/tmp/adv3/web/report.md), in Debian's chromium
driven by playwright against a real ``umpire serve``:

- units of the marker set not found on the photo are named, with the detection's warnings
  (finding 2: "4 units found" when 6 were in the marker set);
- a ruling's ``warnings`` (a misspelt scene field) are shown with the odds (finding 4);
- a facing roll is shown only where the ruleset rolled for the facing, and a ruleset change
  drops it (finding 5: "flank facing (facing roll 5)" in tow);
- a distance reads as the explanation rounds it (finding 8: 10.16" beside 10.17 in).

The page's /api/detect is answered with a scene made for each test (no photo is detected);
everything else is the live server's.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from server.app import create_app
from server.slow_clients import timed_h11

from .chromium import chromium, needs_chromium
from .conftest import SAMPLES
from .live import uvicorn_in_thread

pytestmark = needs_chromium

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
CONTESTED = SCENARIOS / "whfb8" / "05_contested_without_facing_roll_is_asked_for.json"


@dataclass
class Served:
    url: str


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The app behind a real uvicorn on a loopback port, in a thread of this process (as
    ``umpire serve`` runs it, without a subprocess's seconds of imports)."""
    app = create_app(tmp_path_factory.mktemp("page-report3"), detect_processes=0)
    with uvicorn_in_thread(app, http=timed_h11()) as port:
        yield Served(f"http://127.0.0.1:{port}")


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    p = context.new_page()
    p.errors = []
    p.on("pageerror", lambda e: p.errors.append(str(e)))
    yield p
    context.close()


def sample_scene() -> dict:
    return json.loads((SAMPLES / "scene.json").read_text(encoding="utf-8"))


def load(page, server: Served, scene: dict, ruleset: str | None = None,
         markers: Path = SAMPLES / "markers.json") -> None:
    """The page with ``scene`` as what /api/detect found on the photo (``markers`` is what
    it sends with a review, which the server detects for real)."""
    page.route("**/api/detect", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(scene)))
    page.goto(server.url + "/")
    if ruleset:
        page.wait_for_function(f"() => document.querySelector("
                               f"'#ruleset-select option[value={ruleset}]')")
        page.select_option("#ruleset-select", ruleset)
    page.set_input_files("#markers-input", str(markers))
    page.set_input_files("#photo-input", str(SAMPLES / "table.jpg"))
    first = scene["units"][0]["id"]
    page.wait_for_selector(f'[data-testid="unit-{first}"]', timeout=15_000)


def test_units_not_found_on_the_photo_are_named(server: Served, page):
    scene = sample_scene()
    scene["units"] = [u for u in scene["units"] if u["id"] not in ("chariot", "archers")]
    scene["detection"] = {
        "missing_units": ["chariot", "archers"],
        "warnings": ["unit 'chariot' not found (marker 12 not seen)",
                     "unit 'archers' not found (marker 14 not seen)",
                     "markers.units[0].swiftstirde is not a field of the marker set contract; "
                     "it was ignored. Did you mean swiftstride?"]}
    load(page, server, scene)
    status = page.inner_text("#status")
    assert status.startswith("4 units found; not found on the photo: chariot, archers."), status
    items = page.locator('[data-testid="detect-warnings"] li').all_inner_texts()
    assert items == scene["detection"]["warnings"]
    # A photo where every unit is found: no list.
    load(page, server, sample_scene())
    assert page.inner_text("#status").startswith("6 units found. Tap a charger")
    assert page.is_hidden('[data-testid="detect-warnings"]')
    assert page.errors == []


def test_a_rulings_warnings_are_shown_and_distances_read_as_the_explanation(server, page,
                                                                            tmp_path):
    scene = sample_scene()
    knights = scene["units"][0]
    knights["swiftstirde"] = knights.pop("swiftstride")
    knights["y"] = 300.04  # 258.203 mm: distance_in 10.165, the explanation's 10.17 in
    # The review detects the photo with this marker set: the same misspelling.
    doc = json.loads((SAMPLES / "markers.json").read_text())
    doc["units"][0]["swiftstirde"] = doc["units"][0].pop("swiftstride")
    markers = tmp_path / "markers.json"
    markers.write_text(json.dumps(doc))
    load(page, server, scene, markers=markers)
    page.click('[data-testid="unit-knights"]')
    page.click('[data-testid="unit-spears"]')
    page.wait_for_selector('[data-testid="dice-knights"]', timeout=15_000)
    warning = ("scene.units[0].swiftstirde is not a field of the scene contract; it was "
               "ignored. Did you mean swiftstride?")
    items = page.locator('[data-testid="odds-warnings"] li').all_inner_texts()
    assert items == [warning]
    card = page.inner_text('[data-testid="odds-knights"]')
    assert '10.17" away' in card, card
    page.fill('[data-testid="dice-knights"]', "3 5")
    page.click("#rule-button")
    page.wait_for_selector('[data-testid="outcome-knights"]', timeout=30_000)
    # The photo's scene: 258.194 mm, distance_in 10.165 again.
    assert page.locator('[data-testid="result-warnings"] li').all_inner_texts() == [warning]
    figures = page.inner_text('[data-testid="ruling-knights"]')
    assert '10.17" (258.2 mm)' in figures and "10.17 in" in figures, figures
    assert page.errors == []


def test_a_facing_roll_is_credited_only_where_the_ruleset_rolls_it(server, page):
    scene = json.loads(CONTESTED.read_text(encoding="utf-8"))["request"]["scene"]
    load(page, server, copy.deepcopy(scene), ruleset="whfb8")
    page.click('[data-testid="unit-charger"]')
    page.click('[data-testid="unit-target"]')
    page.wait_for_selector('[data-testid="facing-roll"]', timeout=15_000)
    page.fill('[data-testid="facing-roll"]', "5")
    page.click('[data-testid="facing-roll-go"]')
    page.wait_for_selector('[data-testid="odds-charger"]', timeout=15_000)
    assert "(facing roll 5)" in page.inner_text('[data-testid="odds-charger"]')
    with page.expect_response("**/api/rulings") as answer:
        page.select_option("#ruleset-select", "tow")
    sent = json.loads(answer.value.request.post_data or "{}")
    assert "facing_roll" not in sent  # dropped on the change, so tow is not sent it
    page.wait_for_function("() => document.querySelector('[data-testid=odds-charger]')")
    assert "facing roll" not in page.inner_text('[data-testid="odds-charger"]')
    assert page.is_hidden('[data-testid="odds-warnings"]')
    # Back in whfb8 the facing is asked for again.
    page.select_option("#ruleset-select", "whfb8")
    page.wait_for_selector('[data-testid="facing-roll"]', timeout=15_000)
    assert page.is_disabled("#rule-button")
    assert page.errors == []


def test_the_hex_questions_are_toggle_buttons_not_tabs(server: Served, page):
    """Finding 11: role="tab" without the tabs pattern's arrow keys or tabpanel. The questions
    change the whole board, so they are plain buttons, the one asked pressed."""
    page.goto(server.url + "/hex")
    page.wait_for_selector('[data-testid="sample-edgehill"]', timeout=15_000)
    page.click('[data-testid="sample-edgehill"]')
    page.wait_for_selector('[data-testid="mode-reactions"]', timeout=15_000)
    assert page.locator('[role="tab"], [role="tablist"]').count() == 0
    assert page.get_attribute('[data-testid="hex-modes"]', "role") == "group"
    buttons = page.locator('[data-testid="hex-modes"] button')
    pressed = buttons.evaluate_all("bs => bs.map((b) => b.getAttribute('aria-pressed'))")
    assert pressed.count("true") == 1 and set(pressed) == {"true", "false"}
    page.focus('[data-testid="mode-reactions"]')
    page.keyboard.press("Enter")
    assert page.get_attribute('[data-testid="mode-reactions"]', "aria-pressed") == "true"
    assert buttons.evaluate_all("bs => bs.filter((b) => b.getAttribute('aria-pressed') === "
                                "'true').length") == 1
    assert page.errors == []
