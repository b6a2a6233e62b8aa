"""``/docs`` and ``/redoc`` work with no internet (web report: Swagger UI came from a CDN, so at
a table without a network /docs was a blank page). Debian's chromium, driven by playwright,
loads them from a real ``umpire serve`` with every request off the loopback refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import httpx
import pytest

from .chromium import chromium, needs_chromium
from .live import LiveServer, live_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("docs"), "--detect-processes", "0") as s:
        yield s


def test_docs_pages_name_only_the_servers_own_files(server: LiveServer) -> None:
    for page in ("/docs", "/redoc"):
        html = httpx.get(server.url + page, timeout=10).text
        assert "cdn.jsdelivr.net" not in html and "fonts.googleapis" not in html, page
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js"):
        r = httpx.get(f"{server.url}/static-offline-docs/{asset}", timeout=10)
        assert r.status_code == 200 and len(r.content) > 100_000, asset


@needs_chromium
@pytest.mark.parametrize("page, ready", [
    ("/docs", ".swagger-ui .opblock-summary-path"),
    ("/redoc", "[data-section-id^='tag/'], [data-section-id^='operation/']"),
])
def test_docs_render_offline_in_a_browser(server: LiveServer, tmp_path: Path, page: str,
                                          ready: str) -> None:
    refused: list[str] = []

    def offline(route) -> None:
        host = urlparse(route.request.url).hostname
        if host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            if route.request.resource_type != "image":
                refused.append(route.request.url)
            route.abort()

    with chromium() as browser:
        ctx = browser.new_context()
        ctx.route("**/*", offline)
        tab = ctx.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.goto(server.url + page)
        tab.wait_for_selector(ready, timeout=20_000)
        text = tab.inner_text("body")
        ctx.close()
    assert "/api/rulings" in text and "umpire" in text
    assert errors == []
    # Nothing the page needs comes from outside (ReDoc's "powered by" badge, an image, does:
    # offline it is simply not shown).
    assert refused == []
