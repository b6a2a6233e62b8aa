"""Cavalry incorporation and wagons of Musket & Pike (seed 004; HEX.md 6.5-6.6, D-12).

Incorporation: moving cavalry M enters the hex of stationary cavalry S of its side to absorb
it; S is removed (scored as eliminated), M recovers ``min(M.casualties, S.current)``, takes the
worse morale, and stops. Wagons (8.5): a wagon lies under any cavalry or infantry; never with
artillery or another wagon; an enemy cavalry or infantry unit entering its hex captures it.
"""

from __future__ import annotations

from typing import Any

from .errors import PositionError
from .fields import map_hex
from .ruling import Context, unit_of

RULE = "Cavalry Incorporation"


def resolve(ctx: Context, mover: Any, absorbed: Any) -> dict:
    m = unit_of(ctx, mover, "mover")
    s = unit_of(ctx, absorbed, "absorbed")
    for u in (m, s):
        if not ctx.ruleset.is_cavalry(u):
            ctx.refuse("INC_NOT_CAVALRY", RULE, f"{u.id} is not cavalry", units=[u.id])
    if m.side != s.side:
        ctx.refuse("INC_NOT_SAME_SIDE", RULE, f"{m.id} and {s.id} are on different sides",
                   units=[m.id, s.id])
    if m is s:
        ctx.refuse("INC_SAME_UNIT", RULE, "a unit cannot absorb itself", units=[m.id])
    if not m.casualties:
        ctx.refuse("INC_NO_LOSSES", RULE, f"{m.id} has no casualties to recover",
                   units=[m.id])
    if ctx.refused:
        return ctx.ruling(result=None)
    _need_values(m, s)
    current = s.current_strength
    recovered = min(m.casualties, current)
    lost = current - recovered
    worse = ctx.opt("incorporation_morale")
    morale = (min if worse == "lower" else max)(m.morale, s.morale)
    result = {"mover": m.id, "removed": s.id, "removed_counts_as_eliminated": True,
              "recovered": recovered, "points_lost": lost,
              "strength_after": (m.current_strength or 0) + recovered,
              "casualties_after": m.casualties - recovered, "morale_after": morale,
              "movement_ends": True, "hex": list(s.hexes[0])}
    ctx.say(f"{s.id} is removed and counts as eliminated; {m.id} recovers {recovered} of its "
            f"{m.casualties} casualties" + (f" and {lost} point(s) are lost" if lost else "")
            + f"; its morale becomes {morale}, the worse of the two; its move ends ({RULE}).")
    return ctx.ruling(result=result)


def _need_values(m: Any, s: Any) -> None:
    """HEX.md 6.5 needs ``min(M.casualties, S.current_strength)`` and the worse of the two
    morales: without a strength or a morale neither can be worked out, so (as in close combat)
    the position is refused with ``FIELD_MISSING`` naming the unit and field, never read as 0."""
    for u in (m, s):
        for name, value in (("strength_printed", u.strength_printed), ("morale", u.morale)):
            if value is None:
                raise PositionError("FIELD_MISSING", u.where, name,
                                    "cavalry incorporation needs both units' strength and "
                                    "morale", units=[u.id])


def enter(ctx: Context, unit: Any, hex: Any) -> dict:
    """What entering ``hex`` does with wagons there (8.5, 14.1)."""
    u = unit_of(ctx, unit, "unit")
    h = map_hex(ctx.position.map, hex, "hex")
    here = [o for o in ctx.position.stack(h) if o is not u]
    wagons = [o for o in here if o.type == "wagon"]
    captured, under = [], []
    for w in wagons:
        if u.type == "artillery":
            ctx.refuse("WAGON_STACKED_WITH_ARTILLERY", "8.5", f"{u.id} may not stack with wagon "
                       f"{w.id}", units=[u.id, w.id], hexes=[h])
        elif u.type == "wagon":
            ctx.refuse("WAGON_STACKED_WITH_WAGON", "8.5", f"{u.id} may not stack with wagon "
                       f"{w.id}", units=[u.id, w.id], hexes=[h])
        elif w.side != u.side:
            captured.append(w.id)
            ctx.note("WAGON_CAPTURED", "14.1", f"{u.id} captures wagon {w.id}",
                     units=[u.id, w.id], hexes=[h])
        else:
            under.append(w.id)
            ctx.note("WAGON_PLACED_UNDER", "8.5", f"wagon {w.id} goes under {u.id}, at once and "
                     f"free", units=[w.id], hexes=[h])
    if u.type == "wagon" and any(o.type == "artillery" for o in here):
        ctx.refuse("WAGON_STACKED_WITH_ARTILLERY", "8.5", f"wagon {u.id} may not stack with "
                   f"artillery", units=[u.id], hexes=[h])
    ctx.say(f"{u.id} enters {list(h)}: " + ("; ".join(r["message"] for r in ctx.reasons)
                                           or "no wagon there") + ".")
    return ctx.ruling(captured=captured, placed_under=under, hex=list(h))
