"""The La Bataille rally move (seed 002, "Reagrupamiento" and "Orden General"; HEX.md 8.3,
D-18 to D-20): who may rally, the route it must take, and a check of a proposed path.

D-19: "shortest" is the least movement-point cost to the nearest hex within the superior's
command range (ignoring the half allowance, honouring prohibited terrain, enemy-adjacent
hexes and stacking: no route ends where the unit may not stack); among least-cost routes the
one with the most hexes on the hex line to the leader; the
unit moves along it as far as half its allowance (rounded up) allows, stopping on entering the
command range or General Order terrain.
"""

from __future__ import annotations

import math
from typing import Any

from geometry import hexgrid as hg

from .errors import HexRequestError, PositionError
from .fields import map_hex
from .position import HexUnit
from .rallyroute import Routes
from .ruling import Context, MissingRulesData, hex_json, unit_of

RULE = "Reagrupamiento"


def _leader(ctx: Context, u: HexUnit) -> tuple[Any, int]:
    """The goal leader (HEX.md 8.3: the unit's immediate superior, or assigned leader) and its
    command range. It must be a leader of the unit's own side: rallying towards an enemy
    leader is a position error naming the field, not a ruling."""
    field_name = "superior" if u.get("superior") else "assigned_leader"
    lid = u.get("superior") or u.get("assigned_leader")
    ld = ctx.position.leaders_by_id.get(lid) if isinstance(lid, str) else None
    if ld is None:
        raise PositionError("FIELD_MISSING", u.where, "superior",
                            "a rally move needs the unit's superior (a leader id)", units=[u.id])
    if ld.side != u.side:
        raise PositionError("FIELD_INVALID", u.where, field_name,
                            f"{ld.id} is a leader of {ld.side}, not of {u.side}", units=[u.id])
    rng = ld.command_range
    if rng is None:
        rng = ctx.table("command ranges", f"command_ranges.{ld.rank}")
    return ld, int(rng)


#: The largest movement allowance read (HEX.md 14 ``movement_allowance``): La Bataille
#: allowances are a few MP; a larger one is a typo, and would only make the route search big.
MAX_ALLOWANCE = 99
#: The farthest a rallying unit may be from its goal leader for the route search (HEX.md 8.3,
#: D-19): far beyond any map, and the bound that keeps the search fast on an unbounded map.
MAX_LEADER_DISTANCE = 100


def _allowance(u: HexUnit) -> tuple[int, int]:
    """HEX.md 8.3: half the allowance for the unit's formation, rounded up; a missing one is
    ``FIELD_MISSING``, one that is not a whole number 0..MAX_ALLOWANCE ``FIELD_INVALID``."""
    ma = u.get("movement_allowance")
    field_name = "movement_allowance"
    if isinstance(ma, dict):
        field_name = f"movement_allowance.{u.formation}"
        ma = ma.get(u.formation)
    if ma is None:
        raise PositionError("FIELD_MISSING", u.where, field_name,
                            f"a rally move needs the unit's allowance in {u.formation}",
                            units=[u.id])
    if not isinstance(ma, int) or isinstance(ma, bool) or not 0 <= ma <= MAX_ALLOWANCE:
        raise PositionError("FIELD_INVALID", u.where, field_name,
                            f"{ma!r} is not a whole number of MP 0..{MAX_ALLOWANCE}",
                            units=[u.id])
    return ma, math.ceil(ma / 2)


def _check_reach(u: HexUnit, ld: Any) -> None:
    """Bound the route search (HEX.md 14: the map may be unbounded): a goal leader more than
    :data:`MAX_LEADER_DISTANCE` hexes away is refused, naming the leader's hexes."""
    d = min(hg.distance(h, x) for h in u.hexes for x in ld.hexes)
    if d > MAX_LEADER_DISTANCE:
        raise PositionError("RALLY_LEADER_TOO_FAR", f"leaders '{ld.id}'", "hexes",
                            f"{d} hexes from {u.id}; a rally route is searched up to "
                            f"{MAX_LEADER_DISTANCE} hexes", units=[u.id],
                            hexes=[list(h) for h in ld.hexes])


def in_command(u: HexUnit, ld: Any, rng: int) -> bool:
    """``state.in_command`` when the position gives it; otherwise whether the unit lies
    within its goal leader's command range (HEX.md 8.3)."""
    flag = u.state.get("in_command")
    if flag is not None:
        return bool(flag)
    return min(hg.distance(h, x) for h in u.hexes for x in ld.hexes) <= rng


def stacked_with_leader(ctx: Context, u: HexUnit) -> bool:
    """HEX.md 8.3: a unit stacked with a (friendly) leader counts as in command."""
    return any(ld.side == u.side for h in u.hexes for ld in ctx.position.leaders_at(h))


def adjacent_enemy(ctx: Context, u: HexUnit) -> bool:
    return any(hg.distance(h, e) <= 1 for o in ctx.position.enemies_of(u.side)
               for e in o.hexes for h in u.hexes)


