"""``umpire ARGS`` run in this process through its console entry point (exit codes and all),
for the CLI tests: a subprocess per case costs seconds of imports."""

from __future__ import annotations

import sys

import pytest


def run_umpire(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
               *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``umpire ARGS``."""
    from server.cli import main

    monkeypatch.setattr(sys, "argv", ["umpire", *args])
    code = 0
    try:
        main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err
