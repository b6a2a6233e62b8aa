"""Rulesets: data and small strategy hooks over one engine (DESIGN.md, Rulesets; RULES.md 9).

Adding a ruleset means adding an entry here; no ``if ruleset == ...`` lives elsewhere.
Only ``t9a-1`` (the seed's rules, RULES.md 1-8) is implemented; the other presets of RULES.md 9
are listed so that asking for them gives a clear error rather than a wrong ruling.
"""

from __future__ import annotations

from dataclasses import dataclass

import geometry as g

from .dice import BEST_TWO_OF_THREE, TWO_D6, DiceRule
from .errors import RequestError


@dataclass(frozen=True)
class Ruleset:
    name: str
    title: str
    #: Priority names in order (RULES.md 4, seed figure 6).
    priorities: tuple[str, ...]

    def dice(self, swiftstride: bool) -> DiceRule:
        """RULES.md 3: 2D6, or the best two of 3D6 with Swiftstride."""
        return BEST_TWO_OF_THREE if swiftstride else TWO_D6

    def dice_for(self, unit: g.Unit) -> DiceRule:
        return self.dice(unit.swiftstride)

    def max_range_in(self, unit: g.Unit) -> float:
        """The longest charge the unit can roll: its advance plus the dice's top total
        (RULES.md 2, 3)."""
        assert unit.advance_in is not None
        return unit.advance_in + self.dice_for(unit).max_total

    def charged_facing(self, shares: dict[g.FacingName, float]) -> g.FacingName:
        """RULES.md 1: the arc holding more than half of the charger; else the largest share;
        a tie goes to the flank."""
        best = max(shares.values())
        for name, share in shares.items():
            if share > 0.5:
                return name
        tied = [n for n, v in shares.items() if abs(v - best) <= 1e-9]
        for flank in ("left", "right"):
            if flank in tied:
                return flank  # type: ignore[return-value]
        return tied[0]

    def failed_distance_in(self, dice: tuple[int, ...]) -> float:
        """RULES.md 6: the highest single die of the charge roll."""
        return float(max(dice))


T9A_1 = Ruleset(
    "t9a-1", "The 9th Age 1.x (seed rules)",
    ("other_enemies", "target_turned", "chargers_in_contact", "models_in_contact"),
)

RULESETS: dict[str, Ruleset] = {"t9a-1": T9A_1}
PLANNED = ("t9a-2", "t9a-3", "tow", "whfb8")


def get_ruleset(name: object) -> Ruleset:
    if not isinstance(name, str):
        raise RequestError("ruleset: must be a string such as 't9a-1'")
    if name in RULESETS:
        return RULESETS[name]
    if name in PLANNED:
        raise RequestError(f"ruleset: '{name}' is not implemented yet; available: "
                           f"{', '.join(RULESETS)}")
    raise RequestError(f"ruleset: unknown ruleset '{name}'; available: {', '.join(RULESETS)}")
