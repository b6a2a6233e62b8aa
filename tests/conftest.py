"""Suite-wide fixtures: every ruling made in a test goes through the independent checker
(issue 3, "How it is checked").

``rule_and_check`` (fixture, also importable from ``tests.checker``) rules a request and checks
it. Besides, ``charges.rule`` itself is wrapped for the whole session, so a ruling made
anywhere in the suite (directly, through the CLI in-process or the HTTP app) is checked too;
set ``UMPIRE_NO_RULING_CHECK=1`` to switch the wrapper off when debugging.
"""

from __future__ import annotations

import functools
import os

import pytest

from tests.checker import check_ruling
from tests.checker import rule_and_check as _rule_and_check


@pytest.fixture
def rule_and_check():
    return _rule_and_check


@pytest.fixture(autouse=True, scope="session")
def _check_every_ruling():
    if os.environ.get("UMPIRE_NO_RULING_CHECK"):
        yield
        return
    import charges

    original = charges.rule

    @functools.wraps(original)
    def checked(request: dict) -> dict:
        ruling = original(request)
        check_ruling(request, ruling)
        return ruling

    checked.__wrapped_by_checker__ = True  # type: ignore[attr-defined]
    charges.rule = checked
    try:
        yield
    finally:
        charges.rule = original
