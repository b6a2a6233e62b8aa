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
