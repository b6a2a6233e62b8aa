"""Musket & Pike reaction eligibility (series rules 9.1; HEX.md 6.1-6.4): for one trigger event
(or a move of several), every enemy unit of the mover is a candidate; for each reaction kind it
is eligible or blocked by the first failing check of HEX.md 6.4, in that table's order."""

from __future__ import annotations

from typing import Any

from geometry import hexfacing as hf
from geometry import hexgrid as hg

from .errors import HexRequestError, PositionError
from .fields import map_hex, parse_hex_text
from .los import clear_los
from .position import HexUnit
from .ruling import Context, MissingRulesData, hex_json, unit_of

EVENT_KINDS = ("enter_hex", "end_advance", "facing_change", "stack_order_change", "reform",
               "rally", "fire", "form_hedgehog", "interception")
MODES = ("normal", "retreating_fire", "advancing_fire", "evade_artillery", "advance", "pursuit",
         "retreat", "rout")
T1_MODES = ("normal", "retreating_fire", "advancing_fire", "evade_artillery")
TRIGGERS = {"end_advance": "T2", "facing_change": "T3", "stack_order_change": "T4",
            "reform": "T5", "rally": "T5", "fire": "T6"}


class Blocked(Exception):
    def __init__(self, code: str, rule: str, message: str) -> None:
        super().__init__(message)
        self.code, self.rule, self.message = code, rule, message


def read_event(ctx: Context, event: Any, field: str = "event") -> dict:
    """A trigger record of HEX.md 6.1, checked field by field."""
    if not isinstance(event, dict):
        raise HexRequestError(field, "must be a trigger record {kind, unit, hex, ...}")
    kind = event.get("kind")
    if kind not in EVENT_KINDS:
        raise HexRequestError(f"{field}.kind", f"{kind!r} is not one of {', '.join(EVENT_KINDS)}")
    mover = unit_of(ctx, event.get("unit"), f"{field}.unit")
    mode = event.get("mode", "advance" if kind == "end_advance" else "normal")
    if mode not in MODES:
        raise HexRequestError(f"{field}.mode", f"{mode!r} is not one of {', '.join(MODES)}")
    # Where it happens is on the map; where a mover came from may be off it (reinforcements).
    h = map_hex(ctx.position.map, event["hex"], f"{field}.hex") if "hex" in event \
        else mover.hexes[0]
    ev = {**event, "kind": kind, "mode": mode, "hex": h, "mover": mover,
          "from": parse_hex_text(event["from_hex"], f"{field}.from_hex")
          if event.get("from_hex") is not None else None}
    for key in ("target", "reaction_target"):
        if event.get(key) is not None:
            unit_of(ctx, event[key], f"{field}.{key}")
    return ev


def trigger_of(ev: dict) -> str | None:
    """Which trigger of 9.1.3 the event is (T1..T6), or None."""
    if ev["kind"] == "enter_hex":
        return "T1" if ev["mode"] in T1_MODES else None
    return TRIGGERS.get(ev["kind"])


def reaction_kinds(ctx: Context) -> list[str]:
    zones = ctx.table("9.2.2", "reaction_zones", required=False) or {}
    moves = ["reaction_move" if k == "reaction_move" else f"reaction_move.{k}" for k in zones
             if k != "interception"]
    return ["reaction_fire"] + (moves or ["reaction_move"]) + ["interception"]


def _check_trigger(ctx: Context, ev: dict, u: HexUnit) -> None:
    mover: HexUnit = ev["mover"]
    if ev["mode"] in ("retreat", "rout"):
        winners = ev.get("winners")
        won = u.id in winners if winners is not None else any(
            u.adjacent_to(h) for h in mover.hexes)
        if won:
            raise Blocked("REACT_WINNER_VS_RETREAT", "11.2",
                          f"{u.id} won the combat and may not react to {mover.id}'s "
                          f"{ev['mode']}")
    if ev["kind"] == "form_hedgehog" and not ev.get("reaction", False):
        raise Blocked("REACT_NO_TRIGGER", "9.1.3", "forming a voluntary Hedgehog is not a "
                      "trigger")
    if ev["kind"] == "interception" and ev.get("target") != u.id:
        raise Blocked("REACT_NO_TRIGGER", "9.1.1", "only the intercepted unit may react to an "
                      "interception")
    if ev["kind"] != "interception" and trigger_of(ev) is None:
        raise Blocked("REACT_NO_TRIGGER", "9.1.3", f"{ev['kind']} in mode {ev['mode']} is not "
                      f"a trigger (an advance triggers where it ends)")


