"""Warhammer: The Old World (ruleset ``tow``, RULES-editions.md 1, rulebook and FAQ/Errata
1.5.2).

What differs from the base (t9a-1):
- the facing by the charger's front-rank models in each arc, a tie to the arc of least
  advantage to the charger, front before flank before rear (1.1, Resolving Uncertainties);
- the longest declarable charge M + 6, +3 with Swiftstride, and no impossible charge: some
  legal charge move within the longest roll must exist (1.2, Maximum Possible Charge Range);
  a Marching Column (more ranks than files) cannot make a charge move;
- the Charge roll: the higher of 2D6; with Swiftstride the +D6 (assumed taken, it never
  lowers the odds), compared with the PAID path: initial forward + the wheel's W x theta +
  forward to contact, the closing wheel free (1.3, Determine Charge Range);
- end positions ranked by models in contact, both sides, then charger models (1.4);
- only the front edge is swept (1.4, FAQ: a rear corner may pass); the final footprint is whole;
- unable to align: the target aligns to the charger, and the charge is disordered (1.5);
- other enemies touched at an angle align to the charger, the charge disordered against those
  only (1.5, Several targets);
- no blocked path or special charge (1.5);
- the failed charge moves the Charge roll towards the target, wheeling as it must (the wheel
  paid), ending at least 1" from every enemy (1.6);
- a fleeing target not reached has escaped: not a failed charge (1.7, Running Down the Foe);
- a fleeing enemy across the path halts the charge 1" from it, or is run down (1.5,
  Accidental Contact During a Charge).
"""

from __future__ import annotations

import geometry as g

from ..dice import HIGHER_OF_2D6, HIGHER_OF_2D6_PLUS_D6, TWO_D6, DiceRule
from . import register
from .base import FacingDecision, Ruleset, most

#: A flee roll with Swiftstride's +D6 (1.7): all three dice summed.
TWO_D6_PLUS_D6 = DiceRule(3, 2, "2D6 + D6", extra=1)

#: Least advantage to the charger first (tow 1.1: front gives 0, flank +1, rear +2).
ADVANTAGE = {"front": 0, "left": 1, "right": 1, "rear": 2}

TOW_WORDS = {
    "facing": "Flank and Rear Charges", "declare": "Who Can Charge",
    "range": "Determine Charge Range", "move": "The Charge Move",
    "contact": "The Charge Move", "align": "Aligning to the Enemy",
    "blocked": "Unable to Align", "failed": "Failed Charge",
    "fleeing": "Running Down the Foe", "multiple": "Multiple Charging Units",
    "other_enemies": "Charging More Than One Unit: each enemy touched is charged too",
    "movement": "Movement",
    "after_failed": "they cannot move again this turn",
    "flee": "Flee! Charge Reaction",
    "secondary_align": "Multiple Charge Targets: enemies the charger cannot align to "
                       "must align to it",
    "after_caught": "may take a Leadership test to reform, and cannot move again this turn",
    "turn_target": "Unable to Align: the target aligns to the charger",
    "accidental": "Accidental Contact During a Charge",
}


class OldWorld(Ruleset):
    def dice(self, swiftstride: bool) -> DiceRule:
        return HIGHER_OF_2D6_PLUS_D6 if swiftstride else HIGHER_OF_2D6

    def flee_dice(self, swiftstride: bool) -> DiceRule:
        """1.7: a flee roll is 2D6; Swiftstride adds its +D6 (errata 1.5.2)."""
        return TWO_D6_PLUS_D6 if swiftstride else TWO_D6

    def roll_rules(self, unit: g.Unit) -> tuple[DiceRule, ...]:
        """1.3: Swiftstride *may* add +D6 before rolling: three dice are the roll with it, two
        the roll without; the odds assume it is taken (1.3 [D])."""
        return (HIGHER_OF_2D6_PLUS_D6, HIGHER_OF_2D6) if unit.swiftstride else (HIGHER_OF_2D6,)

    def flee_rules(self, swiftstride: bool) -> tuple[DiceRule, ...]:
        """1.7: "Roll 2D6 (Swiftstride may add +D6)": two dice or three."""
        return (TWO_D6_PLUS_D6, TWO_D6) if swiftstride else (TWO_D6,)

    def max_range_in(self, unit: g.Unit) -> float:
        """M + 6, the best unmodified Charge roll; +3 with Swiftstride (errata p.178)."""
        assert unit.advance_in is not None
        return unit.advance_in + 6 + (3 if unit.swiftstride else 0)

    def facing_from_counts(self, counts: dict[str, float],
                           roll: int | None = None) -> FacingDecision:
        """1.1: the arc with more front-rank models; a tie to the least advantage."""
        tied = most(counts)
        if len(tied) == 1:
            return FacingDecision(tied[0], counts)  # type: ignore[arg-type]
        pick = min(tied, key=lambda k: (ADVANTAGE[k], k))
        return FacingDecision(pick, counts, tie=f"no majority of front-rank models, so the "  # type: ignore[arg-type]
                              f"arc of least advantage to the charger: {pick}")

    def group_key(self, charger_models: int, target_models: int) -> tuple[int, int]:
        """1.4 [D]: most models in contact, both sides summed; if tied, most charger models."""
        return (-(charger_models + target_models), -charger_models)

    def failed_distance_in(self, dice: tuple[int, ...]) -> float:
        """1.6: the Charge roll itself (the kept die, and Swiftstride's +D6)."""
        return float(self.dice(len(dice) == 3).total(dice))

    def cannot_make_a_move(self, charger: g.Unit) -> str | None:
        if charger.ranks > charger.files:
            return (f"{charger.id} is a Marching Column ({charger.files} files, "
                    f"{charger.ranks} ranks) and cannot make a charge move")
        return None


TOW = register(OldWorld(
    "tow", "Warhammer: The Old World",
    priorities=("undeclared_enemies", "within_range", "models_in_contact", "charger_models",
                "path"),
    unaligned="gap", facing_rule="front_rank_models", range_measure="paid_path", swept="front_edge",
    distance_to="bases",
    special_charge=False, requires_room=True,
    column_cannot_charge=True, target_aligns_flag="disordered", failed_turns=False,
    secondary_aligns=True, secondary_flag="disordered_against",
    failed_gap_mm=25.4, fleeing_miss="escaped", fleeing_aligns=True, flee_gap_mm=25.4,
    flee_round_impassable=True,
    accidental_contact=True, same_facing_together=True, joint_turn_first=False,
    words=TOW_WORDS,
    roll_word="Charge roll"))
