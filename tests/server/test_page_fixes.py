"""The web pages' fixes for an outside tester's report (report items 4, 5a, 5b, 7, 8, 10, 11, 12),
in Debian's chromium driven by playwright against a real ``umpire serve``:

- the charge page keeps the keyboard focus on a unit button pressed with Space or Enter;
- a ruling on screen goes when its review is left, and when the charges picked change;
- "Forget" on the marker set empties the file box and asks for a marker set;
- dice typed on a phone's number pad ("352") are one die per digit;
- a whfb8 contested facing is asked for in words, and nothing is ruled until it is rolled;
- every hex of the hex map is reachable and operable by keyboard, with one Tab stop;
- a server that does not answer (network error, a proxy's HTML error page) is told in words;
- the hex page shows its "illustrative rules data" banner for a position of your own that
  names the shipped illustrative file.

To keep the module fast, the page's /api/detect is answered with the sample's scene
(server/samples/scene.json) instead of detecting the photo each time; tests/server/test_browser.py
detects it for real. Everything else is the live server's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from .chromium import chromium, needs_chromium
from .conftest import SAMPLES
from .live import LiveServer, live_server

pytestmark = needs_chromium

HEX = SAMPLES / "hex"
SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
CONTESTED = SCENARIOS / "whfb8" / "05_contested_without_facing_roll_is_asked_for.json"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # Detection in the server's threads: no worker process to start for the one review.
    with live_server(tmp_path_factory.mktemp("page-fixes"), "--detect-processes", "0") as s:
        yield s


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def sample_detection() -> str:
    """What /api/detect answers for the sample photo, as far as these tests look: the sample's
    scene (server/samples/scene.json; test_browser.py detects the photo for real)."""
    return (SAMPLES / "scene.json").read_text(encoding="utf-8")


@pytest.fixture()
def page(browser, sample_detection: str):
    """A desktop-sized page whose /api/detect answers the sample's scene, with the page's script
    errors collected in ``page.errors``."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    p = context.new_page()
    p.errors = []
    p.on("pageerror", lambda e: p.errors.append(str(e)))
    p.route("**/api/detect", lambda route: route.fulfill(
        status=200, content_type="application/json", body=sample_detection))
    yield p
    context.close()


def active(page) -> str:
    """The focused element: its tag and its unit, test id or id."""
    return page.evaluate("() => { const e = document.activeElement; return e.tagName + ' '"
                         " + (e.dataset.unit || e.dataset.testid || e.id); }")


def load_sample_table(page, server: LiveServer) -> None:
    page.goto(server.url + "/")
    page.set_input_files("#markers-input", str(SAMPLES / "markers.json"))
    page.set_input_files("#photo-input", str(SAMPLES / "table.jpg"))
    page.wait_for_selector('[data-testid="unit-knights"]', timeout=30_000)


def pick_the_sample_charge(page) -> None:
    page.click('[data-testid="unit-knights"]')
    page.click('[data-testid="unit-spears"]')
    page.wait_for_selector('[data-testid="dice-knights"]', timeout=15_000)


# ---- the charge page ------------------------------------------------------------------------

def test_a_unit_button_pressed_by_keyboard_keeps_the_focus(server: LiveServer, page):
    """Report 5a: Space or Enter on a unit button re-drew every button and dropped the focus on
    <body>; the next Tab started again at the first unit."""
    load_sample_table(page, server)
    order = page.eval_on_selector_all('#unit-list button', "bs => bs.map((b) => b.dataset.unit)")
    page.focus('[data-testid="unit-knights"]')
    page.keyboard.press("Space")
    assert page.get_attribute('[data-testid="unit-knights"]', "data-role") == "charger"
    assert active(page) == "BUTTON knights"
    page.keyboard.press("Tab")
    assert active(page) == f"BUTTON {order[order.index('knights') + 1]}"
    page.focus('[data-testid="unit-spears"]')
    page.keyboard.press("Enter")
    assert page.get_attribute('[data-testid="unit-spears"]', "data-role") == "target"
    assert active(page) == "BUTTON spears"
    page.wait_for_selector('[data-testid="dice-knights"]', timeout=15_000)
    assert active(page) == "BUTTON spears"  # the odds arriving do not take it either
    assert page.errors == []


