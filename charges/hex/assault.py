"""La Bataille assault declarations (seed 000, "Restricciones a un asalto"; HEX.md 7.1, D-13,
D-14) and the assault segment's Mayhem (7.2). Melee values are in :mod:`charges.hex.melee`.

Request: ``assault`` (the assaulting units' ids), ``target`` (one or two unit ids or hexes
``Q,R``), ``join`` (friendly units joining the marked stack). Every refusal has its code and the
paragraph of the seed it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from geometry import hexfacing as hf
from geometry import hexgrid as hg

from .errors import HexRequestError
from .fields import map_hex
from .mayhem import mayhem
from .melee import melee_values
from .position import HexUnit
from .ruling import Context, MissingRulesData, id_list, unit_of


@dataclass
class Group:
    """One defender stack: a multi-hex unit with all its hexes, or the units of one hex."""

    units: list[HexUnit]
    hexes: list[hg.Hex]
    named: list[hg.Hex] = field(default_factory=list)  # hexes the request named
    by_unit: bool = False


@dataclass
class Stack:
    """The assaulting units of one hex (a multi-hex unit is its own stack)."""

    hexes: tuple[hg.Hex, ...]
    units: list[HexUnit]

    @property
    def multihex(self) -> bool:
        return len(self.hexes) > 1


def _group_of_hex(ctx: Context, h: hg.Hex, side: str) -> Group | None:
    enemies = [u for u in ctx.position.stack(h) if u.side != side]
    if not enemies:
        return None
    big = next((u for u in enemies if len(u.hexes) > 1), None)
    if big is not None:
        return Group([big], list(big.hexes), [h])
    return Group(enemies, [h], [h])


def _targets(ctx: Context, raw: list[Any], side: str) -> tuple[list[Group], list[hg.Hex]]:
    groups: list[Group] = []
    empty: list[hg.Hex] = []
    for i, t in enumerate(raw):
        fname = f"target[{i}]"
        if isinstance(t, str) and t in ctx.position.leaders_by_id:
            ld = ctx.position.leaders_by_id[t]
            ctx.refuse("ASSAULT_TARGET_LEADERS_ONLY", "Líderes", f"{t} is a leader; a leader "
                       f"or a stack of leaders only cannot be assaulted", hexes=list(ld.hexes))
            continue
        if isinstance(t, str) and t in ctx.position.by_id:
            u = ctx.position.by_id[t]
            if u.side == side:
                raise HexRequestError(fname, f"{t} is a friendly unit", "TARGET_FRIENDLY")
            g = Group([u], list(u.hexes), by_unit=True) if len(u.hexes) > 1 else \
                _group_of_hex(ctx, u.hexes[0], side)
        else:
            h = map_hex(ctx.position.map, t, fname)
            g = _group_of_hex(ctx, h, side)
            if g is None:
                if ctx.position.leaders_at(h):
                    ctx.refuse("ASSAULT_TARGET_LEADERS_ONLY", "Líderes", f"{list(h)} holds "
                               f"only leaders, who cannot be assaulted", hexes=[h])
                else:
                    empty.append(h)
                continue
        assert g is not None
        same = next((x for x in groups if x.units[0] is g.units[0]), None)
        if same is not None:
            same.named += [h for h in g.named if h not in same.named]
            same.by_unit = same.by_unit or g.by_unit
        else:
            groups.append(g)
    return groups, empty


def _stacks(ctx: Context, units: list[HexUnit]) -> list[Stack]:
    out: list[Stack] = []
    for u in units:
        if u.type != "infantry":
            ctx.refuse("ASSAULT_NOT_INFANTRY", "Asaltar a la caballería", f"{u.id} is "
                       f"{u.type}: only infantry assaults (cavalry charges)", units=[u.id])
        st = next((s for s in out if s.hexes == u.hexes), None)
        if st is None:
            out.append(Stack(u.hexes, [u]))
        elif u not in st.units:
            st.units.append(u)
    return out


def _whole_stack(ctx: Context, st: Stack) -> None:
    """Apilamiento: every infantry unit of the hex assaults (D-13: refuse, or add them)."""
    if st.multihex:
        return
    omitted = [u for u in ctx.position.stack(st.hexes[0])
               if u.type == "infantry" and u not in st.units and u.side == st.units[0].side]
    if not omitted:
        return
    ids = [u.id for u in omitted]
    if ctx.opt("partial_stack") == "add":
        st.units += omitted
        ctx.note("ASSAULT_PARTIAL_INFANTRY_STACK", "Apilamiento", f"added {', '.join(ids)}: "
                 f"all infantry of the hex must assault", units=ids)
    else:
        ctx.refuse("ASSAULT_PARTIAL_INFANTRY_STACK", "Apilamiento", f"all infantry in "
                   f"{list(st.hexes[0])} must assault; omitted: {', '.join(ids)}", units=ids)


def _deflected(ctx: Context, st: Stack) -> dict | None:
    """Desviar un asalto: a marked stack that is itself assaulted or charged is a defender."""
    side = st.units[0].side
    for m in ctx.position.markers:
        if m.kind not in ("assault", "charge") or m.target_hex not in st.hexes or not m.unit:
            continue
        by = ctx.position.by_id[m.unit]
        if by.side == side:
            continue
        charged = m.kind == "charge" or by.type == "cavalry"
        ctx.refuse("ASSAULT_DEFLECTED", "Desviar un asalto", f"{by.id} "
                   f"{'charges' if charged else 'assaults'} the stack: its assault marker is "
                   f"removed at once and it defends"
                   + (" (it may neither form square nor retreat before the charge, and rolls "
                      "to stand at -12)" if charged else ""), units=[u.id for u in st.units])
        return {"by": by.id, "charged": charged, "roll_to_stand_drm": -12 if charged else 0}
    return None


def _contact(ctx: Context, st: Stack, g: Group, others_touched: bool) -> list[hg.Hex]:
    """Encaramiento and 'Asaltar a una unidad multihexágono': the group's hexes in the stack's
    front; refusals when none, when a named hex is not front, or when a front hex of a
    multi-hex target is left out. A stack of a several-target declaration need touch only
    one of the targets (``others_touched``)."""
    asp = st.units[0].aspects()
    touching = [h for h in g.hexes if h in asp]
    front = [h for h in touching if asp[h] == "front"]
    ids = [u.id for u in g.units]
    if not touching:
        if not others_touched:
            ctx.refuse("ASSAULT_NOT_ADJACENT", "Encaramiento", f"{', '.join(ids)} is not "
                       f"adjacent to {st.units[0].id}", units=ids, hexes=g.hexes)
    elif (not g.by_unit and any(h not in front for h in g.named)) or not front:
        bad = [h for h in (g.named or touching) if h not in front]
        ctx.refuse("ASSAULT_NOT_FRONT", "Encaramiento", f"{[list(h) for h in bad]} "
                   f"{'is' if len(bad) == 1 else 'are'} not in the front of "
                   f"{st.units[0].id} ({', '.join(asp[h] for h in bad if h in asp)})",
                   units=ids, hexes=bad)
    elif not g.by_unit and len(g.hexes) > 1 and any(h not in g.named for h in front):
        left = [h for h in front if h not in g.named]
        ctx.refuse("ASSAULT_MULTIHEX_TARGET_INCOMPLETE", "Asaltar a una unidad multihexágono",
                   f"{g.units[0].id}'s hexes {[list(h) for h in left]} also lie in the "
                   f"assaulter's front and must be assaulted too", units=ids, hexes=left)
    return front


def _touches(st: Stack, g: Group) -> bool:
    return any(hg.distance(a, b) == 1 for a in st.hexes for b in g.hexes)


def _can_occupy(ctx: Context, st: Stack, groups: list[Group], fronts: list[list[hg.Hex]]
                ) -> bool:
    """D-14: a line may melee two stacks only if it could enter both: the two target hexes
    adjacent, each a front hex of a different hex of the line, its formation allowed in both."""
    targets = [f[0] for f in fronts if f]
    if len(targets) != 2:
        return False
    if ctx.opt("multihex_occupy") == "front_only":
        return True
    a, b = targets
    if hg.distance(a, b) != 1:
        return False
    unit = st.units[0]
    own = {h: {n for n, asp in _hex_aspects(unit, h).items() if asp == "front"}
           for h in unit.hexes}
    if not any(a in own[x] and b in own[y] for x in unit.hexes for y in unit.hexes if x != y):
        return False
    m = ctx.position.map
    for h in (a, b):
        t = m.terrain_of(h)
        if t != m.default_terrain:
            allowed = ctx.table("Asaltos multihexágono", f"formation_allowed.{unit.formation}")
            if t not in allowed:
                return False
    return True


def _hex_aspects(unit: HexUnit, h: hg.Hex) -> dict[hg.Hex, str]:
    return hf.aspects([h], unit.facing, unit.model)


def _count_rules(ctx: Context, stacks: list[Stack], groups: list[Group],
                 fronts: dict[int, list[list[hg.Hex]]]) -> None:
    """Múltiples apilamientos and Asaltos multihexágono."""
    if len(groups) < 2:
        return
    if len(stacks) > 1:
        ctx.refuse("ASSAULT_MANY_TO_MANY", "Múltiples apilamientos", "several stacks may not "
                   "assault several defender stacks as one attack (only one multi-hex unit)",
                   units=[u.id for s in stacks for u in s.units])
        return
    st = stacks[0]
    if not st.multihex:
        if len(st.units) > 1:
            ctx.refuse("ASSAULT_SPLIT_TARGETS", "Apilamiento", "all units of one stack assault "
                       "the same target", units=[u.id for u in st.units])
        ctx.refuse("ASSAULT_SINGLE_HEX_TWO_TARGETS", "Múltiples apilamientos", "a one-hex stack "
                   "assaults exactly one target hex: it could not occupy two",
                   units=[u.id for u in st.units])
        return
    try:
        ok = _can_occupy(ctx, st, groups, fronts[0])
    except MissingRulesData:
        return
    if not ok:
        ctx.refuse("ASSAULT_MULTIHEX_CANNOT_OCCUPY", "Asaltos multihexágono",
                   f"{st.units[0].id} could not enter both target hexes on winning",
                   units=[st.units[0].id])


def _assault_markers(ctx: Context, u: HexUnit) -> list[Any]:
    return [m for m in ctx.position.markers if m.kind == "assault" and m.unit == u.id]


def approach_distance(ctx: Context, units: list[HexUnit], hexes: list[hg.Hex]) -> int | None:
    """Apilamiento: the stack rolls to approach with its units' lowest distance, each unit's
    the distance of its assault marker on the assaulted hexes ``hexes`` (HEX.md 7.1, 14; or on
    its own hex once Mayhem has advanced it there, 7.2); a marker on another hex is another
    assault's and does not count."""
    found = []
    for u in units:
        found += [m.distance for m in _assault_markers(ctx, u) if m.distance is not None
                  and (m.target_hex is None or m.target_hex in hexes
                       or m.target_hex in u.hexes)]
    found += [u.get("distance") for u in units if isinstance(u.get("distance"), int)]
    return min(found) if found else None


