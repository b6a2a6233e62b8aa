"""The base of a charge ruleset: its data and hooks (DESIGN.md, Rulesets; RULES-editions.md 6),
whose defaults are t9a-1's (RULES.md 1-8).

As python-chess writes a variant, a ruleset is a subclass that sets class data and overrides
the few hooks where its rules differ; the engine (charges/) asks these and never tests which
ruleset it is. The hooks, by RULES-editions.md 6's rows:

- ``facing`` (facing_rule): which facing a charge hits, and the evidence;
- ``max_range_in`` (declare_max_range), ``requires_room`` (declare_requires_room) and
  ``column_cannot_charge`` (tow's Marching Column);
- ``dice`` (range_dice): any roll of the DiceRule shape, with exact odds;
- ``range_measure`` (range_measure): the closest distance, or the paid path; ``distance_to``:
  between the boundaries, or the models' bases;
- ``wheel_cost_mm`` (wheel_cost), ``max_wheel_deg`` (max_wheel_deg);
- ``swept`` (swept_shape): the whole boundary, or the front edge only;
- ``target_aligns_flag`` (align's fallback): what a target that aligns to the charger sets;
- ``group_key`` and ``priorities`` (priority_key): the one ranking of end positions by models,
  used by the search, multiple charges and the ``priorities`` JSON;
- ``special_charge`` (special_charge / blocked path);
- ``failed_distance_in``, ``failed_turns`` and ``failed_gap_mm`` (failed_distance,
  failed_path);
- ``fleeing_miss`` and ``fleeing_aligns`` (fleeing_target);
- ``accidental_contact`` (special_charge's "accidental contact: halt / continue");
- ``words`` (the rule names explanations cite) and ``roll_word``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

import numpy as np
import shapely

import geometry as g

from ..dice import BEST_TWO_OF_THREE, TWO_D6, DiceRule
from ..errors import RequestError
from ..facing_frame import MoveRules

#: Arc shares closer than this are equal (RULES.md 1: "more than half", "a tie"): the areas
#: are intersected on a grid (geometry.arcs), so an exact half comes out as 0.5 plus or minus
#: about 1e-11, and a share 1e-7 of a unit's area is far below a shift of EPS_MM.
SHARE_TOL = 1e-7


@dataclass(frozen=True)
class FacingDecision:
    """Which facing a charge hits, with the evidence the ruling reports."""

    facing: g.FacingName
    #: The charger's front-rank model centres per target arc (rulesets that count models).
    counts: dict[str, float] | None = None
    #: No clear majority, decided by a roll (whfb8's ``facing_roll``) or provisionally.
    contested: bool = False
    #: How the tie was broken, in words, when it was.
    tie: str | None = None
    #: The facing roll that decided a contested facing (whfb8).
    roll: int | None = None


#: The rulebook names explanations cite, per topic (RULES.md 1-8's sections in t9a-1's book).
T9A_WORDS: dict[str, str] = {
    "facing": "Charged Facing", "declare": "Declaring Charges", "range": "Charge Range",
    "move": "Moving Chargers", "contact": "Maximising Contact", "align": "Aligning Units",
    "blocked": "Blocked Path", "failed": "Failed Charge", "fleeing": "Charging a Fleeing Unit",
    "multiple": "Multiple Charges",
    "other_enemies": "Maximising Contact, priority 1: as few other enemies as possible",
    "turn_target": "Maximising Contact, priority 2: as little as possible",
    "movement": "advance",
    "after_failed": "they are disrupted until the end of the player turn",
    "after_caught": "are disrupted until the end of the player turn and may test Discipline "
                    "for a post-combat reform",
    "flee": "Flee",
    "secondary_align": "Maximising Contact",
}


@dataclass(frozen=True)
class Ruleset:
    """A charge ruleset; the defaults are t9a-1's (RULES.md)."""

    name: str
    title: str
    #: Priority names in order (the ``priorities`` JSON's ``order``).
    priorities: tuple[str, ...] = ("other_enemies", "target_turned", "chargers_in_contact",
                                   "models_in_contact")
    kind: str = "charge"
    #: How the charged facing is found: by the arc holding most of the charger's area
    #: (RULES.md 1) or by its front-rank models' base centres (tow 1.1, whfb8 2.1).
    facing_rule: Literal["area", "front_rank_models"] = "area"
    #: What the charge roll is compared with: the closest distance between the boundaries
    #: (RULES.md 3) or the paid path (tow 1.3).
    range_measure: Literal["closest", "paid_path"] = "closest"
    #: What the closest distance is measured between: the units' boundaries (RULES.md 2-3) or
    #: their models' bases, where a short rank's empty places are not part of the unit (tow
    #: 1.1 [D], whfb8 2.3: base to base, never the tray).
    distance_to: Literal["boundary", "bases"] = "boundary"
    #: What a moving charger may not sweep through: its whole boundary (RULES.md 4) or only its
    #: front edge (tow 1.4, FAQ); the final position is always the whole footprint.
    swept: Literal["boundary", "front_edge"] = "boundary"
    max_wheel_deg: float = 90.0
    #: The blocked path's special charge (RULES.md 5); rulesets without one fail instead.
    special_charge: bool = True
    #: Whether a charge may be declared only when some legal charge move exists.
    requires_room: bool = False
    #: A unit with more ranks than files cannot make a charge move (tow's Marching Column).
    column_cannot_charge: bool = False
    #: What the ruling sets when the target has to align to the charger (tow: disordered).
    target_aligns_flag: str | None = None
    #: Other enemies the charge touches at an angle align to the charger (tow 1.5, whfb8
    #: 2.5: charges/secondary_align.py), and the ruling lists them under this name (tow:
    #: ``disordered_against``, the charge disordered against those units only).
    secondary_aligns: bool = False
    secondary_flag: str | None = None
    #: When neither the charger nor the target can align: no legal move (RULES.md 4), the
    #: gap is left and the charge stands (tow 1.5, ``gap``), or it is made and fails (whfb8
    #: 2.5, ``fail``).
    unaligned: Literal["none", "gap", "fail"] = "none"
    #: The failed charge move turns about the centre (RULES.md 6) or wheels, paying the
    #: wheel from the distance (tow 1.6, whfb8 2.6).
    failed_turns: bool = True
    #: How many wheels a failed charge that wheels may make to go round what is in its way
    #: (tow 1.6: one; whfb8 2.6: "may wheel more than once", two in the [D]).
    failed_wheels: int = 1
    #: How far a failed charge (or an escaped target's chaser) ends from others (mm): from
    #: enemies only (tow 1.6), or from every unit and impassable terrain (whfb8 2.6).
    failed_gap_mm: float = 0.0
    gap_from_enemies_only: bool = True
    #: A fleeing target the charge does not reach: a failed charge, or it escaped (tow 1.7).
    fleeing_miss: Literal["failed", "escaped"] = "failed"
    #: Charging a fleeing unit: the charger aligns to the facing it meets (tow), or not.
    fleeing_aligns: bool = False
    #: A flight that would end within this of an enemy carries on (tow 1.7: 1").
    flee_gap_mm: float = 0.0
    #: The flight keeps that gap from friends too (whfb8 2.7: the 8th 1" rule covers them).
    flee_gap_from_friends: bool = False
    #: Impassable terrain in a flight's way is gone round by pivots, by the shortest route
    #: (tow 1.7; charges/flee_round.py); otherwise the flight goes straight on.
    flee_round_impassable: bool = False
    #: A fleeing enemy across the path halts the charge or is run down, by the request's
    #: ``on_accidental_contact`` (tow 1.5, charges/accidental.py); without it such a unit is
    #: an obstacle like any other.
    accidental_contact: bool = False
    #: Several chargers: a joint plan that turns the target less ranks first (RULES.md 4,
    #: priority 2 above priority 3), or after the chargers that complete and the models (tow
    #: 1.8, whfb8 2.8 [D]).
    joint_turn_first: bool = True
    #: Several chargers into the same facing move together, not one after another (tow 1.8):
    #: the explanation says so instead of giving an order.
    same_facing_together: bool = False
    #: Several chargers: among plans with as many models, the one whose chargers' models are
    #: the most equal wins (whfb8 2.8).
    equalise_chargers: bool = False
    #: The rule names explanations cite.
    words: dict[str, str] = field(default_factory=lambda: dict(T9A_WORDS))
    #: What the roll is called in the explanation ("charge range", "Charge roll").
    roll_word: str = "charge range"
    aliases: ClassVar[tuple[str, ...]] = ()

    # -- the roll ------------------------------------------------------------------------

    def dice(self, swiftstride: bool) -> DiceRule:
        """RULES.md 3: 2D6, or the best two of 3D6 with Swiftstride."""
        return BEST_TWO_OF_THREE if swiftstride else TWO_D6

    def dice_for(self, unit: g.Unit) -> DiceRule:
        return self.dice(unit.swiftstride)

    def flee_dice(self, swiftstride: bool) -> DiceRule:
        """A flee roll (RULES.md 7; whfb8 2.7): 2D6, Swiftstride's best two of 3D6."""
        return self.dice(swiftstride)

    def roll_rules(self, unit: g.Unit) -> tuple[DiceRule, ...]:
        """The dice a charge roll of ``unit`` may be made with, told apart by their count; the
        first is the one the odds assume (:meth:`dice_for`). Most rulesets have one."""
        return (self.dice_for(unit),)

    def flee_rules(self, swiftstride: bool) -> tuple[DiceRule, ...]:
        """The dice a flee roll may be made with, as :meth:`roll_rules`."""
        return (self.flee_dice(swiftstride),)

    def max_range_in(self, unit: g.Unit) -> float:
        """The longest charge that may be declared: its advance plus the dice's top total
        (RULES.md 2, 3)."""
        assert unit.advance_in is not None
        return unit.advance_in + self.dice_for(unit).max_total

    def range_in(self, unit: g.Unit, dice: tuple[int, ...]) -> float:
        """The charge range a roll gives: the movement characteristic plus the roll."""
        return (unit.advance_in or 0.0) + self.dice_for(unit).total(dice)

    # -- the facing ----------------------------------------------------------------------

    def charged_facing(self, shares: dict[g.FacingName, float]) -> g.FacingName:
        """RULES.md 1: the arc holding more than half of the charger; else the largest share;
        a tie goes to the flank."""
        best = max(shares.values())
        for name, share in shares.items():
            if share > 0.5 + SHARE_TOL:
                return name
        tied = [n for n, v in shares.items() if abs(v - best) <= SHARE_TOL]
        for flank in ("left", "right"):
            if flank in tied:
                return flank  # type: ignore[return-value]
        return tied[0]

    def facing(self, charger: g.Unit, target: g.Unit, shares: dict[g.FacingName, float],
               roll: int | None = None) -> FacingDecision:
        """Which facing the charge hits: by area (t9a-1, RULES.md 1), or by the charger's
        front-rank models (``facing_rule``, :meth:`facing_from_counts`). ``roll``: a D6
        given for a contested facing (whfb8)."""
        if self.facing_rule == "front_rank_models":
            return self.facing_from_counts(front_rank_counts(charger, target), roll)
        return FacingDecision(self.charged_facing(shares))

    def facing_from_counts(self, counts: dict[str, float],
                           roll: int | None = None) -> FacingDecision:
        """The facing decided by front-rank model counts alone (facing_rule
        ``front_rank_models``): also asked how far the charger may move before it changes
        (report.margin_mm)."""
        raise NotImplementedError(f"{self.name} decides the facing by area")

    def check_facing_roll(self, decision: FacingDecision, roll: int | None, charger: str,
                          target: str) -> None:
        """A contested facing is decided by the request's roll, never guessed: without it the
        request is refused, naming the field."""
        if decision.contested and roll is None:
            counts = ", ".join(f"{k} {v:g}" for k, v in (decision.counts or {}).items() if v)
            raise RequestError(f"facing_roll.{charger}: the facing of {charger}'s charge on "
                               f"{target} is contested (front-rank models: {counts}): give a "
                               "D6 as facing_roll (1-3 the earlier arc of front, flank, rear; "
                               "4-6 the later)")

    # -- the move ------------------------------------------------------------------------

    def wheel_cost_mm(self, width_mm: float, theta_rad: float) -> float:
        """What a wheel costs: the outer front corner's arc, W x theta (RULES-editions.md 7a:
        the path length of every preset)."""
        return width_mm * abs(theta_rad)

    def group_key(self, charger_models: int, target_models: int) -> tuple[int, int]:
        """The ranking of end positions by the models they put in contact, best first (as a
        sort key): t9a-1 priority 4, both sides counted, ties to more target models."""
        return (-(charger_models + target_models), -target_models)

    def move_rules(self, end_form: g.Formation | None = None) -> MoveRules:
        """What the move search takes from this ruleset (facing_frame.MoveRules): the ranking
        of contacts (:meth:`group_key`), the whole formation whose end footprint must fit
        when only the front edge is searched (``end_form``), and whether a contact nobody can
        align is offered. Every search of one charge asks with the same rules, so a search
        plan one builds (plan.SearchMemo) serves the next."""
        return MoveRules(self.group_key, end_form, self.unaligned != "none")

    def failed_distance_in(self, dice: tuple[int, ...]) -> float:
        """RULES.md 6: the highest single die of the charge roll."""
        return float(max(dice))

    def cannot_make_a_move(self, charger: g.Unit) -> str | None:
        """Why ``charger`` cannot make a charge move at all, if it cannot."""
        return None

    # -- for clients ---------------------------------------------------------------------

    def to_json(self) -> dict:
        """Name, title and dice (GET /api/rulesets): the page asks for the right dice."""
        return {"name": self.name, "title": self.title, "dice": self.dice(False).to_json(),
                "dice_swiftstride": self.dice(True).to_json(),
                "range_measure": self.range_measure, "swept": self.swept}


