"""Every ruling on a random bench table (single and multiple charges, with dice and odds only)
judged by the independent checker, for every ruleset: rulings that replay to a legal path,
within the roll, with the gaps kept and the counts right (tests/checker.py asks each ruleset
what to check). Judging the reference rulings this way found failed moves of a multiple charge
overlapping each other (t9a-1), a charger pushed aside beyond its roll (tow) and failed moves
ending within 1 in of a unit (whfb8)."""

from __future__ import annotations

import pytest

import charges
from bench.reference import requests
from charges.errors import RequestError

from ..checker import check_ruling


@pytest.mark.parametrize("ruleset", ["t9a-1", "tow", "whfb8"])
def test_random_table_rulings_pass_the_checker(ruleset: str) -> None:
    checked, problems = 0, []
    # The engine's own rule, not the one tests/conftest.py wraps with the checker: each ruling
    # is judged once, here, where a failure is collected with its key.
    rule = charges.rule.__wrapped__ if getattr(charges.rule, "__wrapped_by_checker__", False) \
        else charges.rule
    for key, request in requests(1, 7, ruleset):
        if key.startswith("scenario/") or key == "sample":
            continue  # the scenario suites run these
        try:
            ruling = rule(request)
        except RequestError as e:
            assert "facing_roll" in str(e), f"{key}: {e}"  # whfb8 asks for a contested roll
            continue
        try:
            check_ruling(request, ruling)
        except AssertionError as e:
            problems.append(f"{key}: {e}")
        checked += 1
    assert checked > 60
    assert not problems, "\n".join(problems[:5])