def _marked_elsewhere(ctx: Context, units: list[HexUnit], hexes: list[hg.Hex]) -> None:
    """HEX.md 7.1-7.2: in the assault segment a unit whose assault marker targets another
    hex has declared its assault there; it cannot assault these hexes (refused
    ``ASSAULT_MARKER_OTHER_TARGET``). While assaults are declared (the maneuver segment) the
    request is the declaration, and the reason is a note. Either way the marker's distance
    belongs to that other assault and is not the approach distance here."""
    resolving = ctx.position.turn.get("phase") == "assault"
    for u in units:
        for m in _assault_markers(ctx, u):
            if m.target_hex is None or m.target_hex in hexes or m.target_hex in u.hexes:
                continue
            (ctx.refuse if resolving else ctx.note)(
                "ASSAULT_MARKER_OTHER_TARGET", "Apilamiento",
                f"{u.id}'s assault marker targets {list(m.target_hex)}, not "
                f"{', '.join(str(list(h)) for h in hexes)}"
                + (": in the assault segment a stack assaults the target it is marked "
                   "against" if resolving else ": its distance is that assault's, not this "
                   "one's"), units=[u.id], hexes=[m.target_hex])


def _one_side(ctx: Context, units: list[HexUnit]) -> list[HexUnit]:
    """HEX.md 7.1: an assault is made by friendly stacks (one side's units); a unit of the
    other side listed among the assaulters is refused (``ASSAULT_NOT_FRIENDLY``) and left
    out, so it adds nothing to the melee."""
    side = units[0].side
    for i, u in enumerate(units):
        if u.side != side:
            ctx.refuse("ASSAULT_NOT_FRIENDLY", "Restricciones a un asalto", f"{u.id} "
                       f"(assault[{i}]) is a unit of {u.side}: the assault is {side}'s "
                       f"({units[0].id}); only friendly stacks combine in one assault",
                       units=[u.id])
    return [u for u in units if u.side == side]


