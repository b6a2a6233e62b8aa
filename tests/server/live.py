"""A real ``umpire serve`` process on a free loopback port, for the tests that need one (restart,
browser), started exactly as a user starts it, through the console entry point; and an app
behind a real uvicorn in a thread of the test process (uvicorn_in_thread)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LiveServer:
    proc: subprocess.Popen
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, as when the machine loses power."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def start_server(data_dir: Path, log: Path, port: int | None = None,
                 timeout_s: float = 30.0, extra_args: Sequence[str] = ()) -> LiveServer:
    """``umpire serve`` on ``port`` (a free one by default) with ``extra_args`` (e.g.
    ``["--max-upload-mb", "0.07"]``), once it answers."""
    port = port or free_port()
    out = open(log, "ab")  # noqa: SIM115 (owned by the process for its lifetime)
    proc = subprocess.Popen(
        [sys.executable, "-c", "from server.cli import main; main()", "serve",
         "--host", "127.0.0.1", "--port", str(port), "--data", str(data_dir), *extra_args],
        stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    server = LiveServer(proc, port, log)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"umpire serve exited with {proc.returncode}:\n"
                               f"{log.read_text(errors='replace')}")
        try:
            if httpx.get(f"{server.url}/api/reviews?limit=1", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    server.kill()
    raise RuntimeError(f"umpire serve did not answer within {timeout_s} s:\n"
                       f"{log.read_text(errors='replace')}")


@contextlib.contextmanager
def live_server(folder: Path, *extra_args: str) -> Iterator[LiveServer]:
    """A started ``umpire serve`` over ``folder`` (data and log inside), stopped at the end."""
    server = start_server(folder / "data", folder / "server.log", extra_args=extra_args)
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def uvicorn_in_thread(app: object, **config: object) -> Iterator[int]:
    """``app`` behind a real uvicorn on a free loopback port, in a thread of this process (as
    ``umpire serve`` runs it, without a subprocess's seconds of imports): yields the port.
    ``config``: more uvicorn.Config options (``http``, ``lifespan``)."""
    import uvicorn

    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,  # type: ignore[arg-type]
                                        log_level="warning", **config))  # type: ignore[arg-type]
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert srv.started
    try:
        yield port
    finally:
        srv.should_exit = True
        thread.join(timeout=10)
