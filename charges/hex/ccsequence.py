"""The close-combat sequence of Musket & Pike (11.2; HEX.md 5.5, D-9): who may be designated,
and the order the combats are resolved in. No dice are needed.

Request: ``designations`` (the active player's combats, each ``{"attackers": [ids],
"defender": id}``), ``reactions`` (the inactive player's reaction combats, same shape), and
``order`` (the proposed resolution order, a list of defender ids). ``line_axis`` (a side 0..5)
gives the line along which combats are taken in turn (D-9).
"""

from __future__ import annotations

from typing import Any

from geometry import hexgrid as hg

from .errors import HexRequestError
from .ruling import Context, id_list, unit_of


def _combats(ctx: Context, value: Any, field: str) -> list[dict]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise HexRequestError(field, "must be a list of {attackers, defender}")
    out = []
    for i, c in enumerate(value):
        if not isinstance(c, dict):
            raise HexRequestError(f"{field}[{i}]", "must be {attackers, defender}")
        d = unit_of(ctx, c.get("defender"), f"{field}[{i}].defender")
        atk = [unit_of(ctx, a, f"{field}[{i}].attackers")
               for a in id_list(c.get("attackers"), f"{field}[{i}].attackers")]
        out.append({"defender": d, "attackers": atk})
    return out


def _along(ctx: Context, group: list[dict], order: list[str], axis: int) -> bool:
    """D-9: combats taken from one end of the line to the other (either end)."""
    if ctx.opt("cc_line_order") == "free" or len(group) < 3:
        return True
    dq, dr = hg.DIRS[axis]
    pos = {c["defender"].id: min(h[0] * dq + h[1] * dr + 0.0 for h in c["defender"].hexes)
           for c in group}
    seq = [pos[d] for d in order if d in pos]
    return seq == sorted(seq) or seq == sorted(seq, reverse=True)


def resolve(ctx: Context, designations: Any = None, reactions: Any = None, order: Any = None,
            line_axis: Any = None) -> dict:
    active = _combats(ctx, designations, "designations")
    inactive = _combats(ctx, reactions, "reactions")
    targets = {c["defender"].id for c in active}
    for c in inactive:
        for a in c["attackers"]:
            if a.id in targets:
                ctx.refuse("CC_REACTION_BY_TARGET", "11.2", f"{a.id} is already the target of "
                           f"a close combat and may not make a reaction close combat",
                           units=[a.id])
    order = list(order or [c["defender"].id for c in inactive + active])
    first_active = min((i for i, d in enumerate(order) if d in targets), default=len(order))
    if any(d in {c["defender"].id for c in inactive} for d in order[first_active:]):
        ctx.refuse("CC_ORDER_ACTIVE_BEFORE_REACTION", "11.2", "every reaction close combat is "
                   "resolved before the active player's combats")
    axis = line_axis if isinstance(line_axis, int) and 0 <= line_axis <= 5 else 2
    for name, group in (("reaction", inactive), ("active", active)):
        if not _along(ctx, group, order, axis):
            ctx.refuse("CC_ORDER_NOT_ALONG_LINE", "11.2", f"the {name} combats are not taken "
                       f"in turn from one end of the line to the other")
    momentum = [a.id for c in active for a in c["attackers"] if a.state.get("momentum")]
    if momentum and inactive:
        ctx.note("MOM_KEPT_IF_ATTACK_STILL_POSSIBLE", "11.3.6a",
                 "a unit attacked by reaction close combat keeps its Momentum if it can still "
                 "make its original attack", units=momentum)
    hits = sorted({u.id for c in active + inactive for u in [c["defender"], *c["attackers"]]
                   if u.formation not in ctx.ruleset.no_formation_hit_formations})
    ctx.say("The inactive player's reaction combats are resolved first, from one end of the "
            "line to the other, then the active player's (11.2).")
    return ctx.ruling(order=order, formation_hits=hits)