def _check_inactive(ctx: Context, ev: dict, u: HexUnit, kind: str) -> None:
    """9.1.1: only inactive units react, with two exceptions."""
    if not u.active:
        if ev["kind"] == "interception":
            raise Blocked("REACT_NOT_INACTIVE", "9.1.1", "an interception is answered only by "
                          "the active cavalry it intercepted")
        return
    mover: HexUnit = ev["mover"]
    if (ev["kind"] == "interception" and ev.get("successful", True) and kind == "reaction_fire"
            and ctx.ruleset.is_cavalry(u)):
        return  # (a) active cavalry fires back at a successful interception of it
    advancing = ev["kind"] == "end_advance" or (ev["kind"] == "facing_change"
                                                 and ev.get("after_advance"))
    if (ctx.position.turn.get("phase") == "close_combat" and advancing and not mover.active
            and kind != "interception"):
        return  # (b) close combat phase: an active unit reacts to an advancing inactive one
    raise Blocked("REACT_NOT_INACTIVE", "9.1.1", f"{u.id} is active")


def _check_state(ctx: Context, ev: dict, u: HexUnit) -> None:
    if u.state.get("morale_state") == "broken":
        raise Blocked("REACT_MORALE_BROKEN", "9.1.1a", f"{u.id} is Morale Broken")
    if ctx.ruleset.is_artillery(u) and u.state.get("fired"):
        raise Blocked("REACT_ARTILLERY_FIRED", "9.1.5", f"{u.id} is on its Fired side")
    if u.id in (ev.get("already_attempted") or []):
        raise Blocked("REACT_ALREADY_ATTEMPTED", "9.1.1a",
                      f"{u.id} has already attempted a reaction to this trigger")
    if trigger_of(ev) == "T6" and ev.get("target") != u.id:
        raise Blocked("REACT_NOT_FIRE_TARGET", "9.1.3",
                      f"only the unit fired at ({ev.get('target')}) may react to fire")


def _fire_zone(ctx: Context, ev: dict, u: HexUnit) -> None:
    """9.1.2: artillery into its frontal sector (D-11) within short range, or maximum range
    against fire at it; other units into hexes adjacent to their front or flank."""
    h = ev["hex"]
    if ctx.ruleset.is_artillery(u) and u.model != hf.UNFACED:
        shape = ctx.opt("artillery_sector")
        if not hf.in_front_sector(u.hexes, u.facing, h, u.model, shape):
            raise Blocked("REACT_OUT_OF_SECTOR", "9.1.2", f"{list(h)} is outside {u.id}'s "
                          f"frontal sector")
        counter = trigger_of(ev) == "T6"
        key = "max_range" if counter else "short_range"
        rng = u.capabilities.get(key)
        if not isinstance(rng, int):
            raise PositionError("FIELD_MISSING", u.where, f"capabilities.{key}",
                                "artillery reaction fire needs its ranges", units=[u.id])
        d = min(hg.distance(x, h) for x in u.hexes)
        if d > rng:
            band = "maximum range (counter-battery)" if counter else "short range"
            raise Blocked("REACT_OUT_OF_RANGE", "9.1.2",
                          f"{list(h)} is {d} hexes away, beyond {u.id}'s {band} of {rng}")
        return
    if u.aspects().get(h) not in (hf.FRONT, hf.FLANK):
        raise Blocked("REACT_NOT_IN_ZONE", "9.1.2",
                      f"{list(h)} is not a hex adjacent to {u.id}'s front or flank")


def _hex_class(ctx: Context, u: HexUnit, h: hg.Hex) -> set[str]:
    """Front/flank/rear of a hex at any range: the aspect of the unit's neighbour(s) that the
    hex line to it first crosses (both on a spine) [inferred]. Worked out once per (unit,
    hex) for the ruling: every reaction-move kind and interception asks it."""
    cache = ctx.cache.setdefault("hex_class", {})
    key = (u.id, h)
    if key not in cache:
        cache[key] = _hex_class_of(u, h)
    return cache[key]