def test_a_ruling_goes_once_its_review_is_left_or_the_charges_change(server: LiveServer, page):
    """Report 7: the ruling of a review stayed under the empty form after "Settle a charge",
    and a ruling stayed after more chargers were shift-added."""
    load_sample_table(page, server)
    pick_the_sample_charge(page)
    page.fill('[data-testid="dice-knights"]', "3 5 2")
    with page.expect_response("**/api/reviews") as answer:
        page.click("#rule-button")
    review = answer.value.json()
    page.wait_for_selector('[data-testid="outcome-knights"]', timeout=30_000)
    assert page.is_visible("#result")

    # Shift-adding a charger: the ruling shown is not for the charges picked now.
    page.click('[data-testid="unit-swordsmen"]', modifiers=["Shift"])
    assert page.get_attribute('[data-testid="unit-swordsmen"]', "data-role") == "charger"
    assert page.is_hidden("#result")
    assert page.locator('[data-testid^="outcome-"]').count() == 0

    # A stored review, then back to settling: its ruling goes, and so does "Review of ...".
    page.evaluate("(id) => { location.hash = `#/review/${id}`; }", review["id"])
    page.wait_for_selector('[data-testid="outcome-knights"]', timeout=15_000)
    page.wait_for_function("() => document.getElementById('status').textContent"
                           ".startsWith('Review of')", timeout=5_000)
    page.click("#nav-settle")
    page.wait_for_selector("#view-settle", state="visible", timeout=5_000)  # after hashchange
    assert page.is_hidden("#result")
    assert page.locator('[data-testid^="outcome-"]').count() == 0
    assert "Review of" not in page.inner_text("#status")

    # The same from a page opened on the review's permalink.
    page.goto(f"{server.url}/#/review/{review['id']}")
    page.wait_for_selector('[data-testid="outcome-knights"]', timeout=15_000)
    page.click("#nav-settle")
    page.wait_for_selector("#view-settle", state="visible", timeout=5_000)
    assert page.is_hidden("#result")
    assert "Review of" not in page.inner_text("#status")
    assert page.errors == []


def test_forget_empties_the_marker_box_and_asks_for_a_marker_set(server: LiveServer, page):
    """Report 8: after "Forget" the file box still showed markers.json, and "Rule the charge"
    sent markers=null."""
    load_sample_table(page, server)
    pick_the_sample_charge(page)
    page.click("#markers-forget")
    assert page.eval_on_selector("#markers-input", "i => i.files.length") == 0
    assert page.inner_text("#markers-name").strip() == ""
    assert page.is_hidden("#markers-forget")
    assert "Choose the marker set" in page.inner_text("#status")
    # Nothing left that would rule without a marker set.
    assert page.is_hidden("#pick") and page.is_hidden("#odds")
    assert active(page) == "INPUT markers-input"
    page.reload()  # not remembered either
    assert page.inner_text("#markers-name").strip() == ""
    assert "marker set" in page.inner_text("#status")
    page.set_input_files("#photo-input", str(SAMPLES / "table.jpg"))
    page.set_input_files("#markers-input", str(SAMPLES / "markers.json"))
    page.wait_for_selector('[data-testid="unit-knights"]', timeout=30_000)
    assert page.errors == []


