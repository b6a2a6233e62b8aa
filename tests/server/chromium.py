"""Debian's chromium for the browser tests, driven by playwright: never a downloaded browser.
The tests that need it skip, saying why, only where /usr/bin/chromium is absent (``.ci/run``
installs it)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="browser test needs Debian's chromium at /usr/bin/chromium "
           "(apt-get install -y chromium; .ci/run installs it)")


def launch(playwright: Any, *extra_args: str) -> Any:
    """Headless chromium with the tests' flags and ``extra_args``."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                      args=[*ARGS, *extra_args])


@contextmanager
def chromium(*extra_args: str) -> Iterator[Any]:
    """:func:`launch` in a playwright session of its own, closed on the way out (a test
    module's ``browser`` fixture)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p, *extra_args)
        try:
            yield b
        finally:
            b.close()
