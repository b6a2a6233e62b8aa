"""The hex view end to end (issue 14): Debian's chromium, driven by playwright, against a real
``umpire serve``. One click loads the Edgehill sample; tapping the defender and its attacker
shows the close-combat modifiers and the net the engine rules; tapping a unit and a hex shows
who may react and why the others may not; the La Bataille sample shows an assault and the
chit cup. Also at a phone's width.

Never downloads a browser: it uses /usr/bin/chromium and skips, saying why, only where that is
absent (as tests/server/test_browser.py does).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator

import pytest

import charges

from .chromium import chromium, needs_chromium
from .conftest import SAMPLES
from .live import LiveServer, live_server

pytestmark = needs_chromium

HEX = SAMPLES / "hex"
EDGEHILL = json.loads((HEX / "edgehill.json").read_text(encoding="utf-8"))
QUATRE_BRAS = json.loads((HEX / "quatre-bras.json").read_text(encoding="utf-8"))
RULES = json.loads((HEX / "rules-data-illustrative.json").read_text(encoding="utf-8"))


def engine(kind: str, position: dict, **params) -> dict:
    return charges.hex_rule(kind, copy.deepcopy(position), rules_data=RULES, **params)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("hex-browser")) as s:
        yield s


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def open_sample(page, server: LiveServer, name: str) -> None:
    page.goto(server.url + "/hex")
    page.click(f'[data-testid="sample-{name}"]')
    page.wait_for_selector('[data-testid^="counter-"]', timeout=15_000)


def shown_items(page) -> dict[str, int]:
    rows = page.locator('[data-testid^="hex-item-"]')
    return {rows.nth(i).get_attribute("data-testid").removeprefix("hex-item-"):
            int(rows.nth(i).get_attribute("data-value")) for i in range(rows.count())}


def check_combat(page) -> None:
    """Tap the defender, then its attacker: the page shows the engine's items and net."""
    page.click('[data-testid="counter-par-ramsey"]')
    page.wait_for_selector('[data-testid="hex-net"]', timeout=15_000)
    page.click('[data-testid="counter-roy-byron"]')
    page.wait_for_function("() => document.querySelector('[data-testid=hex-selection]')"
                           ".textContent.includes(\"Byron\")", timeout=15_000)
    page.wait_for_load_state("networkidle")  # the ruling with the attacker named
    truth = engine("combat", EDGEHILL, defender="par-ramsey", attackers=["roy-byron"])
    net = page.locator('[data-testid="hex-net"]')
    net.wait_for(timeout=15_000)
    assert int(net.get_attribute("data-net")) == truth["net"] == 3
    assert "+3" in net.inner_text()
    assert shown_items(page) == {i["slot"]: i["value"] for i in truth["items"]}
    assert shown_items(page)["momentum"] == 2 and shown_items(page)["odds"] == -1
    odds = page.locator('[data-testid="hex-odds"]')
    assert odds.get_attribute("data-ratio") == "1:2" and odds.get_attribute("data-value") == "-1"
    assert "3 to 4" in odds.inner_text()
    momentum = page.locator('[data-testid="hex-item-momentum"]').inner_text()
    assert "11.3.6" in momentum and "+2" in momentum
    assert page.get_attribute('[data-testid="counter-par-ramsey"]', "data-role") == "defender"
    assert page.get_attribute('[data-testid="counter-roy-byron"]', "data-role") == "attacker"


def check_reactions(page) -> None:
    """Tap the moving unit, then the hex it enters: who may react, and why the others not."""
    page.click('[data-testid="mode-reactions"]')
    page.click('[data-testid="counter-roy-rupert"]')
    page.click('[data-testid="hex-0_1"]', force=True)
    page.wait_for_selector('[data-testid="hex-candidates"]', timeout=15_000)
    truth = engine("reactions", EDGEHILL, event={"kind": "enter_hex", "unit": "roy-rupert",
                                                 "hex": [0, 1]})
    for c in truth["candidates"]:
        row = page.locator(f'[data-testid="hex-candidate-{c["unit"]}"]')
        assert row.get_attribute("data-eligible") == " ".join(c["eligible"])
        for b in c["blocked"]:
            assert b["rule"] in row.inner_text()
    guns = page.locator('[data-testid="hex-candidate-par-guns"]').inner_text()
    assert "may not react" in guns and "short range of 3" in guns
    roles = {c["unit"]: page.get_attribute(f'[data-testid="counter-{c["unit"]}"]', "data-role")
             for c in truth["candidates"]}
    assert roles["par-ramsey"] == "may-react" and roles["par-guns"] == "may-not"