def test_dice_typed_as_a_run_of_digits_are_one_die_each(server: LiveServer, page):
    """Report 10: a phone's number pad (inputmode=numeric) has no space; "352" was refused."""
    load_sample_table(page, server)
    pick_the_sample_charge(page)
    sent: list[str] = []

    def review(route):  # what the page sends is all this test needs: no review is stored
        sent.append(route.request.post_data or "")
        route.fulfill(status=422, content_type="application/json",
                      body=json.dumps({"detail": "stopped by the test"}))

    page.route("**/api/reviews", review)
    page.fill('[data-testid="dice-knights"]', "352")
    page.click("#rule-button")
    page.wait_for_selector("#error", state="visible")
    assert page.inner_text("#error") == "stopped by the test"
    assert len(sent) == 1
    dice = re.search(r'name="dice"\r\n\r\n(.*?)\r\n', sent[0]).group(1)
    assert json.loads(dice) == {"knights": [3, 5, 2]}
    # Only a run of the digits 1 to 6 is read that way; the message says both forms.
    for typed in ("3.5.2", "3572"):
        page.fill('[data-testid="dice-knights"]', typed)
        page.click("#rule-button")
        error = page.inner_text("#error")
        assert "separated by spaces (3 5 2), or one digit per die (352)" in error, typed
    page.fill('[data-testid="dice-knights"]', "3 5 2")
    page.click("#rule-button")
    page.wait_for_function("() => document.getElementById('error').textContent"
                           " === 'stopped by the test'")
    assert len(sent) == 2
    assert "(352)" in page.inner_text('[data-testid="dice-hint"]')
    assert page.errors == []


def test_a_contested_facing_is_asked_for_in_words(server: LiveServer, page):
    """Report 11: while the page waited for a whfb8 facing roll, "Roll for me" did nothing,
    "Rule the charge" stayed enabled and pressing it showed "facing_roll.charger: ..."."""
    scene = json.loads(CONTESTED.read_text(encoding="utf-8"))["request"]["scene"]
    page.route("**/api/detect", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(scene)))
    page.goto(server.url + "/")
    page.wait_for_function("() => document.querySelector('#ruleset-select option[value=whfb8]')")
    page.select_option("#ruleset-select", "whfb8")
    page.set_input_files("#markers-input", str(SAMPLES / "markers.json"))
    page.set_input_files("#photo-input", str(SAMPLES / "table.jpg"))
    page.wait_for_selector('[data-testid="unit-charger"]', timeout=15_000)
    page.click('[data-testid="unit-charger"]')
    page.click('[data-testid="unit-target"]')
    page.wait_for_selector('[data-testid="facing-roll"]', timeout=15_000)
    assert page.is_disabled("#rule-button")
    question = page.locator('[data-testid="facing-question"]')
    assert "facing_roll" not in page.inner_text("#view-settle")
    # The scenario's arithmetic: 2 front-rank models in the target's right flank arc, 2 in
    # its rear arc; 1-3 the earlier in the order front, flank, rear.
    assert "2 are in target's right flank arc and 2 in its rear arc" in question.inner_text()
    assert "1 to 3, the charge hits the right flank; 4 to 6, the rear" in question.inner_text()
    # Submitting anyway (Enter in a form) asks for the roll in words, and sends nothing.
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if "/api/reviews" in r.url else None)
    page.evaluate("() => document.getElementById('dice-form').requestSubmit()")
    assert "facing_roll" not in page.inner_text("#error")
    assert "facing" in page.inner_text("#error")
    assert posted == []
    # "Roll for me" rolls the facing D6, then the odds ask for the charge dice.
    assert "facing" in page.inner_text("#roll-dice")
    page.click("#roll-dice")
    page.wait_for_selector('[data-testid="dice-charger"]', timeout=15_000)
    roll = page.evaluate("() => document.querySelector('[data-testid=odds-charger]').textContent")
    assert re.search(r"facing roll [1-6]", roll), roll
    facing = "flank" if int(re.search(r"facing roll ([1-6])", roll).group(1)) <= 3 else "rear"
    assert f"{facing} facing" in roll
    assert page.is_enabled("#rule-button")
    assert page.inner_text("#roll-dice").strip() == "Roll for me"
    page.click("#roll-dice")
    assert re.fullmatch(r"[1-6] [1-6]", page.input_value('[data-testid="dice-charger"]'))
    assert page.errors == []


