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


def _order(ctx: Context, order: Any, combats: list[dict]) -> list[str]:
    """The proposed resolution order (HEX.md 5.5 step 3): a list of defender ids, or one
    comma-separated string (the command line's form, HEX.md 14). Each designated combat's
    defender appears exactly once and nothing else does; anything else is a request error
    naming ``order`` (HEX.md 13: exit 2, 422), never a silent misreading."""
    defenders = list(dict.fromkeys(c["defender"].id for c in combats))
    if order is None or order == []:
        return defenders
    if isinstance(order, str):
        order = [d.strip() for d in order.split(",") if d.strip()]
    if not isinstance(order, list) or not all(isinstance(d, str) for d in order):
        raise HexRequestError("order", f"{order!r} must be a list of defender ids (or one "
                              f"comma-separated string)", "BAD_ORDER")
    for i, d in enumerate(order):
        if d not in defenders:
            raise HexRequestError(f"order[{i}]", f"{d!r} is not the defender of a designated "
                                  f"close combat ({', '.join(defenders) or 'none'})",
                                  "CC_ORDER_UNKNOWN_COMBAT")
        if d in order[:i]:
            raise HexRequestError(f"order[{i}]", f"{d!r} is listed twice", "CC_ORDER_DUPLICATE")
    left = [d for d in defenders if d not in order]
    if left:
        raise HexRequestError("order", f"the combats against {', '.join(left)} are missing: the "
                              f"order lists every designated combat", "CC_ORDER_INCOMPLETE")
    return order


def _is_active(ctx: Context, u: Any) -> bool:
    """A unit's ``state.active``; without it, whether its side is ``turn.active_side``."""
    flag = u.state.get("active")
    if flag is not None:
        return bool(flag)
    return u.side == ctx.position.turn.get("active_side")


def _check_reactions(ctx: Context, active: list[dict], inactive: list[dict]) -> None:
    """HEX.md 5.5 step 2: reaction close combats are made by inactive units that are not
    already targets (``CC_REACTION_BY_TARGET``), against active (enemy) units; a reaction by an
    active unit is ``CC_REACTION_BY_ACTIVE``, one against a unit of its own side or an inactive
    one ``CC_REACTION_TARGET_NOT_ACTIVE``."""
    targets = {c["defender"].id for c in active}
    for c in inactive:
        d = c["defender"]
        for a in c["attackers"]:
            if a.id in targets:
                ctx.refuse("CC_REACTION_BY_TARGET", "11.2", f"{a.id} is already the target of "
                           f"a close combat and may not make a reaction close combat",
                           units=[a.id])
            elif _is_active(ctx, a):
                ctx.refuse("CC_REACTION_BY_ACTIVE", "11.2", f"{a.id} is active: only the "
                           f"inactive player's inactive units make reaction close combats",
                           units=[a.id])
        if any(a.side == d.side for a in c["attackers"]) or not _is_active(ctx, d):
            ctx.refuse("CC_REACTION_TARGET_NOT_ACTIVE", "11.2", f"{d.id} is not an active enemy "
                       f"unit: a reaction close combat's target is an active unit",
                       units=[d.id, *(a.id for a in c["attackers"])])


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
    _check_reactions(ctx, active, inactive)
    order = _order(ctx, order, inactive + active)
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
