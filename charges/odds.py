"""Odds of a charge roll without a scene (RULES.md 3): ``umpire odds`` and ``GET /api/odds``."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import RequestError
from .rulesets import DEFAULT, get_ruleset


@dataclass(frozen=True)
class OddsReport:
    ruleset: str
    advance_in: float
    distance_in: float
    swiftstride: bool
    dice: str
    needed: int
    odds: float
    table: dict[int, float]  # chance of rolling at least each total

    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "advance_in": self.advance_in,
                "distance_in": self.distance_in, "swiftstride": self.swiftstride,
                "dice": self.dice, "needed_in": self.needed, "odds": round(self.odds, 6),
                "at_least": {str(k): round(v, 6) for k, v in self.table.items()}}


#: The longest distance or advance asked about: far beyond any table (the roll needed grows
#: with it, digit by digit).
MAX_INCHES = 100_000.0


def odds(advance_in: float, distance_in: float, swiftstride: bool = False,
         ruleset: str = DEFAULT) -> OddsReport:
    """The roll needed to cover ``distance_in`` with ``advance_in`` and its exact chance."""
    rs = get_ruleset(ruleset)
    for name, v in (("advance", advance_in), ("distance", distance_in)):
        if not isinstance(v, int | float) or not math.isfinite(v):
            raise RequestError(f"{name}: must be a finite number of inches")
        if v < 0:
            raise RequestError(f"{name}: must not be negative")
        if v > MAX_INCHES:
            raise RequestError(f"{name}: at most {MAX_INCHES:g} in (2.5 km), got {v:g}")
    rule = rs.dice(swiftstride)
    needed = rule.needed(distance_in, advance_in)
    table = {k: float(rule.chance_at_least(k)) for k in range(rule.min_total,
                                                                rule.max_total + 1)}
    return OddsReport(rs.name, advance_in, distance_in, swiftstride, rule.name, needed,
                      float(rule.chance_at_least(needed)), table)