def remembered(page) -> object:
    return page.evaluate("() => JSON.parse(localStorage.getItem('umpire.markers') || 'null')")


def test_a_marker_set_the_server_refused_is_not_remembered(server: LiveServer, page):
    """Report 4, finding 7: a scene file given as the marker set was refused by the server,
    yet the page kept it ("using scene.json (remembered)") and sent it again after every
    reload. Now a marker set is remembered only once a detection with it has succeeded, and
    one the server refuses goes."""
    page.unroute("**/api/detect")  # the server's own refusal of the marker set
    page.goto(server.url + "/")
    page.set_input_files("#photo-input", str(SAMPLES / "table.jpg"))
    page.set_input_files("#markers-input", str(SAMPLES / "scene.json"))
    page.wait_for_selector('[data-testid="error"]:not([hidden])', timeout=15_000)
    assert page.inner_text("#error").startswith("markers:")
    assert page.inner_text("#markers-name").strip() == ""
    assert "choose another marker set" in page.inner_text("#status")
    assert page.eval_on_selector("#markers-input", "i => i.files.length") == 0
    assert remembered(page) is None
    page.reload()
    assert page.inner_text("#markers-name").strip() == ""
    assert remembered(page) is None

    # A good one is remembered once the units are found with it, and only then.
    page.route("**/api/detect", lambda route: route.fulfill(
        status=200, content_type="application/json",
        body=(SAMPLES / "scene.json").read_text(encoding="utf-8")))
    page.set_input_files("#markers-input", str(SAMPLES / "markers.json"))
    assert "remembered" not in page.inner_text("#markers-name")  # no photo yet: not tried
    assert remembered(page) is None
    load_sample_table(page, server)
    assert page.inner_text("#markers-name") == "using markers.json (remembered)"
    assert remembered(page)["name"] == "markers.json"

    # A remembered set the server refuses later goes too; a refused photo keeps it.
    page.reload()
    page.unroute("**/api/detect")
    page.route("**/api/detect", lambda route: route.fulfill(
        status=415, content_type="application/json",
        body=json.dumps({"error": "bad_photo", "detail": "photo: not an image",
                         "field": "photo"})))
    page.set_input_files("#photo-input", str(SAMPLES / "table.jpg"))
    page.wait_for_function("() => document.getElementById('error').textContent"
                           ".startsWith('photo:')", timeout=15_000)
    assert page.inner_text("#markers-name") == "using markers.json (remembered)"
    page.unroute("**/api/detect")
    page.route("**/api/detect", lambda route: route.fulfill(
        status=422, content_type="application/json",
        body=json.dumps({"error": "detection_failed",
                         "detail": "markers: table.markers: Field required"})))
    page.set_input_files("#photo-input", [])  # the same photo again: a change
    page.set_input_files("#photo-input", str(SAMPLES / "table.jpg"))
    page.wait_for_function("() => document.getElementById('error').textContent"
                           ".startsWith('markers:')", timeout=15_000)
    assert page.inner_text("#markers-name").strip() == ""
    assert remembered(page) is None
    assert page.errors == []


