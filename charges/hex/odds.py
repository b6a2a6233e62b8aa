"""Close-combat odds of Musket & Pike (11.3.4-11.3.5; HEX.md 5.3, decisions D-4 to D-7), in exact
rational arithmetic (``fractions.Fraction``), never floats."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Odds:
    """``ratio`` is exactly ``"N:1"`` or ``"1:N"``; ``value`` the die-roll modifier."""

    attack: Fraction
    defence: Fraction
    n: int
    attacker_ahead: bool
    value: int

    @property
    def ratio(self) -> str:
        return f"{self.n}:1" if self.attacker_ahead else f"1:{self.n}"


def halve(strength: int, rounding: str = "exact") -> Fraction:
    """M&P 11.3.5: half the heavy infantry's strength; D-5 keeps it exact (7 -> 3.5), option
    ``up`` rounds it up (7 -> 4)."""
    half = Fraction(strength, 2)
    return Fraction(math.ceil(half)) if rounding == "up" else half


def simple_ratio(attack: Fraction, defence: Fraction, rounding: str = "defender"
                 ) -> tuple[int, bool]:
    """M&P 11.3.4 (D-6): ``A >= D`` gives ``floor(A/D):1``, ``A < D`` gives
    ``1:ceil(D/A)``: both round for the defender. Option ``nearest`` rounds to the nearest whole
    ratio instead (halves for the defender).

    >>> simple_ratio(Fraction(12), Fraction(18))
    (2, False)
    """
    if attack <= 0 or defence <= 0:
        raise ValueError("odds need positive strengths on both sides")
    nearest = rounding != "defender"
    if attack >= defence:
        q = attack / defence
        # Nearest whole ratio, an exact half going down (for the defender).
        n = math.ceil(q - Fraction(1, 2)) if nearest else math.floor(q)
        return max(n, 1), True
    q = defence / attack
    # Nearest whole ratio, an exact half going up (for the defender).
    n = math.floor(q + Fraction(1, 2)) if nearest else math.ceil(q)
    return (1, True) if n <= 1 else (n, False)


def ratio_drm(n: int, attacker_ahead: bool, rows: str = "most_extreme") -> int:
    """M&P 11.3.4 rows: ``4:1`` or more +2, ``2:1`` or more +1, ``1:2`` or less -1, ``1:4`` or
    less -2; never summed. D-7 takes the row furthest down the table that applies; option
    ``literal_highest`` takes the highest value among the rows that apply.

    >>> ratio_drm(4, False), ratio_drm(4, False, "literal_highest")
    (-2, -1)
    """
    if n == 1:
        return 0
    if attacker_ahead:
        return 2 if n >= 4 else 1
    if rows == "literal_highest":
        return -1
    return -2 if n >= 4 else -1


def combat_odds(attack: Fraction, defence: Fraction, rounding: str = "defender",
                rows: str = "most_extreme") -> Odds:
    n, ahead = simple_ratio(attack, defence, rounding)
    return Odds(attack, defence, n, ahead, ratio_drm(n, ahead, rows))
