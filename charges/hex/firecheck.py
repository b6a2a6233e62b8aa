"""La Bataille fire restrictions around assaults (seed 000, "Asalto y Fuego de Combate",
"Artillería como Objetivo", "Unidades no asaltantes", "Fuego de Oportunidad"; HEX.md 7.1):
may unit U fire at V now?

A unit is involved in an assault when it carries an assault marker or stands in the target hex
of an enemy's marker. ``segment`` is ``fire`` (the fire segment), ``artillery_chit`` (the
Artillery chit of the maneuver segment) or ``opportunity`` (opportunity fire).
"""

from __future__ import annotations

from typing import Any

from .errors import HexRequestError
from .position import HexUnit
from .ruling import Context, unit_of

SEGMENTS = ("fire", "artillery_chit", "opportunity")


def involved(ctx: Context, u: HexUnit) -> bool:
    for m in ctx.position.markers:
        if m.kind != "assault":
            continue
        if m.unit == u.id:
            return True
        by = ctx.position.by_id.get(m.unit or "")
        if m.target_hex in u.hexes and by is not None and by.side != u.side:
            return True
    return False


def not_top(ctx: Context, u: HexUnit) -> list[str]:
    """The units that keep artillery ``u`` from being the top unit of its stack (HEX.md 7.1
    "Infantería y Artillería", 8.2): non-artillery units above it, and infantry of its hex
    that carries an assault marker (a declared assault moves that infantry to the top). Such
    a battery "cannot fire (not top unit)"; an empty list means it is on top (a stack of
    batteries counts as on top together)."""
    marked = {m.unit for m in ctx.position.markers if m.kind == "assault"}
    over: list[str] = []
    for h in u.hexes:
        stack = ctx.position.stack(h)
        above = stack[:stack.index(u)] if u in stack else []
        over += [o.id for o in above if not ctx.ruleset.is_artillery(o) and o.id not in over]
        over += [o.id for o in stack if o.id in marked and o.type == "infantry"
                 and o.side == u.side and o.id not in over]
    return over


def resolve(ctx: Context, firer: Any, target: Any, segment: Any = "fire") -> dict:
    if segment not in SEGMENTS:
        raise HexRequestError("segment", f"{segment!r} is not one of {', '.join(SEGMENTS)}")
    f = unit_of(ctx, firer, "firer")
    t = unit_of(ctx, target, "target")
    f_in, t_in = involved(ctx, f), involved(ctx, t)
    arty = ctx.ruleset.is_artillery(f)
    if segment == "opportunity" and f_in:
        ctx.refuse("FIRE_NO_OPPORTUNITY", "Fuego de Oportunidad", f"{f.id} is in an assault "
                   f"and may not make opportunity fire", units=[f.id])
    elif segment == "fire" and f_in and not arty:
        ctx.refuse("FIRE_ASSAULT_INVOLVED", "Asalto y Fuego de Combate", f"{f.id} is in an "
                   f"assault: it fires offensively or defensively in the assault segment, not "
                   f"now", units=[f.id])
    elif f_in and arty and segment == "artillery_chit":
        ctx.note("FIRE_ARTILLERY_TARGET_MAY_FIRE", "Artillería como Objetivo", f"{f.id} is the "
                 f"target of an assault and may fire on the Artillery chit", units=[f.id])
    over = not_top(ctx, f) if arty else []
    if over:
        ctx.refuse("FIRE_NOT_TOP_UNIT", "Infantería y Artillería", f"{f.id} is not the top "
                   f"unit of its stack ({', '.join(over)} above it or assaulting from it): it "
                   f"cannot fire", units=[f.id, *over])
    if not f_in and t_in:
        ctx.refuse("FIRE_AT_ASSAULT_INVOLVED", "Unidades no asaltantes", f"{f.id} is neither "
                   f"assaulting nor assaulted and may not fire at {t.id}, which is",
                   units=[f.id, t.id])
    ctx.say(f"{f.id} {'may' if not ctx.refused else 'may not'} fire at {t.id} now.")
    return ctx.ruling(firer=f.id, target=t.id, segment=segment)