def test_an_answer_that_is_not_json_is_told_in_words(server: LiveServer, page):
    """Report 4, finding 9: a 200 answer that was not JSON (a Wi-Fi login page) showed
    "Cannot read properties of null (reading 'charges')"."""
    portal = "<html><body>Welcome to the club Wi-Fi: log in</body></html>"
    load_sample_table(page, server)
    page.route("**/api/rulings", lambda route: route.fulfill(
        status=200, content_type="text/html", body=portal))
    page.click('[data-testid="unit-knights"]')
    page.click('[data-testid="unit-spears"]')
    page.wait_for_selector('[data-testid="error"]:not([hidden])', timeout=15_000)
    text = page.inner_text('[data-testid="error"]')
    assert text.startswith("The server's answer was not a ruling (not JSON: 200"), text
    assert "text/html" in text and "Wi-Fi login page" in text
    assert "Cannot read" not in text and "null" not in text

    page.unroute("**/api/detect")
    page.route("**/api/detect", lambda route: route.fulfill(
        status=200, content_type="text/html", body=portal))
    page.set_input_files("#photo-input", [])
    page.set_input_files("#photo-input", str(SAMPLES / "table.jpg"))
    page.wait_for_function("() => document.getElementById('error').textContent"
                           ".includes('units found on the photo (not JSON')", timeout=15_000)
    assert "remembered" in page.inner_text("#markers-name")  # not the marker set's fault
    assert page.errors == []


def test_sides_differing_only_in_case_get_two_colours(server: LiveServer, page):
    """Report 4, finding 13: the rules rule "red" knights against "Red" spears as enemies, but
    the page drew both in red's colour (it compared sides in lower case)."""
    scene = json.loads((SAMPLES / "scene.json").read_text(encoding="utf-8"))
    next(u for u in scene["units"] if u["id"] == "spears")["side"] = "Red"
    page.unroute("**/api/detect")
    page.route("**/api/detect", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(scene)))
    load_sample_table(page, server)
    colour = {u["id"]: page.get_attribute(f'[data-testid="unit-{u["id"]}"]', "data-colour")
              for u in scene["units"]}
    sides = {u["id"]: u["side"] for u in scene["units"]}
    assert colour["knights"] == "#d55e00"  # red, by name, as vision/overlay.py draws it
    assert colour["spears"] not in ("#d55e00", "#0072b2")
    for a in colour:  # one colour per side, exactly as the rules tell sides apart
        for b in colour:
            assert (colour[a] == colour[b]) == (sides[a] == sides[b]), (a, b)
    assert page.errors == []


# ---- the hex page ---------------------------------------------------------------------------

def focused_hex(page) -> str | None:
    return page.evaluate("() => { const e = document.activeElement;"
                         " return e.closest('svg') ? e.dataset.testid : null; }")


def test_every_hex_is_reachable_and_operable_by_keyboard(server: LiveServer, page):
    """Report 5b: no hex of the map could be reached by keyboard. Now the map is one Tab stop,
    the arrow keys move between hexes, and Enter taps one: a keyboard user asks who may react
    to a unit entering an empty hex."""
    page.goto(server.url + "/hex")
    page.focus('[data-testid="sample-edgehill"]')
    page.keyboard.press("Enter")
    page.wait_for_selector('[data-testid="counter-roy-rupert"]', timeout=15_000)
    page.focus('[data-testid="mode-reactions"]')
    page.keyboard.press("Enter")
    page.focus('[data-testid="hex-unit-roy-rupert"]')
    page.keyboard.press("Enter")
    assert "now tap the hex" in page.inner_text('[data-testid="hex-selection"]')

    # One Tab stop for the whole map, between the event select and the Clear button.
    assert page.locator('#hex-map [tabindex="0"]').count() == 1
    page.focus("#event-kind")
    page.keyboard.press("Tab")
    first = focused_hex(page)
    assert first and first.startswith("hex-")
    name = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert name.startswith("hex ")
    page.keyboard.press("Tab")
    assert focused_hex(page) is None and active(page) == "BUTTON hex-clear"
    page.keyboard.press("Shift+Tab")
    assert focused_hex(page) == first

    # The arrows: down the column; right and right again comes back to the same row.
    page.focus('[data-testid="hex-0_0"]')
    assert "Ramsey" in page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    page.keyboard.press("ArrowDown")
    assert focused_hex(page) == "hex-0_1"
    y = float(page.get_attribute('[data-testid="hex-0_1"]', "data-y"))
    page.keyboard.press("ArrowRight")
    moved = focused_hex(page)
    assert moved not in ("hex-0_1", None)
    page.keyboard.press("ArrowRight")
    assert float(page.evaluate("() => document.activeElement.dataset.y")) == pytest.approx(y)
    assert page.locator('#hex-map [tabindex="0"]').count() == 1
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert focused_hex(page) == "hex-0_1"
    assert page.locator('[data-testid="hex-focus"]').count() == 1  # the ring shows where

    # Enter taps the empty hex: the reactions to Rupert entering it.
    page.keyboard.press("Enter")
    page.wait_for_selector('[data-testid="hex-candidates"]', timeout=15_000)
    assert page.get_attribute('[data-testid="hex-0_1"]', "data-role") == "event"
    # Enter on a hex with a counter taps the counter: the mover changes to it.
    page.focus('[data-testid="hex-1_0"]')
    page.keyboard.press("Enter")
    assert page.get_attribute('[data-testid="counter-roy-byron"]', "data-role") == "mover"
    assert page.errors == []