def _hex_class_of(u: HexUnit, h: hg.Hex) -> set[str]:
    asp = u.aspects()
    out: set[str] = set()
    for o in u.hexes:
        if o == h:
            return {hf.FRONT}
        out |= {asp[c] for c in hg.first_steps(o, h) if c in asp}
    return out


def _move_zone(ctx: Context, ev: dict, u: HexUnit, kind: str) -> None:
    """9.2.2-9.2.4 and 9.3: reaction-move and interception zones are the user's data."""
    key = kind.partition(".")[2] or kind
    rule = "9.3" if kind == "interception" else "9.2.2"
    spec = ctx.table(rule, f"reaction_zones.{key}")
    rule = spec.get("rule", rule)
    if u.type not in spec.get("eligible", []):
        raise Blocked("REACT_NOT_ELIGIBLE_TYPE", rule, f"a {u.type} may not make this reaction")
    if ev["mover"].type not in spec.get("trigger_unit_types", [ev["mover"].type]):
        raise Blocked("REACT_NOT_IN_ZONE", rule, f"a {ev['mover'].type} does not trigger it")
    h = ev["hex"]
    d = min(hg.distance(x, h) for x in u.hexes)
    zones = [z for z in spec.get("zone", []) if d <= z.get("max_range", 0)]
    classes = _hex_class(ctx, u, h) if zones else set()
    if not any(z.get("class") in classes for z in zones):
        raise Blocked("REACT_NOT_IN_ZONE", rule, f"{list(h)} ({'/'.join(sorted(classes))}, "
                      f"{d} hexes) is outside {u.id}'s zone for {kind}")


def _check_fire(ctx: Context, ev: dict, u: HexUnit) -> None:
    if not ctx.ruleset.can_fire(u):
        raise Blocked("REACT_CANNOT_FIRE", "9.1.2", f"{u.id} cannot fire")
    if ctx.ruleset.is_artillery(u) and any(
            o.formation == "hedgehog" for h in u.hexes for o in ctx.position.stack(h)):
        raise Blocked("REACT_ARTILLERY_WITH_HEDGEHOG", "6.3.1",
                      f"{u.id} is stacked with a Hedgehog and may not fire")
    target = ev.get("reaction_target")
    if target is not None and target != ev["mover"].id:
        raise Blocked("REACT_FIRE_TARGET_MISMATCH", "9.1.1a",
                      f"reaction fire may only be at {ev['mover'].id}, the unit that "
                      f"triggered it")


def _evaluate(ctx: Context, ev: dict, u: HexUnit, kind: str) -> None:
    _check_trigger(ctx, ev, u)
    _check_inactive(ctx, ev, u, kind)
    _check_state(ctx, ev, u)
    if kind == "reaction_fire":
        _fire_zone(ctx, ev, u)
    else:
        _move_zone(ctx, ev, u, kind)
    seen = ev["from"] if ctx.opt("los_moment") == "before_event" and ev["from"] else ev["hex"]
    if not clear_los(ctx, u.hexes, seen):
        raise Blocked("REACT_NO_LOS", "9.1.3", f"{u.id} has no clear line of sight to "
                      f"{list(seen)}")
    if kind == "reaction_fire":
        _check_fire(ctx, ev, u)


def candidate(ctx: Context, ev: dict, u: HexUnit, kinds: list[str]) -> dict:
    entry: dict[str, Any] = {"unit": u.id, "eligible": [], "blocked": [], "notes": []}
    for kind in kinds:
        try:
            _evaluate(ctx, ev, u, kind)
        except Blocked as b:
            entry["blocked"].append({"kind": kind, "code": b.code, "rule": b.rule,
                                     "message": b.message})
            continue
        except MissingRulesData as m:
            entry["blocked"].append({"kind": kind, "code": "NEEDS_RULES_DATA",
                                     "rule": ctx.missing_rule(str(m)),
                                     "message": f"needs rules data '{m}'"})
            continue
        entry["eligible"].append(kind)
    if any(k.startswith("reaction_move") for k in entry["eligible"]) and \
            u.state.get("in_command") is False:
        entry["notes"].append({"code": "REACT_OOC_NO_ADJACENT", "rule": "9.1.1a",
                               "message": "out of command: it may react but never move "
                                          "adjacent to an enemy unit"})
    if ctx.ruleset.is_artillery(u) and entry["eligible"]:
        entry["notes"].append({"code": "REACT_ARTILLERY_FLIPS", "rule": "9.1.5",
                               "message": "if it reacts it flips to its Fired side"})
    if len(u.hexes) > 1 and entry["eligible"]:
        entry["notes"].append({"code": "REACT_TWO_HEX_SAME", "rule": "9.1.4",
                               "message": "both halves take the same reaction"})
    return entry


