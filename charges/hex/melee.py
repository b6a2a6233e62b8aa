"""La Bataille melee values (seed 000, "Asaltando en Línea Multihexágono" and "Múltiples
apilamientos"; HEX.md 7.3, D-15).

A share attacks through its hex's aspect on the defender: front x1, flank x2, rear x
``rear_multiplier`` (rules data). A multi-hex unit splits its value equally among its hexes;
against two targets each melee gets the shares of the hexes in contact with it; against one,
D-15 lets every share fight (shares not in contact at x1). Several stacks against one defender
add their values into one melee.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from geometry import hexgrid as hg

from .errors import HexRequestError, PositionError
from .position import HexUnit
from .ruling import Context, MissingRulesData, num


def _multiplier(ctx: Context, aspect: str | None) -> Fraction:
    if aspect == "flank":
        return Fraction(2)
    if aspect == "rear":
        m = ctx.table("16.1.1", "rear_multiplier")
        if isinstance(m, bool) or not isinstance(m, int | float) or not math.isfinite(m) \
                or m <= 0:
            # HEX.md 14: ``rear_multiplier`` is a number; Infinity or NaN (which Python's JSON
            # reader accepts) would crash the exact arithmetic, so it is the user's bad data.
            raise HexRequestError("rules_data.rear_multiplier", f"{m!r} is not a finite "
                                  f"positive number", "BAD_RULES_DATA")
        return Fraction(m).limit_denominator(1000)
    return Fraction(1)


def _value(u: HexUnit) -> Fraction:
    """The unit's melee value (HEX.md 4: ``melee_value``): a finite number of 0 or more; a
    missing one is ``FIELD_MISSING``, NaN, Infinity or a negative one ``FIELD_INVALID`` (HEX.md
    13: validation errors name the unit and the field), never a traceback or a negative melee."""
    v = u.get("melee_value")
    if v is None:
        raise PositionError("FIELD_MISSING", u.where, "melee_value",
                            "an assault needs each assaulting unit's melee value", units=[u.id])
    if not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v) or v < 0:
        raise PositionError("FIELD_INVALID", u.where, "melee_value",
                            f"{v!r} is not a finite number of 0 or more", units=[u.id])
    return Fraction(v).limit_denominator(1000)


def _defender_view(g: Any) -> dict[hg.Hex, str]:
    """The aspects of the defender stack (its units share one facing; artillery aside)."""
    lead = next((u for u in g.units if u.type != "artillery"), g.units[0])
    return lead.aspects()


def _assign(unit_hexes: tuple[hg.Hex, ...], fronts: list[list[hg.Hex]]) -> dict[hg.Hex, int]:
    """Which target each hex of a multi-hex unit fights (a matching first, so that each target
    gets a hex of its own; then any hex left over joins the first target it touches)."""
    touch = {h: [i for i, f in enumerate(fronts) if any(hg.distance(h, t) == 1 for t in f)]
             for h in unit_hexes}
    best: dict[hg.Hex, int] = {}

    def place(i: int, used: dict[hg.Hex, int]) -> bool:
        nonlocal best
        if i == len(fronts):
            best = dict(used)
            return True
        return any(place(i + 1, {**used, h: i}) for h in unit_hexes
                   if h not in used and i in touch[h])

    place(0, {})
    for h in unit_hexes:
        if h not in best and touch[h]:
            best[h] = touch[h][0]
    return best


def _shares(ctx: Context, st: Any, g: Any, gi: int, fronts: list[list[hg.Hex]],
            view: dict[hg.Hex, str]) -> list[dict]:
    out = []
    two = len(fronts) > 1
    assign = _assign(st.hexes, fronts) if two else {}
    for u in st.units:
        share = _value(u) / len(u.hexes)
        for h in u.hexes:
            contact = [t for t in fronts[gi] if hg.distance(h, t) == 1]
            if two and assign.get(h) != gi:
                continue
            if not contact and ctx.opt("multihex_single_target") == "contact_only":
                continue
            if not contact and len(u.hexes) > 1:
                ctx.decide("D-15")
            aspect = view.get(h) if contact else None
            mult = _multiplier(ctx, aspect)
            out.append({"unit": u.id, "hex": list(h), "share": num(share),
                        "aspect": aspect or "not in contact", "multiplier": num(mult),
                        "value": num(share * mult)})
    return out


def melee_values(ctx: Context, stacks: list[Any], groups: list[Any],
                 fronts: dict[int, list[list[hg.Hex]]]) -> list[dict]:
    out = []
    for gi, g in enumerate(groups):
        view = _defender_view(g)
        shares: list[dict] = []
        try:
            for si, st in enumerate(stacks):
                shares += _shares(ctx, st, g, gi, fronts[si], view)
        except MissingRulesData:
            out.append({"id": g.units[0].id, "hex": list(g.hexes[0]),
                        "target": [u.id for u in g.units], "hexes": [list(h) for h in g.hexes],
                        "value": None, "shares": shares})
            continue
        total = sum((Fraction(s["value"]).limit_denominator(1000) for s in shares),
                    Fraction(0))
        out.append({"id": g.units[0].id, "hex": list(g.hexes[0]),
                    "target": [u.id for u in g.units], "hexes": [list(h) for h in g.hexes],
                    "value": num(total), "shares": shares})
        parts = " + ".join(f"{s['share']} x{s['multiplier']} ({s['aspect']})" for s in shares)
        ctx.say(f"Melee value against {', '.join(u.id for u in g.units)}: {parts} = "
                f"{num(total)} (Asaltando en Línea Multihexágono).")
    return out