def test_own_position_naming_the_illustrative_rules_data_shows_the_banner(
        server: LiveServer, page, tmp_path: Path):
    """Report 4: a position saved from a sample names "rules-data-illustrative.json"; opened as
    your own position, the server rules with those invented numbers but the page did not say so."""
    page.goto(server.url + "/hex")
    page.wait_for_selector('[data-testid="sample-edgehill"]', timeout=15_000)
    position = json.loads((HEX / "edgehill.json").read_text(encoding="utf-8"))
    cases = {"named.json": ("rules-data-illustrative.json", True),
             "bare.json": ("rules-data-illustrative", True),
             "none.json": (None, False)}
    for file, (ref, shown) in cases.items():
        own = {k: v for k, v in position.items() if k != "rules_data"}
        if ref:
            own["rules_data"] = ref
        (tmp_path / file).write_text(json.dumps(own), encoding="utf-8")
        page.set_input_files("#position-input", str(tmp_path / file))
        page.wait_for_function("() => document.querySelector('[data-testid=status]').textContent"
                               ".includes('Your position')", timeout=15_000)
        assert page.is_visible('[data-testid="hex-illustrative"]') is shown, file
        page.evaluate("() => { document.querySelector('[data-testid=status]').textContent = ''; }")
    assert page.errors == []


def test_a_server_that_does_not_answer_is_told_in_words(server: LiveServer, browser,
                                                          sample_detection: str):
    """Report 12: a network failure showed the browser's "Failed to fetch", a proxy's HTML
    error page "502 Bad Gateway", and a detail of several lines ran them together."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    p = context.new_page()
    try:
        p.route("**/api/detect", lambda route: route.abort("connectionrefused"))
        p.goto(server.url + "/")
        p.set_input_files("#markers-input", str(SAMPLES / "markers.json"))
        p.set_input_files("#photo-input", str(SAMPLES / "table.jpg"))
        p.wait_for_selector('[data-testid="error"]:not([hidden])', timeout=15_000)
        assert "Could not reach the umpire server" in p.inner_text('[data-testid="error"]')

        p.unroute("**/api/detect")
        p.route("**/api/detect", lambda route: route.fulfill(
            status=502, content_type="text/html", body="<html>Bad Gateway</html>"))
        p.goto(server.url + "/")  # the marker set is remembered; a photo again
        p.set_input_files("#markers-input", str(SAMPLES / "markers.json"))
        p.set_input_files("#photo-input", str(SAMPLES / "table.jpg"))
        p.wait_for_function("() => document.querySelector('[data-testid=error]').textContent"
                            ".includes('502')", timeout=15_000)
        text = p.inner_text('[data-testid="error"]')
        assert "The server did not answer the request (502" in text
        assert p.eval_on_selector('[data-testid="error"]',
                                  "e => getComputedStyle(e).whiteSpace") == "pre-line"
    finally:
        context.close()
