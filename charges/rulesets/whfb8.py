"""Warhammer Fantasy Battle 8th edition (ruleset ``whfb8``, RULES-editions.md 2).

What differs from the base (t9a-1):
- the facing by the charger's front-rank models in each arc; with no clear majority the facing
  is contested and a D6 decides (``facing_roll``: 1-3 the earlier arc in the order front,
  flank, rear, 4-6 the later), asked for by name, never guessed (2.1);
- charges need room: no impossible charge may be declared (2.2); no blocked path or special
  charge (2.5);
- the charged unit closes the door when the charger cannot (2.5), without a disorder flag;
  other enemies touched at an angle close the door on the charger too (2.5: several targets
  as tow 1.5, without the flag);
- the failed charge moves the highest D6 towards the target, wheeling as it must (the wheel
  paid), stopping 1" short of units and impassable terrain, with a second wheel to go round
  what is in the way (2.6, 7a);
- a fleeing target not reached: a failed charge (2.7), as the base.
"""

from __future__ import annotations

from . import register
from .base import FacingDecision, Ruleset, most

#: The order a facing roll reads the contested arcs in (2.1: front, flank, rear).
ORDER = {"front": 0, "left": 1, "right": 1, "rear": 2}

WHFB8_WORDS = {
    "facing": "Flank and Rear Charges", "declare": "Declare Charge",
    "range": "Roll Charge Range and Move Chargers", "move": "Move Chargers",
    "contact": "Move Chargers", "align": "Aligning to the Enemy (closing the door)",
    "blocked": "Unusual Situations", "failed": "Failed Charge",
    "fleeing": "Charging a Fleeing Enemy", "multiple": "Multiple Charges on a Unit",
    "other_enemies": "Charging More Than One Unit",
    "movement": "Movement",
    "after_failed": "they cannot move again this turn",
    "flee": "Flee!",
    "secondary_align": "Charging More Than One Unit",
    "after_caught": "may test Leadership to reform",
    "turn_target": "Unusual Situations: the enemy closes the door",
}


class Fantasy8(Ruleset):
    def facing_from_counts(self, counts: dict[str, float],
                           roll: int | None = None) -> FacingDecision:
        """2.1: the arc with more front-rank models; a tie is contested, decided by a D6."""
        tied = most(counts)
        if len(tied) == 1:
            return FacingDecision(tied[0], counts)  # type: ignore[arg-type]
        ordered = sorted(tied, key=lambda k: (ORDER[k], k))
        if roll is None:
            return FacingDecision(ordered[0], counts, contested=True,  # type: ignore[arg-type]
                                  tie="no clear majority of front-rank models: roll a D6")
        pick = ordered[0] if roll <= 3 else ordered[-1]
        return FacingDecision(pick, counts, contested=True,  # type: ignore[arg-type]
                              tie=f"no clear majority of front-rank models; the facing roll "
                              f"of {roll} gives the {pick}", roll=roll)


WHFB8 = register(Fantasy8(
    "whfb8", "Warhammer Fantasy Battle 8th edition",
    priorities=("undeclared_enemies", "models_in_contact", "equal_split"),
    unaligned="fail", facing_rule="front_rank_models", special_charge=False, requires_room=True,
    distance_to="bases",
    failed_turns=False, failed_gap_mm=25.4, failed_wheels=2, secondary_aligns=True,
    gap_from_enemies_only=False, equalise_chargers=True, joint_turn_first=False,
    flee_gap_mm=25.4, flee_gap_from_friends=True,
    words=WHFB8_WORDS))