def front_rank_centres(charger: g.Unit) -> list[tuple[float, float]]:
    """The base centres of the charger's front-rank models (tow 1.1 [D])."""
    form, pose = charger.formation, charger.pose
    out = []
    for _, file in g.front_files(form):
        u0, u1, v0, v1 = form.base_local(0, file)
        out.append(pose.to_world((u0 + u1) / 2, (v0 + v1) / 2))
    return out


def most(counts: dict[str, float]) -> list[str]:
    """The arcs holding the most models (a tie lists more)."""
    best = max(counts.values())
    return [k for k, v in counts.items() if abs(v - best) <= 1e-9]


def front_rank_counts(charger: g.Unit, target: g.Unit) -> dict[str, float]:
    """The charger's front-rank model base centres in each of the target's arcs (tow 1.1 [D]:
    a model is in the arc holding its base centre; a centre exactly on a ray counts half to
    each arc)."""
    arcs = target.body.arcs
    centres = front_rank_centres(charger)
    inside = shapely.dwithin(np.array([arcs[n] for n in g.FACINGS])[:, None],
                             shapely.points(np.asarray(centres))[None, :], 1e-7)  # (4, files)
    share = inside / np.maximum(inside.sum(axis=0), 1)[None, :]
    return {name: float(v) for name, v in zip(g.FACINGS, share.sum(axis=1), strict=True)}