def stack_order(ctx: Context, st: Stack, joiners: list[HexUnit]) -> list[str]:
    """Infantería y Artillería: assaulting infantry moves to the top; joiners go to the
    bottom and count as the rear of the assault."""
    if st.multihex:
        return [u.id for u in st.units] + [u.id for u in joiners]
    here = ctx.position.stack(st.hexes[0])
    order = [u for u in here if u in st.units] + [u for u in here if u not in st.units] + \
        [u for u in joiners if u not in here]
    if [u.id for u in order[:len(here)]] != [u.id for u in here]:
        arty = [u.id for u in here if u not in st.units]
        ctx.note("OPPORTUNITY_REACTIONS_POSSIBLE", "11.2.1.1", "the assaulting infantry moves "
                 "to the top of its stack; the change of stacking order may provoke "
                 "opportunity reactions", units=[u.id for u in st.units])
        ctx.note("ASSAULT_ARTILLERY_NON_PARTICIPANT", "Infantería y Artillería",
                 f"{', '.join(arty)} takes no part and cannot fire (not the top unit), but "
                 f"suffers any adverse result", units=arty)
    return [u.id for u in order]


def _joiners(ctx: Context, st: Stack, join: list[str]) -> list[HexUnit]:
    """Uniéndose a un apilamiento asaltante (HEX.md 7.1): only friendly units join a marked
    assaulting stack (``ASSAULT_JOIN_NOT_FRIENDLY``); a unit already assaulting does not join
    it again (``ASSAULT_JOIN_ALREADY_ASSAULTING``); cavalry never stacks with infantry
    (section 4, ``LB_CAVALRY_WITH_INFANTRY``); and the combined stack respects the stacking
    limits."""
    if not join:
        return []
    js = [unit_of(ctx, j, f"join[{i}]") for i, j in enumerate(join)]
    side = st.units[0].side
    rule = "Uniéndose a un apilamiento asaltante"
    for u in js:
        if u.side != side:
            ctx.refuse("ASSAULT_JOIN_NOT_FRIENDLY", rule, f"{u.id} is a unit of {u.side}: only "
                       f"friendly units may join {side}'s assaulting stack", units=[u.id])
        elif u in st.units:
            ctx.refuse("ASSAULT_JOIN_ALREADY_ASSAULTING", rule, f"{u.id} is already one of the "
                       f"assaulting units", units=[u.id])
    troops = {u.type for u in [*ctx.position.stack(st.hexes[0]), *st.units, *js]
              if u.side == side and u.type != "artillery"}
    if {"cavalry", "infantry"} <= troops:
        cav = [u.id for u in js if u.type == "cavalry"] or [u.id for u in js]
        ctx.refuse("LB_CAVALRY_WITH_INFANTRY", rule, f"{', '.join(cav)} would stack cavalry "
                   f"with the assaulting infantry; cavalry never stacks with infantry",
                   units=cav, hexes=[st.hexes[0]])
    js = [u for u in js if u.side == side and u not in st.units]
    try:
        limits = ctx.table("Uniéndose a un apilamiento asaltante", "stacking_limits")
    except MissingRulesData:
        return js
    here = [u for u in ctx.position.stack(st.hexes[0]) if u not in js] + js
    cap = limits.get("units")
    if isinstance(cap, int) and len(here) > cap:
        ctx.refuse("ASSAULT_JOIN_OVERSTACK", "Uniéndose a un apilamiento asaltante",
                   f"{len(here)} units would exceed the stacking limit of {cap}",
                   units=[u.id for u in js])
    return js


