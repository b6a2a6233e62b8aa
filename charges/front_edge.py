"""Searching a charger whose front edge alone is swept (tow 1.4, FAQ: "a rear corner may pass";
RULES-editions.md 6, swept_shape).

Every step of a charge path moves the front edge the same way whatever is behind it: the
forward moves along the facing, the wheel about a front corner, the align about a point of
the front. So the search of the front edge alone is the search of a *strip* standing on the
front edge (the whole frontage, a hair deep), started where that strip stands, with the end
footprints of the whole formation required clear (MoveRules.end_form). Its moves are then the
unit's: the same steps, every pose moved back by the strip's offset from the unit's centre.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import geometry as g

from .charge_move import ChargeMove

#: The depth (mm) of the strip that stands for the front edge: far below any base, far above
#: the tolerance.
STRIP_MM = 0.5


@dataclass(frozen=True)
class Mover:
    """What the search needs of a moving unit: its id, formation and pose."""

    id: str
    formation: g.Formation
    pose: g.Pose


def strip_of(unit: g.Unit) -> tuple[Mover, float]:
    """The strip on ``unit``'s front edge and how far its centre lies ahead of the unit's."""
    form = unit.formation
    strip = g.Formation.full((form.base_w, STRIP_MM), form.files, 1)
    ahead = (form.depth - STRIP_MM) / 2
    return Mover(unit.id, strip, g.forward(unit.pose, ahead)), ahead


def unit_move(move: ChargeMove, unit: g.Unit, ahead: float) -> ChargeMove:
    """The strip's move as the unit's: the same steps from the unit's start; the final pose
    moved back by ``ahead`` along its facing."""
    return replace(move, start=unit.pose, final=g.forward(move.final, -ahead), candidate=None,
                   strip=move)
