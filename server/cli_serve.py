"""`umpire serve`: the HTTP API and the web page (DESIGN.md, Command line and HTTP).

Registered on ``server.cli.app`` when that module imports this one.
"""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path
from typing import Annotated

import typer

from server.cli import InputError, app, out
from server.slow_clients import READ_TIMEOUT_S, timed_h11


def default_data_dir() -> Path:
    """Where reviews live unless ``--data`` says otherwise: the XDG data folder, so reviews
    outlive the folder the server happened to be started from."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "umpire"


#: Seconds a stopping server waits for requests in flight.
SHUTDOWN_GRACE_S = 5


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (loopback by default)")]
        = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="TCP port")] = 8000,
    data: Annotated[Path | None, typer.Option(
        help="Folder for stored reviews (SQLite + photo files) [default: "
             "$XDG_DATA_HOME/umpire]")] = None,
    max_upload_mb: Annotated[float, typer.Option(
        help="Largest request body accepted, in MB; larger uploads get 413")] = 25.0,
    detect_processes: Annotated[int | None, typer.Option(
        min=0, help="Worker processes for photo detection, so photos do not slow rulings "
                    "(0: threads in the server process) [default: CPUs - 1, at least 1]")] = None,
    read_timeout: Annotated[float, typer.Option(
        help="Seconds a request's head may take to arrive, and its body may go without a "
             "byte, before the server answers 408 and closes the connection")] = READ_TIMEOUT_S,
) -> None:
    """Serve the web page and the HTTP API (docs at /docs)."""
    import uvicorn

    from server.app import create_app

    data_dir = data or default_data_dir()
    if max_upload_mb <= 0:
        raise InputError(f"--max-upload-mb: must be positive, not {max_upload_mb}")
    if not 0 < read_timeout <= 3600:
        raise InputError(f"--read-timeout: must be more than 0 and at most 3600 seconds, not "
                         f"{read_timeout:g}")
    _check_listen(host, port)
    try:
        procs = detect_processes if detect_processes is not None else \
            max(1, (os.cpu_count() or 2) - 1)
        application = create_app(data_dir, max_upload_mb=max_upload_mb,
                                 detect_processes=procs)
    except OSError as e:
        raise InputError(f"--data {data_dir}: cannot use this folder ({e})") from None
    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    out.print(f"umpire: reviews in {data_dir}; open http://{shown}:{port}/ "
              f"(API docs at /docs)", highlight=False)
    # On SIGTERM, requests in flight get a few seconds; a long ruling is not waited for. A
    # request that stalls while it arrives is answered 408 and closed (server/slow_clients.py).
    try:
        uvicorn.run(application, host=host, port=port, log_level="info", access_log=False,
                    timeout_graceful_shutdown=SHUTDOWN_GRACE_S, http=timed_h11(read_timeout))
    except SystemExit as e:
        if e.code == 3:  # uvicorn's startup failure: the address was taken meanwhile
            raise InputError(f"--port {port}: could not listen on {host}:{port} (see the "
                             "error above)") from None
        raise


def _check_listen(host: str, port: int) -> None:
    """Refuse, naming the option, an address the server cannot listen on, before anything is
    advertised (DESIGN.md: bad input exits 2 naming the field; uvicorn's own failure exits
    3 after the banner has sent the user to whatever holds the port)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as e:
        raise InputError(f"--host {host}: not an address this machine has ({e})") from None
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(addr)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise InputError(f"--port {port}: address {host}:{port} already in use (is "
                                 "another umpire running? choose another --port)") from None
            raise InputError(f"--host {host}: cannot listen there ({e.strerror or e})") from None
