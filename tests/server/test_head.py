"""HEAD is answered as GET is, without the body (RFC 9110, 9.3.2; server/head.py), by a live
``umpire serve`` read with http.client and curl, as monitors and ``curl -I`` send it."""

from __future__ import annotations

import http.client
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from .live import LiveServer, live_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("head")) as s:
        yield s


def _ask(server: LiveServer, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request(method, path)
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


@pytest.mark.parametrize("path", ["/", "/api/rulesets", "/api/odds?distance_in=7",
                                  "/api/hex/kinds", "/static/app.js", "/openapi.json"])
def test_head_has_the_headers_of_get_and_no_body(server: LiveServer, path: str):
    status, headers, body = _ask(server, "GET", path)
    hstatus, hheaders, hbody = _ask(server, "HEAD", path)
    assert (hstatus, hbody) == (status, b"")
    assert hheaders["content-type"] == headers["content-type"]
    assert int(hheaders["content-length"]) == len(body) > 0


def test_head_of_a_missing_review_is_its_404(server: LiveServer):
    status, _, body = _ask(server, "GET", "/api/reviews/0123456789abcdef")
    hstatus, _, hbody = _ask(server, "HEAD", "/api/reviews/0123456789abcdef")
    assert (status, hstatus, hbody) == (404, 404, b"")
    assert b"not_found" in body


def test_head_where_only_post_is_taken_is_405_naming_post(server: LiveServer):
    status, headers, body = _ask(server, "HEAD", "/api/rulings")
    assert (status, headers["allow"], body) == (405, "POST", b"")


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_dash_i(server: LiveServer):
    out = subprocess.run(["curl", "-sS", "-I", f"{server.url}/api/rulesets"],
                         capture_output=True, text=True, timeout=30, check=True).stdout
    assert out.splitlines()[0].split()[1] == "200", out
