"""`umpire serve` refuses bad options with exit code 2 and a message naming the option
(DESIGN.md, Command line: exit codes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from server.cli import main; main()", "serve",
                           *args], capture_output=True, text=True, timeout=60)


def test_a_data_folder_that_is_a_file_is_bad_input(tmp_path: Path):
    f = tmp_path / "not-a-folder"
    f.write_text("x")
    r = serve("--data", str(f), "--port", "0")
    assert r.returncode == 2, r.stderr
    assert "--data" in r.stderr


def test_a_non_positive_upload_limit_is_bad_input(tmp_path: Path):
    r = serve("--data", str(tmp_path), "--max-upload-mb", "0", "--port", "0")
    assert r.returncode == 2 and "--max-upload-mb" in r.stderr


def test_a_port_in_use_is_bad_input_before_anything_is_advertised(tmp_path: Path):
    """Another program holds the port: exit 2 naming --port, and no banner sending the user to
    that other program's address (it used to print "open http://localhost:P/" and exit 3)."""
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        r = serve("--data", str(tmp_path), "--port", str(port))
    assert r.returncode == 2, r.stderr
    assert f"--port {port}" in r.stderr and "already in use" in r.stderr
    assert "open http" not in r.stdout


def test_an_unknown_host_is_bad_input(tmp_path: Path):
    r = serve("--data", str(tmp_path), "--host", "no-such-host.invalid", "--port", "0")
    assert r.returncode == 2, r.stderr
    assert "--host no-such-host.invalid" in r.stderr