def rally_blocker(ctx: Context, u: HexUnit) -> str | None:
    """Who may move on the Rally chit (HEX.md 8.2-8.3), for the cup: the first code of the
    rally ruling's eligibility that bars ``u`` (``RALLY_IN_COMMAND``,
    ``RALLY_STACKED_WITH_LEADER``, ``RALLY_ADJACENT_ENEMY_START``), ``RALLY_NO_SUPERIOR``
    when its command cannot be told (no flag and no leader of its side), or None. The same
    tests as :func:`resolve`, so the cup and the ruling never disagree."""
    if u.state.get("in_command") is None:
        lid = u.get("superior") or u.get("assigned_leader")
        ld = ctx.position.leaders_by_id.get(lid) if isinstance(lid, str) else None
        if ld is None or ld.side != u.side:
            return "RALLY_NO_SUPERIOR"
        rng = ld.command_range
        if rng is None:
            rng = ctx.table("command ranges", f"command_ranges.{ld.rank}", required=False)
            if not isinstance(rng, int) or isinstance(rng, bool):
                ctx.need("command ranges", f"command_ranges.{ld.rank}", units=[u.id])
                return "NEEDS_RULES_DATA"
        if in_command(u, ld, rng):
            return "RALLY_IN_COMMAND"
    elif u.state["in_command"]:
        return "RALLY_IN_COMMAND"
    if stacked_with_leader(ctx, u):
        return "RALLY_STACKED_WITH_LEADER"
    if adjacent_enemy(ctx, u):
        return "RALLY_ADJACENT_ENEMY_START"
    return None


def _eligible(ctx: Context, u: HexUnit, ld: Any, rng: int, declares: Any) -> None:
    if in_command(u, ld, rng):
        ctx.refuse("RALLY_IN_COMMAND", RULE, f"{u.id} is in the chain of command",
                   units=[u.id])
    if stacked_with_leader(ctx, u):
        ctx.refuse("RALLY_STACKED_WITH_LEADER", RULE, f"{u.id} is stacked with a leader: it "
                   f"counts as in command and may not move now", units=[u.id])
    if adjacent_enemy(ctx, u):
        ctx.refuse("RALLY_ADJACENT_ENEMY_START", RULE, f"{u.id} is adjacent to an enemy unit",
                   units=[u.id])
    if declares in ("assault", "charge"):
        ctx.refuse("RALLY_ASSAULT_OR_CHARGE", RULE, "a rallying unit may neither assault nor "
                   "charge", units=[u.id])


def _formation_change(ctx: Context, u: HexUnit, to: Any, leaves_go: bool,
                      enters_go: bool = False) -> str | None:
    """Formation changes allowed on the Rally chit (HEX.md 8.3 ``RALLY_ILLEGAL_FORMATION_
    CHANGE``, D-20): leave GO (into column), enter GO (and so stop: ``enters_go`` when the move
    ends on General Order terrain it entered), enter or leave road column, limber."""
    if to is None:
        return None
    ok = (to == "column" and u.formation == "general_order" and leaves_go) or \
        (to == "general_order" and enters_go) or \
        "road_column" in (to, u.formation) or (to == "limbered" and u.type == "artillery")
    if not ok:
        ctx.refuse("RALLY_ILLEGAL_FORMATION_CHANGE", RULE, f"{u.formation} to {to} is not "
                   f"allowed on the Rally chit", units=[u.id])
    elif to == "column":
        ctx.note("OPPORTUNITY_REACTIONS_POSSIBLE", "11.2.1.1", "forming column on leaving "
                 "General Order may draw opportunity reactions", units=[u.id])
    return to


def _walk(ctx: Context, r: Routes, path: list[hg.Hex], check: bool) -> dict:
    """Follow ``path`` from the unit's hex: where it must stop, what it spends; with
    ``check``, refuse every breach of the restrictions (each code once)."""
    u, spent, prev, stop_at = r.unit, 0, r.start, None
    faults: dict[str, str] = {}
    go_start = u.formation == "general_order"
    for i, h in enumerate(path):
        if hg.distance(prev, h) != 1:
            faults.setdefault("RALLY_PATH_NOT_ADJACENT", f"{list(h)} is not next to {list(prev)}")
            break
        cost = r.cost(prev, h)
        if cost is None:
            faults.setdefault("RALLY_PROHIBITED", f"{list(h)} may not be entered")
            break
        if r.enemy_adjacent(h) and (ctx.opt("rally_adjacent") == "any_point"
                                    or i == len(path) - 1):
            faults.setdefault("RALLY_ENTERS_ENEMY_ADJACENT", f"{list(h)} is adjacent to an "
                              f"enemy unit")
        if stop_at is not None:
            code, why = stop_at
            faults.setdefault(code, why)
        spent += cost
        if spent > r.allowance:
            faults.setdefault("RALLY_OVER_ALLOWANCE", f"{spent} MP spent, more than half its "
                              f"allowance ({r.allowance})")
        if stop_at is None:
            stop_at = r.stop_reason(h, i, go_start)
        prev = h
    if check and path and "RALLY_PATH_NOT_ADJACENT" not in faults and \
            "RALLY_PROHIBITED" not in faults and (why := r.stacking_fault(prev)):
        faults.setdefault("RALLY_STACKING", f"it may not end its move in {list(prev)}: {why}")
    return {"faults": faults, "spent": spent, "end": prev, "stop": stop_at}


