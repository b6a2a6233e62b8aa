"""La Bataille Mayhem (seed 000, "Mayhem"; HEX.md 7.2): in the assault segment, assaulters
whose target hex has been vacated keep their markers and must advance into it, keep their
distance marker, and may then assault any unit in their front from there."""

from __future__ import annotations

from typing import Any

from geometry import hexfacing as hf
from geometry import hexgrid as hg

from .ruling import Context


def mayhem(ctx: Context, stacks: list[Any], empty: list[hg.Hex], distance: int | None) -> dict:
    if ctx.position.turn.get("phase") != "assault":
        ctx.refuse("ASSAULT_NO_TARGET", "Restricciones a un asalto",
                   f"{[list(h) for h in empty]} holds no enemy unit", hexes=empty)
        return ctx.ruling(approach_distance=distance, melee=[], stack_order=[],
                          targets=[])
    st = stacks[0]
    lead = st.units[0]
    to = empty[0]
    if not any(hg.distance(h, to) == 1 for h in st.hexes):
        ctx.refuse("ASSAULT_NOT_ADJACENT", "Mayhem", f"{list(to)} is not adjacent to "
                   f"{lead.id}", hexes=[to])
        return ctx.ruling(approach_distance=distance, melee=[], stack_order=[], targets=[])
    # The stack advances without changing facing; its front is seen from the new hex.
    asp = hf.aspects([to], lead.facing, lead.model)
    new = sorted({u.id for h, a in asp.items() if a == "front"
                  for u in ctx.position.stack(h) if u.side != lead.side})
    ctx.note("MAYHEM_ADVANCE_REQUIRED", "Mayhem", f"the target has left {list(to)}: the "
             f"assaulters keep their markers and must advance into it (as an advance after "
             f"Retreat Before Assault, 16.3.7); the distance marker stays at {distance}; they "
             f"may then assault any unit in their front: {', '.join(new) or 'none'}",
             units=[u.id for u in st.units], hexes=[to])
    ctx.note("OPPORTUNITY_REACTIONS_POSSIBLE", "11.2.1.1", "the advance may provoke "
             "opportunity reactions", units=[u.id for u in st.units])
    ctx.say(f"Mayhem: {', '.join(u.id for u in st.units)} must advance into {list(to)}, keep "
            f"distance {distance}, and may then assault {', '.join(new) or 'no one'}.")
    return ctx.ruling(approach_distance=distance, melee=[], stack_order=[u.id for u in st.units],
                      targets=[], advance_to=list(to), new_targets=new)
