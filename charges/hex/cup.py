"""The La Bataille chit cup of the maneuver segment (seed 002, "Segmento de Maniobra"; HEX.md
8.1-8.2, D-16, D-17): a seeded simulator and a replay of a recorded draw order, saying what each
chit activates and in what order.

The cup holds the four action chits (one shared set, D-16) and one chit per maneuver unit;
chits are drawn without replacement until the cup is empty; drawers alternate starting with the
initiative side (D-17). A maneuver-unit chit activates its owner's unit whoever drew it.
"""

from __future__ import annotations

import random
import secrets
from typing import Any

from .errors import HexRequestError
from .firecheck import not_top
from .position import ACTION_CHITS, Position
from .rally import rally_blocker
from .ruling import Context

ACTIONS = ACTION_CHITS
#: A draw without ``seed`` or ``order`` gets a fresh seed below this, reported in the ruling
#: (``seed``) so that ``--seed N`` replays it (HEX.md 8.1: the simulator is seeded).
FRESH_SEED_BELOW = 2**31
RULE = "Segmento de Maniobra"


def sides(pos: Position) -> list[str]:
    found = [m["side"] for m in pos.maneuver_units] + pos.sides()
    out: list[str] = []
    for s in [pos.turn.get("initiative_side")] + found:
        if s and s not in out:
            out.append(s)
    return out


def cup_chits(ctx: Context) -> list[str]:
    """The chits in the cup: action chits (shared, or ``SIDE:name`` per side) and MU ids."""
    pos = ctx.position
    if ctx.opt("action_chits") == "per_side":
        actions = [f"{s}:{a}" for s in sides(pos) for a in ACTIONS]
    else:
        actions = list(ACTIONS)
    return actions + [m["id"] for m in pos.maneuver_units]


def shuffled(chits: list[str], seed: int) -> list[str]:
    """The simulator's draw order: ``random.Random(seed)`` shuffles the cup (HEX.md 8.1)."""
    order = list(chits)
    random.Random(seed).shuffle(order)
    return order


def _drawers(ctx: Context, n: int) -> list[str]:
    ss = sides(ctx.position)
    if not ss:
        return [""] * n
    if ctx.opt("drawer") == "initiative_always" or len(ss) == 1:
        return [ss[0]] * n
    return [ss[i % 2] for i in range(n)]


def _first(drawer: str, ss: list[str]) -> list[str]:
    return [drawer] + [s for s in ss if s != drawer]


def _artillery(ctx: Context, entry: dict) -> None:
    """Artillery chit: every unlimbered battery with ammunition that is the top unit of its
    stack fires, all at once; howitzers only on the hour."""
    clock = str(ctx.position.turn.get("clock", ""))
    on_hour = clock.endswith(":00")
    for u in ctx.position.units:
        if not ctx.ruleset.is_artillery(u):
            continue
        if u.formation != "unlimbered":
            entry["blocked"].append({"unit": u.id, "code": "CHIT_LIMBERED"})
        elif u.state.get("ammunition", True) is False:
            entry["blocked"].append({"unit": u.id, "code": "CHIT_NO_AMMUNITION"})
        elif u.subtype == "howitzer" and not on_hour:
            entry["blocked"].append({"unit": u.id, "code": "CHIT_HOWITZER_NOT_ON_HOUR"})
        elif not_top(ctx, u):
            # HEX.md 7.1, 8.2: only artillery on top of its stack fires; one under infantry,
            # or under infantry that has declared an assault, does not.
            entry["blocked"].append({"unit": u.id, "code": "CHIT_NOT_TOP_UNIT"})
        else:
            entry["acts"].append(u.id)


def _leaders(ctx: Context, entry: dict, order: list[str]) -> None:
    in_mu = {uid for m in ctx.position.maneuver_units for uid in m.get("units", [])}
    for side in order:
        for ld in ctx.position.leaders:
            if ld.side != side:
                continue
            if ld.moved:
                entry["blocked"].append({"unit": ld.id, "code": "CHIT_LEADER_ALREADY_MOVED"})
            elif ld.id in in_mu:
                entry["blocked"].append({"unit": ld.id, "code": "CHIT_LEADER_IN_MU"})
            else:
                entry["leaders"].append(ld.id)


def _rally(ctx: Context, entry: dict, order: list[str]) -> None:
    """Rally chit (HEX.md 8.2-8.3): the units that may make a rally move, drawer's side first,
    by the rally ruling's own eligibility (:func:`rally.rally_blocker`): out of command (the
    flag, or else out of its leader's range), not stacked with a leader, not adjacent to an
    enemy. An out-of-command unit that is barred is listed in ``blocked`` with its code."""
    for side in order:
        for u in ctx.position.units:
            if u.side != side:
                continue
            code = rally_blocker(ctx, u)
            if code is None:
                entry["units"].append(u.id)
            elif code not in ("RALLY_IN_COMMAND", "RALLY_NO_SUPERIOR"):
                entry["blocked"].append({"unit": u.id, "code": code})