def resolve(ctx: Context, unit: Any, path: Any = None, formation_change: Any = None,
            declares: Any = None) -> dict:
    u = unit_of(ctx, unit, "unit")
    try:
        ld, rng = _leader(ctx, u)
    except MissingRulesData:
        return ctx.ruling(allowance=None, spent=None, end_hex=None, best_route=[],
                          formation_after=u.formation, in_command_after=None)
    ma, allowance = _allowance(u)
    _check_reach(u, ld)
    _eligible(ctx, u, ld, rng, declares)
    ctx.say(f"{u.id} may spend half its allowance of {ma}, rounded up: {allowance} MP "
            f"({RULE}).")
    try:
        r = Routes(ctx, u, ld.hexes[0], rng, allowance)
        best = r.best_route()
    except MissingRulesData:
        return ctx.ruling(allowance=allowance, spent=None, end_hex=None, best_route=[],
                          formation_after=u.formation, in_command_after=None)
    move = r.move_along(best)
    if isinstance(path, str):
        path = [path]
    if path is not None and not isinstance(path, list):
        raise HexRequestError("path", "a list of hexes Q,R entered in order", "BAD_PATH")
    given = [map_hex(ctx.position.map, h, f"path[{i}]") for i, h in enumerate(path)] \
        if path else None
    walked = _walk(ctx, r, given if given is not None else move, given is not None)
    if given is not None:
        _judge(ctx, r, given, walked)
    end = walked["end"]
    fa = r.formation_after(end, walked)
    leaves_go = u.formation == "general_order" and not r.is_go(end)
    enters_go = end != r.start and u.formation != "general_order" and r.is_go(end)
    fa = _formation_change(ctx, u, formation_change, leaves_go, enters_go) or fa
    in_cmd = hg.distance(end, ld.hexes[0]) <= rng
    if walked["spent"]:
        ctx.note("RALLY_OPPORTUNITY_CHARGES", RULE, "units moving on the Rally chit may "
                 "receive opportunity charges", units=[u.id])
    ctx.say(f"The route it must take: {' '.join(str(list(h)) for h in best) or 'none'}; "
            f"the rally move: {' '.join(str(list(h)) for h in move) or 'none'}.")
    ctx.say(f"It ends at {list(end)}, {hg.distance(end, ld.hexes[0])} hexes from {ld.id} "
            f"({'within' if in_cmd else 'outside'} its command range of {rng}), having spent "
            f"{walked['spent']} MP.")
    return ctx.ruling(allowance=allowance, spent=walked["spent"], end_hex=hex_json(end),
                      in_command_after=in_cmd, formation_after=fa,
                      best_route=[hex_json(h) for h in best],
                      move=[hex_json(h) for h in move], leader=ld.id,
                      routes_tied=r.tied_count())


def _judge(ctx: Context, r: Routes, path: list[hg.Hex], walked: dict) -> None:
    rules = {"RALLY_PATH_NOT_ADJACENT": RULE, "RALLY_PROHIBITED": RULE,
             "RALLY_ENTERS_ENEMY_ADJACENT": RULE, "RALLY_OVER_ALLOWANCE": RULE,
             "RALLY_DID_NOT_STOP": RULE, "RALLY_STACKING": "Reagrupamiento; HEX.md 4",
             "RALLY_ENTERED_GO_CONTINUED": "Orden General",
             "RALLY_GO_TO_GO_MORE_THAN_ONE": "Orden General"}
    for code, why in walked["faults"].items():
        ctx.refuse(code, rules[code], why, units=[r.unit.id])
    if walked["faults"]:
        return
    verdict = r.judge_prefix(path)
    if verdict == "not_shortest":
        ctx.refuse("RALLY_NOT_SHORTEST", RULE, f"the path is not a least-cost route towards "
                   f"the command range ({r.metric_words()})", units=[r.unit.id])
    elif verdict == "not_straight":
        ctx.refuse("RALLY_NOT_STRAIGHT", RULE, "another least-cost route keeps more hexes on "
                   "the straight line to the leader", units=[r.unit.id])
    elif walked["stop"] is None and walked["spent"] < r.allowance and path != r.move_along(
            r.best_route()):
        ctx.note("RALLY_STOPPED_SHORT", RULE, "the unit could go further along its route",
                 units=[r.unit.id])