def _declarations(ctx: Context, ev: dict, cands: list[dict]) -> None:
    """9.1.1a: one reaction per unit per trigger, only eligible kinds, all Hedgehog attempts
    first."""
    decls = ev.get("declarations") or []
    by_unit = {c["unit"]: c for c in cands}
    seen: set[str] = set()
    pending_hedgehog = [i for i, d in enumerate(decls) if isinstance(d, dict)
                        and "hedgehog" in str(d.get("kind", ""))]
    for i, d in enumerate(decls):
        if not isinstance(d, dict) or not isinstance(d.get("unit"), str):
            raise HexRequestError(f"event.declarations[{i}]", "must be {unit, kind}")
        uid, kind = d["unit"], d.get("kind")
        c = by_unit.get(uid)
        if uid in seen:
            ctx.refuse("REACT_ALREADY_ATTEMPTED", "9.1.1a", f"{uid} declares a second reaction "
                       f"to one trigger", units=[uid])
        elif c is None or kind not in c["eligible"]:
            ctx.refuse("REACT_DECLARATION_INELIGIBLE", "9.1.1a",
                       f"{uid} may not declare {kind} against this trigger", units=[uid])
        if "hedgehog" not in str(kind) and any(j > i for j in pending_hedgehog):
            ctx.refuse("REACT_HEDGEHOG_FIRST", "9.1.1a", f"{uid}'s {kind} is declared before a "
                       f"pending Hedgehog attempt; all Hedgehog attempts come first",
                       units=[uid])
        seen.add(uid)


def _sentence(ev: dict, c: dict) -> str:
    if c["eligible"]:
        return f"{c['unit']} may react: {', '.join(c['eligible'])}."
    first = c["blocked"][0] if c["blocked"] else None
    return f"{c['unit']} may not react: {first['message']} ({first['rule']})." if first \
        else f"{c['unit']} may not react."


def resolve(ctx: Context, event: Any = None, events: Any = None) -> dict:
    """The reactions ruling (HEX.md 13 kind ``reactions``): ``event`` is one trigger record
    of 6.1; ``events`` a list of them (a move of N hexes is N events)."""
    records = [event] if event is not None else events
    if not isinstance(records, list) or not records:
        raise HexRequestError("event", "a trigger record is required (--event F)")
    kinds = reaction_kinds(ctx)
    triggers = []
    for n, raw in enumerate(records):
        ev = read_event(ctx, raw, "event" if event is not None else f"events[{n}]")
        mover = ev["mover"]
        cands = [candidate(ctx, ev, u, kinds) for u in ctx.position.units
                 if u.side != mover.side]
        _declarations(ctx, ev, cands)
        trig = trigger_of(ev)
        ctx.say(f"{mover.id}: {ev['kind'].replace('_', ' ')} at {list(ev['hex'])}"
                + (f" is trigger {trig} (9.1.3)." if trig else " is no trigger (9.1.3)."))
        for c in cands:
            ctx.say(_sentence(ev, c))
        shown = {k: v for k, v in raw.items() if k != "declarations"}
        shown["hex"] = hex_json(ev["hex"])
        triggers.append({"trigger": {**shown, "trigger": trig}, "candidates": cands})
    if any(c["notes"] and c["eligible"] for t in triggers for c in t["candidates"]):
        ctx.say("Every eligible unit may react; the owner may wait for one result before "
                "declaring the next, but all Hedgehog attempts come first (9.1.1a).")
    single = len(triggers) == 1
    return ctx.ruling(trigger=triggers[0]["trigger"] if single else None,
                      candidates=triggers[0]["candidates"] if single else
                      [{**c, "trigger": i} for i, t in enumerate(triggers)
                       for c in t["candidates"]],
                      triggers=triggers)