def resolve(ctx: Context, assault: Any = None, target: Any = None, join: Any = None) -> dict:
    """The assault ruling (HEX.md 13 kind ``assault``)."""
    units = [unit_of(ctx, a, f"assault[{i}]")
             for i, a in enumerate(id_list(assault, "assault"))]
    raw_targets = target if isinstance(target, list) else [target] if target is not None else []
    if not units or not raw_targets:
        raise HexRequestError("assault" if not units else "target",
                              "an assault needs --assault ID and --target ID_OR_Q,R")
    side = units[0].side
    units = _one_side(ctx, units)
    stacks = _stacks(ctx, units)
    groups, empty = _targets(ctx, raw_targets, side)
    for st in stacks:
        _whole_stack(ctx, st)
    deflection = [d for st in stacks if (d := _deflected(ctx, st))]
    if empty:
        return mayhem(ctx, stacks, empty, approach_distance(ctx, units, empty[:1]))
    assaulted = [h for g in groups for h in g.hexes]
    _marked_elsewhere(ctx, [u for st in stacks for u in st.units], assaulted)
    fronts = {i: [_contact(ctx, st, g, any(_touches(st, o) for o in groups if o is not g))
                  for g in groups] for i, st in enumerate(stacks)}
    _count_rules(ctx, stacks, groups, fronts)
    joiners = _joiners(ctx, stacks[0], id_list(join, "join"))
    orders = {str(list(st.hexes[0])): stack_order(ctx, st, joiners if i == 0 else [])
              for i, st in enumerate(stacks)}
    if any(u.type == "cavalry" for g in groups for u in g.units):
        ctx.note("ASSAULT_ON_CAVALRY", "Asaltar a la caballería", "cavalry that cannot retreat "
                 "before the assault stands automatically but rolls for defensive column "
                 "shifts; it makes no defensive fire; a successful assault has no Impetus")
    melee = melee_values(ctx, stacks, groups, fronts) if not ctx.refused else []
    if len(melee) > 1:
        ctx.note("ASSAULT_RESULTS_AFTER_ALL_MELEES", "Asaltando en Línea Multihexágono",
                 "each melee is resolved separately with its own modifiers; the assaulter "
                 "suffers every result, applied after all its melees; it may advance or make "
                 "Impetus only if every target was forced to retreat, and follows only one",
                 units=[u.id for st in stacks for u in st.units])
    dist = approach_distance(ctx, [u for st in stacks for u in st.units], assaulted)
    ctx.say(f"{', '.join(u.id for u in units)} assault "
            f"{'; '.join(', '.join(u.id for u in g.units) for g in groups)}: "
            + (("legal." if not ctx.missing else "not refused so far, but a check needs "
                "rules data that is missing (see NEEDS_RULES_DATA): not a full ruling.")
               if not ctx.refused else "refused: " + "; ".join(
                f"{r['message']} ({r['rule']})" for r in ctx.reasons if r["refuses"]) + "."))
    if dist is not None:
        ctx.say(f"The stack rolls to approach with its lowest distance, {dist} (Apilamiento).")
    return ctx.ruling(approach_distance=dist, melee=melee,
                      stack_order=next(iter(orders.values())), stack_orders=orders,
                      targets=[{"units": [u.id for u in g.units],
                                "hexes": [list(h) for h in g.hexes]} for g in groups],
                      deflected=deflection[0] if deflection else None,
                      roll_to_stand_drm=deflection[0]["roll_to_stand_drm"] if deflection
                      else None)
