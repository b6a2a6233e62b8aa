"""An upload over ``--max-upload-mb`` reaches real clients as a readable 413 with its JSON body
(DESIGN.md, HTTP; issue 11), against a live ``umpire serve`` on a loopback port: Python's
urllib (which sends the whole body before it reads a byte of the answer), curl, and a raw
socket that never stops sending. The lingering close that makes this work is bounded
(server.body_limit): those bounds are checked on a real uvicorn too.

The browser's side of the same promise is in test_browser.py.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.app import create_app
from server.body_limit import LINGER_MIN_BYTES, BodyLimit

from .conftest import SAMPLES, noise_png
from .live import LiveServer, live_server, uvicorn_in_thread

# Bodies several times this, and larger than the loopback socket buffers: a server that
# closed without reading them would reset the connection under a client still sending.
LIMIT_MB = 1
LIMIT = int(LIMIT_MB * 1_000_000)
MARKERS = (SAMPLES / "markers.json").read_bytes()



@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("limit"), "--max-upload-mb", str(LIMIT_MB),
                     "--detect-processes", "1") as s:
        yield s


def multipart(fields: dict[str, tuple[str, bytes, str]]) -> tuple[bytes, str]:
    """A multipart/form-data body as a browser builds it, and its content type."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, (filename, data, ctype) in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                     f'filename="{filename}"\r\nContent-Type: {ctype}\r\n\r\n'.encode()
                     + data + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), \
        f"multipart/form-data; boundary={boundary}"


def assert_too_large(status: int, headers: dict[str, str], body: bytes) -> None:
    assert status == 413, (status, body[:300])
    assert headers["content-type"].startswith("application/json")
    doc = json.loads(body)
    assert doc["error"] == "too_large"
    assert f"limit of {LIMIT_MB:g} MB" in doc["detail"], doc
    assert "--max-upload-mb" in doc["detail"]


def urllib_post(url: str, data: bytes | Iterator[bytes], ctype: str) -> tuple[int, dict, bytes]:
    req = urllib.request.Request(url, data=data, method="POST",
                                 headers={"Content-Type": ctype})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


@pytest.fixture(scope="module")
def photo() -> bytes:
    return noise_png(8)  # eight times the limit


def test_urllib_reads_the_413_of_a_photo_over_the_limit(server: LiveServer, photo: bytes):
    assert len(photo) > 7 * LIMIT
    body, ctype = multipart({"photo": ("noise.png", photo, "image/png"),
                             "markers": ("markers.json", MARKERS, "application/json")})
    for path in ("/api/detect", "/api/reviews"):
        assert_too_large(*urllib_post(server.url + path, body, ctype))


def test_urllib_reads_the_413_of_a_json_body_and_of_a_chunked_one(server: LiveServer):
    assert_too_large(*urllib_post(server.url + "/api/rulings", b" " * (8 * LIMIT),
                                  "application/json"))

    def chunks() -> Iterator[bytes]:  # no length announced: urllib sends it chunked
        for _ in range(80):
            yield b" " * (LIMIT // 10)

    assert_too_large(*urllib_post(server.url + "/api/rulings", chunks(), "application/json"))


def test_a_body_under_the_limit_is_still_answered(server: LiveServer):
    status, _, body = urllib_post(server.url + "/api/rulings", b'{"charges": []}',
                                  "application/json")
    assert status == 422 and json.loads(body)["error"] == "invalid"


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize("expect", ["100-continue", ""], ids=["expect-100", "no-expect"])
def test_curl_reads_the_413(server: LiveServer, tmp_path: Path, photo: bytes, expect: str):
    """curl sends ``Expect: 100-continue`` for large bodies (the server then refuses before
    the body is sent) unless told not to (the server then drains it)."""
    path = tmp_path / "noise.png"
    path.write_bytes(photo)
    out = subprocess.run(
        ["curl", "-sS", "-o", "-", "-w", "\n%{http_code}", "-H", f"Expect: {expect}",
         "-F", f"photo=@{path};type=image/png", "-F", f"markers=<{SAMPLES / 'markers.json'}",
         server.url + "/api/detect"], capture_output=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    text, code = out.stdout.decode().rsplit("\n", 1)
    assert code == "413"
    assert_too_large(413, {"content-type": "application/json"}, text.encode())


def send_forever(port: int, announced: int, seconds: float) -> tuple[int, bytes]:
    """POST headers announcing ``announced`` bytes, then send as fast as the server takes them
    until it closes (or ``seconds`` pass); the bytes sent and what the server answered."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"POST /api/rulings HTTP/1.1\r\nHost: t\r\nContent-Type: application/json"
                  b"\r\nContent-Length: " + str(announced).encode() + b"\r\n\r\n")
        sent, chunk, deadline = 0, b" " * 65536, time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                s.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass
        s.settimeout(2)
        try:
            answer = s.recv(200)
        except OSError:
            answer = b""
    return sent, answer


def test_a_client_that_never_stops_sending_is_cut_off(server: LiveServer):
    """The drain discards at most max(4 x limit, 64 MB): past that the connection is closed
    whatever the client does, and the server goes on answering."""
    t = time.monotonic()
    sent, answer = send_forever(server.port, 10**12, seconds=20)
    assert time.monotonic() - t < 15
    # What was sent beyond the drain's bound sat in the socket buffers (a few MB at most).
    assert LINGER_MIN_BYTES <= sent < LINGER_MIN_BYTES + 16_000_000, sent
    assert answer == b"" or answer.startswith(b"HTTP/1.1 413")
    status, _, _ = urllib_post(server.url + "/api/rulings", b"{}", "application/json")
    assert status == 422


# -- the drain's time bounds, on a real uvicorn with short bounds ------------------------------


@pytest.fixture(scope="module")
def short_linger(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The app behind a BodyLimit whose drain lasts at most 1.5 s, 0.4 s without data."""
    app = BodyLimit(create_app(tmp_path_factory.mktemp("linger")), max_bytes=LIMIT,
                    linger_s=1.5, linger_idle_s=0.4)
    with uvicorn_in_thread(app) as port:
        yield port


def read_until_closed(s: socket.socket, timeout_s: float) -> tuple[bytes, float]:
    t, data = time.monotonic(), b""
    s.settimeout(timeout_s)
    while chunk := s.recv(65536):
        data += chunk
    return data, time.monotonic() - t


def test_an_idle_client_is_closed_after_the_idle_bound(short_linger: int):
    with socket.create_connection(("127.0.0.1", short_linger)) as s:
        s.sendall(b"POST /api/rulings HTTP/1.1\r\nHost: t\r\nContent-Type: application/json"
                  b"\r\nContent-Length: 5000000\r\n\r\n" + b" " * 200_000)
        data, waited = read_until_closed(s, 10)
    assert data.startswith(b"HTTP/1.1 413"), data[:100]
    assert json.loads(data.split(b"\r\n\r\n", 1)[1])["error"] == "too_large"
    assert 0.3 < waited < 1.4, waited


def test_a_trickling_client_is_closed_after_the_total_bound(short_linger: int):
    with socket.create_connection(("127.0.0.1", short_linger)) as s:
        s.sendall(b"POST /api/rulings HTTP/1.1\r\nHost: t\r\nContent-Type: application/json"
                  b"\r\nContent-Length: 5000000\r\n\r\n")
        t = time.monotonic()
        closed = None
        while time.monotonic() - t < 8:
            try:
                s.sendall(b" " * 100)  # every 0.1 s: never idle for 0.4 s
            except OSError:
                closed = time.monotonic() - t
                break
            time.sleep(0.1)
    assert closed is not None and 1.3 < closed < 3.0, closed
