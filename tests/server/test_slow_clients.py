"""Requests that stall while they arrive (outside report 3, finding 6): uvicorn with the
protocol ``umpire serve`` runs (server/slow_clients.py, read timeout 1 s) answers 408 with the
server's JSON body and closes the connection, over real sockets, and leaves alone a request
that keeps coming and a connection the client uses. The server runs in this process (a
subprocess would take seconds of imports); ``umpire serve`` is checked to run that protocol."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from server.slow_clients import READ_TIMEOUT_S, timed_h11

from .live import uvicorn_in_thread


async def echo(request: Request) -> JSONResponse:
    body = await request.body()
    return JSONResponse({"got": len(body)})


@dataclass
class Served:
    port: int


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    app = Starlette(routes=[Route("/echo", echo, methods=["GET", "POST"])])
    with uvicorn_in_thread(app, http=timed_h11(1.0), lifespan="off") as port:
        yield Served(port)


def test_umpire_serve_runs_the_timed_protocol(monkeypatch, tmp_path):
    from server.cli import app as cli

    seen: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda application, **kw: seen.update(kw))
    from typer.testing import CliRunner

    r = CliRunner().invoke(cli, ["serve", "--data", str(tmp_path), "--detect-processes", "0",
                                 "--read-timeout", "7"])
    assert r.exit_code == 0, r.output
    assert seen["http"].__name__ == "TimedH11Protocol"
    assert READ_TIMEOUT_S == 30.0
    r = CliRunner().invoke(cli, ["serve", "--data", str(tmp_path), "--read-timeout", "0"])
    assert r.exit_code != 0


def talk(server: Served, *parts: bytes, gap_s: float = 0.0,
         wait_s: float = 6.0) -> tuple[float, bytes]:
    """Send ``parts`` with ``gap_s`` between them, then read until the server closes: the
    seconds from the last part to the close, and what it answered."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=wait_s) as s:
        for i, part in enumerate(parts):
            if i:
                time.sleep(gap_s)
            s.sendall(part)
        sent = time.monotonic()
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return time.monotonic() - sent, data


def body_of(answer: bytes) -> dict:
    return json.loads(answer.split(b"\r\n\r\n", 1)[1])


GET = b"GET /echo?a=1&b=2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
RULING = json.dumps({"scene": {"units": []}, "charges": []}).encode()
POST = (b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Connection: close\r\nContent-Length: " + str(len(RULING)).encode() + b"\r\n\r\n")


def test_stalled_requests_are_answered_408_and_closed(server):
    results: dict[str, tuple[float, bytes]] = {}
    cases = {
        "half a request line": (b"GET /echo?a=1&b",),
        "headers and half a body": (POST + RULING[:10],),
        "nothing at all": (b"",),
    }
    threads = [threading.Thread(target=lambda k=k, p=p: results.__setitem__(k, talk(server, *p)))
               for k, p in cases.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name in ("half a request line", "headers and half a body"):
        took, answer = results[name]
        assert 0.8 < took < 3, (name, took)
        assert answer.startswith(b"HTTP/1.1 408 "), (name, answer[:100])
        assert body_of(answer)["error"] == "request_timeout"
        assert "--read-timeout" in body_of(answer)["detail"]
    took, answer = results["nothing at all"]
    assert 0.8 < took < 3 and answer == b""  # a preconnect is closed without a word


def test_requests_that_keep_coming_are_not_cut(server):
    # The head in two pieces within the timeout, then the body in pieces 0.6 s apart: each
    # gap is under the timeout, the whole body takes longer than it, and both are answered.
    head = GET.split(b"&")
    _, answer = talk(server, head[0], b"&" + head[1], gap_s=0.4)
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
    _, answer = talk(server, POST, RULING[:10], RULING[10:20], RULING[20:], gap_s=0.6)
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
    assert body_of(answer) == {"got": len(RULING)}


def test_a_kept_alive_connection_waits_for_its_next_request(server):
    """Between requests the keep-alive timeout (uvicorn's 5 s) applies, not the read timeout:
    a second request 1.3 s after the first answer is answered."""
    keep = GET.replace(b"Connection: close\r\n", b"")
    with socket.create_connection(("127.0.0.1", server.port), timeout=6) as s:
        for _ in range(2):
            s.sendall(keep)
            answer = b""
            while not answer.endswith(b'{"got":0}'):
                chunk = s.recv(65536)
                assert chunk, answer  # closed before the answer
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
            time.sleep(1.3)
