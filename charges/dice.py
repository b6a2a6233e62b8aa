"""Charge dice and exact odds (RULES.md 3).

Odds are exact: every outcome of the dice is enumerated, never simulated.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from geometry.constants import EPS_MM


@dataclass(frozen=True)
class DiceRule:
    """How a charge roll is made: ``n`` D6 rolled; of the first ``n - extra`` the best ``keep``
    are summed, and the last ``extra`` dice are added whole (The Old World's Charge roll is the
    higher of 2D6, with Swiftstride's +D6 as the third die: n 3, keep 1, extra 1). Any rule
    of that shape gets exact odds by enumeration."""

    n: int
    keep: int
    name: str
    extra: int = 0

    @cached_property
    def distribution(self) -> dict[int, Fraction]:
        """Exact probability of each total."""
        counts: Counter[int] = Counter()
        for roll in itertools.product(range(1, 7), repeat=self.n):
            counts[self.total(roll)] += 1
        whole = 6 ** self.n
        return {k: Fraction(v, whole) for k, v in sorted(counts.items())}

    @property
    def min_total(self) -> int:
        return self.keep + self.extra

    @property
    def max_total(self) -> int:
        return 6 * (self.keep + self.extra)

    def total(self, dice: tuple[int, ...] | list[int]) -> int:
        rolled = list(dice)
        kept = sorted(rolled[: self.n - self.extra], reverse=True)[: self.keep]
        return sum(kept) + sum(rolled[self.n - self.extra:])

    def to_json(self) -> dict:
        """What a client needs to ask for the roll: how many dice, and how they count."""
        return {"name": self.name, "dice": self.n, "keep": self.keep, "extra": self.extra,
                "min_total": self.min_total, "max_total": self.max_total}

    def chance_at_least(self, total: int) -> Fraction:
        return sum((p for k, p in self.distribution.items() if k >= total), Fraction(0))

    def needed(self, distance_in: float, advance_in: float) -> int:
        """The smallest dice total that covers the distance (RULES.md 3: distance minus advance,
        rounded up to whole pips; never below the smallest possible roll). A range within
        EPS_MM of the distance covers it, as the range test says (Resolution.in_range), so
        the distance is taken EPS_MM shorter here too."""
        raw = math.ceil(distance_in - advance_in - EPS_MM / 25.4)
        return max(raw, self.min_total)


TWO_D6 = DiceRule(2, 2, "2D6")
BEST_TWO_OF_THREE = DiceRule(3, 2, "the best two of 3D6")
#: The Old World's Charge roll (tow 1.3): the higher of 2D6; with Swiftstride's +D6.
HIGHER_OF_2D6 = DiceRule(2, 1, "the higher of 2D6")
HIGHER_OF_2D6_PLUS_D6 = DiceRule(3, 1, "the higher of 2D6 + D6", extra=1)


def by_count(rules: tuple[DiceRule, ...], n: int) -> DiceRule:
    """Of the rules a roll may follow (Ruleset.roll_rules, flee_rules: tow's optional +D6),
    the one of ``n`` dice; the first when none has that many (the request checked the count)."""
    return next((r for r in rules if r.n == n), rules[0])


def format_chance(p: float, decimals: int = 1) -> str:
    """A chance as a percentage for players: ``decimals`` places, more where needed so that
    a chance is never shown as 100% or 0% unless it is exact (35/36 is "97.2%", 0.9995 is
    "99.95%", 1 is "100%")."""
    if p >= 1.0:
        return "100%"
    if p <= 0.0:
        return "0%"
    for d in range(decimals, 10):
        text = f"{p * 100:.{d}f}"
        if 0 < float(text) < 100:
            return f"{text}%"
    return f"{p * 100:.10g}%"

