"""A chosen charge move (RULES.md 4) and the groups of end positions no legal path reached,
with why: what every search returns and every report reads."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import geometry as g

from .candidates import Candidate, Family
from .facing_frame import FacingFrame


@dataclass
class Rejected:
    """A better group of end positions that no legal path reaches, and why."""

    charger_models: int
    target_models: int
    reason: str

    @property
    def models(self) -> int:
        return self.charger_models + self.target_models


@dataclass
class ChargeMove:
    """A chosen charge move (RULES.md 4)."""

    charger: str
    target: str
    facing: g.FacingName
    start: g.Pose
    steps: list[g.Step]
    final: g.Pose
    align_point: tuple[float, float] | None
    align_deg: float
    target_turn_deg: float
    target_final: g.Pose | None
    charger_models: int
    target_models: int
    charger_slots: frozenset[tuple[int, int]]
    target_slots: frozenset[tuple[int, int]]
    length_mm: float
    wheel_deg: float
    s: float
    family: Family
    rejected: list[Rejected] = field(default_factory=list)
    target_pivot: tuple[float, float] | None = None  # where the target turned, if it did
    #: Which models it puts in contact, as numbered in its search's plan (SearchPlan).
    contact_id: int = -1
    #: The path as the search built it, for a later refinement (polish_move).
    candidate: Candidate | None = None
    #: False when nobody could align and the move ends at first contact (tow 1.5: the gap is
    #: left; whfb8 2.5: the charge fails).
    aligned: bool = True
    #: A front-edge search's own move (charges/front_edge.py), kept on the unit's move made
    #: from it so that it can still be refined.
    strip: ChargeMove | None = None

    @property
    def models(self) -> int:
        return self.charger_models + self.target_models

    def key(self) -> tuple:
        """Priority tuple for ranking moves of one charger (smaller is better)."""
        return (round(abs(self.target_turn_deg), 6), -self.models, round(self.length_mm, 6),
                round(abs(self.wheel_deg), 6),
                round(math.hypot(self.final.x - self.start.x, self.final.y - self.start.y), 6))


def _describe_block(counter: Counter) -> str:
    if not counter:
        return "no path with at most one wheel of 90 degrees ends there"
    (what, _), = counter.most_common(1)
    return what


def _finish(charger: g.Unit, target: g.Unit, frame: FacingFrame, cand: Candidate,
            target_turns: bool, rejected: list[Rejected], count: bool = True,
            contact_id: int = -1, aligned: bool = True) -> ChargeMove:
    """The ChargeMove of a legal candidate: the charger aligning, the target turning
    (``target_turns``), or nobody (``aligned=False``: the move ends at first contact)."""
    steps = cand.steps()
    tf: g.Pose | None = None
    align_point = cand.align_point if abs(cand.align_deg) > 1e-9 else None
    target_pivot = None
    if not aligned:
        final, turn, align_point = cand.pre_align, 0.0, None
    elif target_turns:
        target_pivot, align_point = align_point, None
        final = cand.pre_align
        tf = target.pose.rotated(cand.align_point, -cand.align_deg)  # type: ignore[arg-type]
        turn = -cand.align_deg
    else:
        final = cand.final
        turn = 0.0
        if align_point is not None:
            steps.append(g.Align(align_point, cand.align_deg))
    cbody = g.Body(charger.formation, final)
    tbody = g.Body(target.formation, tf or target.pose)
    mc = g.models_in_contact(cbody, tbody) if count else \
        g.contact.ModelContacts(frozenset(), frozenset())
    return ChargeMove(charger.id, target.id, frame.name, charger.pose, steps, final, align_point,
                      0.0 if target_turns or not aligned else cand.align_deg, turn, tf,
                      len(mc.a_models), len(mc.b_models), mc.a_models, mc.b_models,
                      cand.length, cand.wheel_deg, cand.s, cand.family, rejected, target_pivot,
                      contact_id, cand, aligned)