def test_hex_view_rules_combat_and_reactions_on_the_sample(server: LiveServer, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/")
    page.click('[data-testid="nav-hex"]')  # the charge page links to the hex view
    page.wait_for_selector('[data-testid="sample-edgehill"]', timeout=15_000)
    page.click('[data-testid="sample-edgehill"]')
    page.wait_for_selector('[data-testid="counter-par-ramsey"]', timeout=15_000)
    assert page.locator('[data-testid="hex-illustrative"]').is_visible()
    # The map is the engine's: one polygon per drawn hex, terrain from the position.
    assert page.get_attribute('[data-testid="hex-2_1"]', "data-terrain") == "woods"
    assert page.locator('[data-testid="hex-map"] line.feature').count() == 2
    check_combat(page)
    # Byron's Horse has its pistol loaded: ticking it adds the pistol modifier (11.3.9).
    page.check('[data-testid="pistol-roy-byron"]')
    page.wait_for_function("() => document.querySelector('[data-testid=hex-item-pistols]')"
                           ".dataset.value !== '0'", timeout=15_000)
    fired = engine("combat", EDGEHILL, defender="par-ramsey", attackers=["roy-byron"],
                   pistols=["roy-byron"])
    assert shown_items(page) == {i["slot"]: i["value"] for i in fired["items"]}
    assert int(page.get_attribute('[data-testid="hex-net"]', "data-net")) == fired["net"] == 4
    check_reactions(page)
    assert "HEX.md" not in page.inner_text("body")  # players read the games' rule numbers

    page.click('[data-testid="sample-quatre-bras"]')
    page.wait_for_selector('[data-testid="counter-fr-bn1"]', timeout=15_000)
    for uid in ("fr-bn1", "fr-bn2", "al-27"):
        page.click(f'[data-testid="hex-unit-{uid}"]')
    melee = page.locator('[data-testid="hex-melee-al-27"]')
    melee.wait_for(timeout=15_000)
    truth = engine("assault", QUATRE_BRAS, assault=["fr-bn1", "fr-bn2"], target=["al-27"])
    assert int(melee.get_attribute("data-value")) == truth["melee"][0]["value"] == 11
    assert f"Approach distance: {truth['approach_distance']}" in page.inner_text(
        '[data-testid="hex-approach"]')
    page.click('[data-testid="mode-cup"]')
    page.fill('[data-testid="cup-seed"]', "4")
    page.click('[data-testid="cup-draw"]')
    page.wait_for_selector('[data-testid="hex-draws"]', timeout=15_000)
    draws = engine("cup", QUATRE_BRAS, seed=4)["draws"]
    assert page.locator('[data-testid^="hex-draw-"]').count() == len(draws) == 10
    first = page.inner_text('[data-testid="hex-draw-1"]')
    assert draws[0]["chit"] in first and draws[0]["side"] in first

    # A position from a file: its rules data, named by the position, is the shipped file.
    page.set_input_files('[data-testid="position-input"]', str(HEX / "quatre-bras.json"))
    page.wait_for_function("() => document.querySelector('[data-testid=status]').textContent"
                           ".includes('Your position')", timeout=15_000)
    page.click('[data-testid="mode-rally"]')
    page.click('[data-testid="hex-unit-al-8-militia"]')
    page.wait_for_selector('[data-testid="hex-rally"]', timeout=15_000)
    rally = engine("rally", QUATRE_BRAS, unit="al-8-militia")
    facts = page.inner_text('[data-testid="hex-rally"]')
    assert f"allowance: {rally['allowance']}" in facts and f"spent: {rally['spent']}" in facts
    assert page.locator('[data-testid="hex-route"]').count() == 1
    assert errors == [], errors
    context.close()


def test_hex_view_at_a_phone_width(server: LiveServer, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True, device_scale_factor=2)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    open_sample(page, server, "edgehill")
    check_combat(page)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than the phone screen"
    box = page.locator('[data-testid="hex-map"]').bounding_box()
    assert box and box["width"] <= 390
    check_reactions(page)
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    for sel in ("#position-input", "#rules-input", "#event-kind"):
        name = page.evaluate("(s) => { const e = document.querySelector(s);"
                             " return e.labels && e.labels.length ? e.labels[0].textContent"
                             " : ''; }", sel)
        assert name.strip(), sel
    assert errors == [], errors
    context.close()
