"""Musket & Pike close combat (series rules 11.2-11.3; HEX.md 5.1-5.3): who is in the combat,
the ten modifier slots, each with its rule number, and the +-4 cap.

The attacker rolls and a higher roll is better for the attacker, so "most favourable to the
defender" (11.3.1) is the lowest candidate value: that is the tie rule of every slot where
several values compete.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from geometry import hexgrid as hg

from .errors import HexRequestError, PositionError
from .odds import combat_odds, halve
from .position import HexUnit
from .ruling import Context, MissingRulesData, id_list, num, unit_of
from .slots import SLOTS, Combat, signed

CAP = 4  # 11.3.1: the sum of modifiers is held to -4..+4


def _defenders(ctx: Context, target: HexUnit) -> list[HexUnit]:
    """D-1: every non-artillery combat unit of the target's side in the target's hex(es) when
    the option is ``combine``; the target alone with ``target_only``."""
    rs = ctx.ruleset
    others = [u for h in target.hexes for u in ctx.position.stack(h)
              if u is not target and u.side == target.side and rs.is_combat(u)
              and not rs.is_artillery(u)]
    if not others:
        return [target]
    if ctx.opt("multi_defender") == "target_only":
        return [target]
    units = [target] + [u for i, u in enumerate(others) if u not in others[:i]]
    ctx.note("CC_MULTI_DEFENDER", "11.3.1",
             f"{len(units)} units defend the hex together: strengths summed, the highest morale "
             f"used, a hex counts as flank or rear only if it is so for every one of them",
             units=[u.id for u in units])
    return units


def _attack_legal(ctx: Context, a: HexUnit, defenders: list[HexUnit]) -> bool:
    """11.3.1a and HEX.md 5.1: adjacent, enemy, through its front (option), no two-hex unit
    across or from/into a bridge."""
    d_hexes = {h for d in defenders for h in d.hexes}
    pairs = [(x, y) for x in a.hexes for y in d_hexes if hg.distance(x, y) == 1]
    if a.side == defenders[0].side:
        ctx.refuse("CC_SAME_SIDE", "11.2", f"{a.id} is on the defender's side", units=[a.id])
        return False
    if not pairs:
        ctx.refuse("CC_NOT_ADJACENT", "11.2", f"{a.id} is not adjacent to {defenders[0].id}",
                   units=[a.id], hexes=list(a.hexes))
        return False
    if ctx.opt("cc_attacker_front_only"):
        front = {h for h, asp in a.aspects().items() if asp == "front"}
        if not d_hexes & front:
            ctx.refuse("CC_NOT_FRONT", "11.2",
                       f"{a.id} does not have {defenders[0].id} in a front hex", units=[a.id])
            return False
    if len(a.hexes) > 1 and ctx.ruleset.bridge_involved(ctx, pairs):
        ctx.refuse("CC_TWO_HEX_BRIDGE", "11.3.1a",
                   f"{a.id} is a two-hex unit and may not initiate close combat across a bridge "
                   f"or from or into a bridge hex", units=[a.id])
        return False
    return True


def _attackers(ctx: Context, defenders: list[HexUnit], given: list[str]) -> list[HexUnit]:
    rs = ctx.ruleset
    d0 = defenders[0]
    if not given:
        cands = [u for u in ctx.position.units if u.side != d0.side and rs.is_combat(u)
                 and not rs.is_artillery(u) and any(u.adjacent_to(h) for h in d0.hexes)]
        if ctx.opt("cc_attacker_front_only"):
            cands = [u for u in cands if any(u.aspects().get(h) == "front" for h in d0.hexes)]
        given = [u.id for u in cands]
        ctx.say(f"Attackers (every enemy unit with {d0.id} in its front): "
                f"{', '.join(given) or 'none'}.")
    out: list[HexUnit] = []
    for i, uid in enumerate(given):
        a = unit_of(ctx, uid, f"attackers[{i}]")
        if rs.is_artillery(a) or not rs.is_combat(a):
            ctx.note("CC_ARTILLERY_IGNORED", "11.3.8",
                     f"{a.id} takes no part: artillery and wagons are ignored in close combat "
                     f"(11.5)", units=[a.id])
            continue
        if a in out:
            continue
        if _attack_legal(ctx, a, defenders):
            out.append(a)
    return out


def _need_strength(u: HexUnit) -> int:
    if u.current_strength is None:
        raise PositionError("FIELD_MISSING", u.where, "strength_printed",
                            "close combat needs the unit's strength", units=[u.id])
    if u.morale is None:
        raise PositionError("FIELD_MISSING", u.where, "morale",
                            "close combat needs the unit's morale", units=[u.id])
    return u.current_strength


def odds_item(ctx: Context, cb: Combat) -> dict:
    """11.3.4-11.3.5: the simple ratio of current strengths, rounded for the defender."""
    attack = Fraction(sum(_need_strength(a) for a in cb.attackers))
    raw_def = [_need_strength(d) for d in cb.defenders]
    if attack == 0 or sum(raw_def) == 0:
        raise HexRequestError("defender", "odds need strength on both sides (A = 0 or D = 0 is "
                              "not a combat)", "CC_ZERO_STRENGTH")
    rs = ctx.ruleset
    all_cav = all(rs.is_cavalry(a) for a in cb.attackers)
    any_cav = any(rs.is_cavalry(a) for a in cb.attackers)
    hi = [d for d in cb.defenders if rs.is_heavy_infantry(d)]
    halving = bool(hi) and all_cav
    if hi and any_cav and not all_cav:  # a mixed attack: D-4 decides
        halving = ctx.opt("cav_halving") == "any_cavalry"
        if not halving:
            ctx.say("Not every attacker is cavalry, so the heavy infantry is not halved "
                    "(11.3.5).")
    defence = Fraction(0)
    for d, s in zip(cb.defenders, raw_def, strict=True):
        if halving and d in hi:
            defence += halve(s, ctx.opt("halve_rounding") if s % 2 else "exact")
        else:
            defence += Fraction(s)
    exact = attack % defence == 0 if attack >= defence else defence % attack == 0
    rounding = "defender" if exact else ctx.opt("odds_rounding")
    rows = ctx.opt("odds_rows") if attack < defence and defence / attack > 3 else "most_extreme"
    o = combat_odds(attack, defence, rounding, rows)
    half = f" (heavy infantry halved against cavalry, {sum(raw_def)} -> {num(defence)})" \
        if halving else ""
    side = "for the defender" if rounding == "defender" else "to the nearest ratio"
    why = (f"odds {num(attack)} to {num(defence)}{half} round to {o.ratio} {side}: "
           f"{signed(o.value)}")
    cb.odds = {"attack": num(attack), "defence": num(defence), "ratio": o.ratio,
               "value": o.value, "halved": halving}
    return {"slot": "odds", "rule": "11.3.5" if halving else "11.3.4", "value": o.value,
            "why": why}


def resolve(ctx: Context, defender: Any, attackers: Any = None, pistols: Any = None) -> dict:
    """The close-combat ruling (HEX.md 13 kind ``close_combat``)."""
    target = unit_of(ctx, defender, "defender")
    if not ctx.ruleset.is_combat(target) or ctx.ruleset.is_artillery(target):
        ctx.refuse("CC_ARTILLERY_IGNORED", "11.3.8",
                   f"{target.id} is not a close-combat defender: artillery and wagons are "
                   f"ignored in close combat (11.5)", units=[target.id])
        return ctx.ruling(items=[], raw=None, net=None, capped=None, odds=None,
                          attackers=[], defenders=[target.id])
    defenders = _defenders(ctx, target)
    atk = _attackers(ctx, defenders, id_list(attackers, "attackers"))
    if not atk:
        ctx.refuse("CC_NO_ATTACKERS", "11.2", f"no unit may attack {target.id}",
                   units=[target.id])
        return ctx.ruling(items=[], raw=None, net=None, capped=None, odds=None,
                          attackers=[], defenders=[d.id for d in defenders])
    cb = Combat(attackers=atk, defenders=defenders, pistols=id_list(pistols, "pistols"))
    items = []
    for slot, fn in SLOTS:
        try:
            item = odds_item(ctx, cb) if slot == "odds" else fn(ctx, cb)
        except MissingRulesData as missing:
            item = {"slot": slot, "rule": ctx.missing_rule(str(missing)),
                    "value": None, "why": f"needs rules data '{missing}'"}
        items.append(item)
        ctx.say(f"{item['why']} ({item['rule']}).")
    return _total(ctx, cb, items)


def _total(ctx: Context, cb: Combat, items: list[dict]) -> dict:
    complete = all(i["value"] is not None for i in items)
    raw = net = capped = None
    if complete:
        leader = next(i["value"] for i in items if i["slot"] == "leader")
        outside = ctx.opt("leader_outside_cap") if leader else False
        raw = sum(i["value"] for i in items)
        inner = raw - leader if outside else raw
        net = max(-CAP, min(CAP, inner)) + (leader if outside else 0)
        capped = net != raw
        cap = f", held to {signed(net)} by the cap" if capped else ""
        ctx.say(f"In all {signed(raw)}{cap}: the attacker's die roll is modified by "
                f"{signed(net)} (11.3.1).")
    else:
        ctx.say("The total cannot be given until the missing rules data is supplied.")
    ctx.say("After the combat both sides take a formation hit, except units in Hedgehog or "
            "Dispersed (11.2).")
    hits = [u.id for u in cb.attackers + cb.defenders
            if u.formation not in ctx.ruleset.no_formation_hit_formations]
    return ctx.ruling(items=items, raw=raw, net=net, capped=capped, odds=cb.odds,
                      attackers=[a.id for a in cb.attackers],
                      defenders=[d.id for d in cb.defenders],
                      pistols_spent=cb.pistols_spent, formation_hits_after=hits)