def _action(ctx: Context, chit: str, drawer: str, entry: dict) -> None:
    ss = sides(ctx.position)
    side, _, name = chit.rpartition(":")
    acting = side or drawer
    order = _first(acting, ss)
    entry["side"] = acting
    if name == "reinforcements":
        due = [r for r in (ctx.position.reinforcements or [])]
        by_side = [s for s in order if any(_side_of(ctx, r) == s for r in due)]
        if not due:
            entry["code"] = "CHIT_NO_EFFECT"
            entry["reasons"].append({"code": "CHIT_NO_EFFECT", "rule": RULE,
                                     "message": "no reinforcements are scheduled this turn"})
        entry["acts"] = by_side
    elif name == "artillery":
        _artillery(ctx, entry)
    elif name == "leaders":
        entry["acts"], entry["leaders"] = order, []
        _leaders(ctx, entry, order)
    else:
        entry["acts"], entry["units"] = order, []
        _rally(ctx, entry, order)


def _side_of(ctx: Context, r: Any) -> str | None:
    if isinstance(r, dict):
        return r.get("side")
    u = ctx.position.by_id.get(r) if isinstance(r, str) else None
    return u.side if u else None


def _sentence(e: dict) -> str:
    what = {"mu": "maneuver unit activates", "reinforcements": "reinforcements enter",
            "artillery": "artillery fires (simultaneously)", "leaders": "leaders move",
            "rally": "rally moves"}[e["type"]]
    if e.get("code") == "CHIT_NO_EFFECT":
        return f"Draw {e['n']} ({e['drawn_by']}): {e['chit']}: no effect, none scheduled."
    acts = ", ".join(e["acts"]) or "no one"
    return f"Draw {e['n']} ({e['drawn_by']} draws): {e['chit']}: {what}: {acts}."


def resolve(ctx: Context, seed: Any = None, order: Any = None) -> dict:
    chits = cup_chits(ctx)
    mus = {m["id"]: m for m in ctx.position.maneuver_units}
    if order is not None:
        if isinstance(order, str):
            order = [c.strip() for c in order.split(",") if c.strip()]
        if not isinstance(order, list) or not all(isinstance(c, str) for c in order):
            raise HexRequestError("order", "a list of chit names", "BAD_ORDER")
        unknown = [c for c in order if c not in chits]
        if unknown:
            raise HexRequestError("order", f"{', '.join(unknown)} not in the cup (it holds "
                                  f"{', '.join(chits)})", "CUP_UNKNOWN_CHIT")
        draws_list = order
    else:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise HexRequestError("seed", f"{seed!r} is not a whole number", "BAD_SEED")
        if seed is None:
            # HEX.md 8.1: a random draw, but a seeded one: a fresh seed each time, reported
            # so the same draw can be replayed with --seed N.
            seed = secrets.randbelow(FRESH_SEED_BELOW)
            ctx.say(f"No seed was given: this draw used the fresh random seed {seed} "
                    f"(replay it with --seed {seed}).")
        draws_list = shuffled(chits, seed)
    drawers = _drawers(ctx, len(draws_list))
    draws, seen = [], set()
    for n, (chit, drawer) in enumerate(zip(draws_list, drawers, strict=True), start=1):
        if chit in seen:
            ctx.refuse("CUP_DUPLICATE_CHIT", RULE, f"{chit} is drawn twice; chits are drawn "
                       f"without replacement")
            continue
        seen.add(chit)
        e: dict[str, Any] = {"n": n, "chit": chit, "drawn_by": drawer, "side": drawer,
                             "acts": [], "blocked": [], "reasons": []}
        if chit in mus:
            e.update(type="mu", side=mus[chit]["side"], acts=[chit],
                     units=list(mus[chit].get("units", [])))
        else:
            e["type"] = chit.rpartition(":")[2]
            _action(ctx, chit, drawer, e)
        draws.append(e)
        ctx.say(_sentence(e))
    left = [c for c in chits if c not in seen]
    if left:
        ctx.note("CUP_NOT_EMPTY", RULE, f"{len(left)} chit(s) still in the cup: "
                 f"{', '.join(left)}")
    else:
        ctx.say("The cup is empty: the maneuver segment ends.")
    ctx.decide("D-16")
    ctx.decide("D-17")
    return ctx.ruling(draws=draws, cup=chits, remaining=left,
                      seed=seed if order is None else None)
