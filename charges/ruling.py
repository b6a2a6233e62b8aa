"""Rulings: the whole answer to a request (DESIGN.md, Ruling; RULES.md 1-8).

:func:`rule` parses the request, resolves the charges against each target in turn (a target
charged by several units is a multiple charge, RULES.md 8), and returns the ruling JSON with
every figure and the explanation a player can read aloud.
"""

from __future__ import annotations

import geometry as g

from .declaration import Declaration, declare
from .dice import by_count
from .flee import Flight, flee
from .report import sigma_mm, to_json
from .request import ChargeDecl, Request, parse_request, request_warnings, roll_for
from .resolution import (
    Resolution,
    apply_dice,
    apply_outcome,
    assess,
    has_fled,
    resolve,
    room_when_declared,
    scene_with,
)


def _by_target(decls: tuple[ChargeDecl, ...]) -> list[list[ChargeDecl]]:
    groups: dict[str, list[ChargeDecl]] = {}
    for d in decls:
        groups.setdefault(d.target, []).append(d)
    return list(groups.values())


def _multiple(scene: g.Scene, group: list[ChargeDecl], req: Request,
              units: dict[str, g.Unit],
              declared: dict[ChargeDecl, Declaration] | None) -> list[Resolution]:
    """RULES.md 8: roll together; those in range move in the order that puts the most chargers
    in contact, then best meets the rest of the priority list over all final positions."""
    from .multiple import resolve_multiple

    return resolve_multiple(scene, group, req, units, declared)


def _declarations(scene: g.Scene, group: list[ChargeDecl], req: Request,
                  units: dict[str, g.Unit]) -> dict[ChargeDecl, Declaration]:
    """Each charge of ``group`` as declared in ``scene``, before its target reacts and before
    any charge moves; the ruleset's "no impossible charge" test counts the request's other
    chargers as units that might move out of the way (room_when_declared)."""
    chargers = frozenset(d.charger for d in req.charges)
    out = {}
    for d in group:
        charger, target = units[d.charger], units[d.target]
        roll = req.facing_roll.get(d.charger)
        made = declare(scene, charger, target, req.ruleset, facing_roll=roll)
        friends = frozenset(c for c in chargers if units[c].side == charger.side)
        out[d] = room_when_declared(scene, charger, target, req.ruleset, d, made, friends,
                                    roll)
    return out


def _flight(scene: g.Scene, group: list[ChargeDecl], req: Request,
            units: dict[str, g.Unit], declared: dict[ChargeDecl, Declaration]
            ) -> Flight | None:
    """The Flee! reaction of the group's target, when the request gives its roll (tow 1.7,
    whfb8 2.7): a reaction to a declared charge, so only a charge that could be declared makes
    it flee, and it flees from the first such charger (tow: from the one of the highest Unit
    Strength, which a scene does not hold; the request names the chargers in that order). It
    is then charged where it fled. None when it does not flee."""
    target = units[group[0].target]
    roll = req.flee.get(target.id)
    if roll is None:
        return None
    made = [d for d in group if declared[d].declarable]
    if not made:
        return None  # no charge it could react to (tow 1.2, whfb8 2.2)
    rule = by_count(req.ruleset.flee_rules(target.swiftstride), len(roll))
    f = flee(scene, target, units[made[0].charger], g.in_to_mm(rule.total(roll)),
             req.ruleset.flee_gap_mm, req.ruleset.flee_gap_from_friends,
             req.ruleset.flee_round_impassable)
    units[target.id] = target.placed(f.pose, state="destroyed" if f.destroyed else "fleeing")
    return f


def rule(request: dict) -> dict:
    """The ruling for a request (DESIGN.md, Ruling request and ruling).

    Every charge is declared, and its target reacts, before any charge moves (tow 1.2 and
    1.7, whfb8 2.2: one charge at a time, the target reacting before the next is declared;
    RULES.md 2): so a unit that moves out of the way, or into it, changes no declaration.
    Then the charges move, target by target in the request's order."""
    req = parse_request(request)
    scene = req.scene
    units = {u.id: u for u in scene.units}
    groups = _by_target(req.charges)
    declared: dict[ChargeDecl, Declaration] | None = None
    flights: dict[str, Flight | None] = {}
    if len(req.charges) > 1 or req.flee:
        declared = {}
        for group in groups:
            now = scene_with(scene, units)
            made = _declarations(now, group, req, units)
            declared.update(made)
            flights[group[0].target] = _flight(now, group, req, units, made)
    done: dict[ChargeDecl, Resolution] = {}
    sigmas: dict[ChargeDecl, float] = {}
    for group in groups:
        current = scene_with(scene, units)
        fled = has_fled(units[group[0].target])
        if len(group) == 1 or fled:
            # Several chargers against a fleeing unit: no align and no priority list (RULES.md
            # 7), so no joint move either; each charge is made in turn: the first to reach it
            # catches it, the others find it gone.
            results = []
            for decl in group:
                current = scene_with(scene, units)
                res = assess(current, units[decl.charger], units[decl.target], req.ruleset,
                             decl, req.facing_roll.get(decl.charger),
                             declared=declared[decl] if declared else None)
                res.on_accidental = req.on_accidental_contact.get(decl.charger, "halt")
                roll = roll_for(req, decl.charger, res.declaration.declarable)
                if roll is not None:
                    apply_dice(res, roll)
                resolve(current, res, req.ruleset)
                apply_outcome(units, res)
                results.append(res)
        else:
            results = _multiple(current, group, req, units, declared)
            for res in results:
                apply_outcome(units, res)
        for res in results:
            res.flight = flights.get(group[0].target)
            res.flee_not_made = res.flight is None and group[0].target in req.flee
            sigmas[res.decl] = sigma_mm([res.charger, res.target])
            done[res.decl] = res
    return {
        "ruleset": req.ruleset.name,
        "charges": [to_json(done[d], req.ruleset, sigmas[d]) for d in req.charges],
        "units": [_unit_json(units[u.id], u) for u in scene.units],
        # Fields the request or scene holds that the contract does not (a misspelt
        # "swiftstirde"), and options this ruleset does not use: said, not silently dropped.
        "warnings": request_warnings(request),
    }


def _unit_json(u: g.Unit, before: g.Unit) -> dict:
    out = {"id": u.id, "side": u.side, **g.Pose(u.x, u.y, u.facing).to_json(),
           "state": u.state}
    if (u.files, u.ranks) != (before.files, before.ranks):
        out.update(files=u.files, ranks=u.ranks)
    return out
