"""La Bataille Mayhem (seed 000, "Mayhem"; HEX.md 7.2): in the assault segment, assaulters
whose target hex has been vacated keep their markers and must advance into it, keep their
distance marker, and may then assault any unit in their front from there."""

from __future__ import annotations

from typing import Any

from geometry import hexfacing as hf
from geometry import hexgrid as hg

from .errors import HexRequestError
from .fields import map_hex
from .ruling import Context, id_list, unit_of


def mayhem(ctx: Context, stacks: list[Any], empty: list[hg.Hex], distance: int | None) -> dict:
    if ctx.position.turn.get("phase") != "assault":
        ctx.refuse("ASSAULT_NO_TARGET", "Restricciones a un asalto",
                   f"{[list(h) for h in empty]} holds no enemy unit", hexes=empty)
        return ctx.ruling(approach_distance=distance, melee=[], stack_order=[],
                          targets=[])
    st = stacks[0]
    lead = st.units[0]
    to = empty[0]
    # HEX.md 7.2 (E16a): Mayhem continues an assault already marked: the empty hex must be the
    # target hex of the stack's own assault marker. No marker, or another hex, is no assault.
    marked = [m.target_hex for m in ctx.position.markers
              if m.kind == "assault" and m.unit in {u.id for u in st.units}
              and m.target_hex is not None]
    if to not in marked:
        why = (f"its assault marker targets {', '.join(str(list(h)) for h in marked)}"
               if marked else f"{lead.id} carries no assault marker")
        ctx.refuse("ASSAULT_NO_TARGET", "Mayhem", f"{list(to)} holds no enemy unit and is not "
                   f"a vacated target: {why}", units=[u.id for u in st.units], hexes=[to])
        return ctx.ruling(approach_distance=distance, melee=[], stack_order=[], targets=[])
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


OUTCOMES = ("assaulters_eliminated", "defenders_eliminated", "defender_consolidated",
            "attacker_consolidated")


def after_fire(ctx: Context, assault: Any = None, target: Any = None, outcome: Any = None,
               vacated: Any = None) -> dict:
    """Mayhem and offensive or defensive fire (seed 000; HEX.md 7.2): where the assault goes
    after the fire of the assault segment. ``outcome`` is one of :data:`OUTCOMES`; for a
    consolidated multi-hex defender, ``vacated`` is the hex it left (the position shows it on
    its remaining hexes). Steps are those of 16.1.1."""
    if outcome not in OUTCOMES:
        raise HexRequestError("outcome", f"{outcome!r} is not one of {', '.join(OUTCOMES)}")
    units = [unit_of(ctx, a, f"assault[{i}]") for i, a in enumerate(id_list(assault, "assault"))]
    tgt = unit_of(ctx, target, "target")
    if not units:
        raise HexRequestError("assault", "the assaulting units are needed")
    rule = "Mayhem y Fuego Ofensivo y Defensivo"
    advances: list[dict] = []
    if outcome == "assaulters_eliminated":
        step, why = 8, "every assaulter was eliminated by defensive fire: the assault ends"
    elif outcome == "defenders_eliminated":
        step, why = 6, "every defender was eliminated by offensive fire"
    elif outcome == "attacker_consolidated":
        touching = any(u.adjacent_to(h) for u in units for h in tgt.hexes)
        step, why = (None, "the consolidated assaulter is still adjacent: the assault goes on") \
            if touching else (8, "the consolidated assaulter is no longer adjacent: the "
                              "assault ends")
    else:
        if vacated is None:
            raise HexRequestError("vacated", "the hex the consolidated defender left")
        gone = map_hex(ctx.position.map, vacated, "vacated")
        step, why = None, "the assault goes on against the same unit"
        for u in units:
            if any(u.adjacent_to(h) for h in tgt.hexes):
                continue
            # Advance into the vacated hex without changing facing (HEX.md 7.2).
            front = {h for h, a in hf.aspects([gone], u.facing, u.model).items() if a == "front"}
            goes_on = bool(front & set(tgt.hexes))
            advances.append({"unit": u.id, "to": list(gone), "continues": goes_on})
            if not goes_on:
                step, why = 8, (f"{u.id} advances into {list(gone)} but its facing does not "
                                f"allow it to assault {tgt.id}: the assault ends")
    ctx.note("MAYHEM_AFTER_FIRE", rule, why, units=[u.id for u in units])
    ctx.say(f"{why[0].upper()}{why[1:]}" + (f" (go to step {step} of 16.1.1)." if step
                                             else "."))
    return ctx.ruling(outcome=outcome, next_step=step, advances=advances,
                      assault_continues=step is None or step == 6)
