"""The ``umpire`` command: demo on the bundled sample, exit codes (DESIGN.md, Command line)."""

from __future__ import annotations

import subprocess
import sys


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from server.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=120)


def test_demo_prints_the_situation_report():
    r = run("demo")
    assert r.returncode == 0, r.stderr
    assert "Situation report" in r.stdout
    # knights see spears 10.17 in away, in the spears' front arc.
    assert "spears" in r.stdout and '10.17"' in r.stdout


def test_unknown_command_is_a_usage_error():
    r = run("frobnicate")
    assert r.returncode == 2
