"""The base of a charge ruleset: its data and hooks, whose defaults are t9a-1's (DESIGN.md,
Rulesets; RULES-editions.md 6)."""

from __future__ import annotations

from dataclasses import dataclass

import geometry as g

from ..dice import BEST_TWO_OF_THREE, TWO_D6, DiceRule


@dataclass(frozen=True)
class Ruleset:
    name: str
    title: str
    #: Priority names in order (RULES.md 4, seed figure 6).
    priorities: tuple[str, ...]
    #: Which registry this ruleset belongs to: ``charge`` (miniatures) or ``hex``.
    kind: str = "charge"

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

