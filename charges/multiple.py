"""Multiple charges against one target (RULES.md 8, seed figure 7).

The chargers roll together; those in range move in the order that puts the most chargers in
contact (priority 3), then best meets the rest of the list over the final positions of all of
them. Each charger's own choice also serves priority 3: besides its best move, a few
alternatives ending elsewhere along the facing are tried, so a charger may leave room for the
next one. Chargers never overlap; one left without a legal move has made an impossible charge
and makes a failed charge move instead.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import geometry as g

from .request import ChargeDecl, Request
from .ruling import Resolution, _apply_dice, _fail, _scene_with, assess
from .search import ChargeMove, search_moves
from .world import World

#: Alternatives tried per charger, by position in the order: wide at the top, where a choice
#: leaves room for the others, narrow further down.
ALTERNATIVES = (6, 3, 1, 1)


@dataclass
class Plan:
    order: tuple[ChargeDecl, ...]
    moves: dict[ChargeDecl, ChargeMove | None]

    def score(self) -> tuple:
        """Smaller is better: priority 2, then 3, then 4, then total path length."""
        moved = [m for m in self.moves.values() if m is not None]
        turn = sum(abs(m.target_turn_deg) for m in moved)
        target_slots: set = set()
        charger_models = 0
        for m in moved:
            target_slots |= set(m.target_slots)
            charger_models += m.charger_models
        return (round(turn, 6), -len(moved), -(charger_models + len(target_slots)),
                round(sum(m.length_mm for m in moved), 6))

    @property
    def models(self) -> int:
        return -self.score()[2]


def _plans(scene: g.Scene, order: tuple[ChargeDecl, ...], facings: dict[ChargeDecl, str],
           units: dict[str, g.Unit], depth: int, placed: dict[ChargeDecl, ChargeMove | None],
           target: g.Unit) -> Plan:
    if depth == len(order):
        return Plan(order, dict(placed))
    decl = order[depth]
    charger = units[decl.charger]
    moved = {d.charger: units[d.charger].placed(m.final) for d, m in placed.items()
             if m is not None}
    current = _scene_with(scene, {**units, **moved, target.id: target})
    world = World.for_unit(current, charger, target.id)
    target_world = World.for_unit(current, target, ignore=frozenset({charger.id}))
    k = ALTERNATIVES[min(depth, len(ALTERNATIVES) - 1)] if depth < len(order) - 1 else 1
    moves, _ = search_moves(charger, target, facings[decl], world, target_world,  # type: ignore[arg-type]
                            allow_target_turn=depth == 0, k=k)
    if not moves:
        return _plans(scene, order, facings, units, depth + 1, {**placed, decl: None}, target)
    best: Plan | None = None
    for m in moves:
        t_next = target if m.target_final is None else target.placed(m.target_final)
        plan = _plans(scene, order, facings, units, depth + 1, {**placed, decl: m}, t_next)
        if best is None or plan.score() < best.score():
            best = plan
    assert best is not None
    return best


def resolve_multiple(scene: g.Scene, group: list[ChargeDecl], req: Request,
                     units: dict[str, g.Unit]) -> list[Resolution]:
    target = units[group[0].target]
    results = {d: assess(scene, units[d.charger], target, req.ruleset, d) for d in group}
    if req.dice is not None:
        for d in group:
            _apply_dice(results[d], req.dice[d.charger])
    for d in group:
        if not results[d].declaration.declarable:
            results[d].outcome = "impossible"
    movers = [d for d in group if results[d].declaration.declarable
              and (req.dice is None or results[d].in_range)]
    facings = {d: results[d].declaration.facing for d in group}
    best: Plan | None = None
    for order in itertools.permutations(movers):
        plan = _plans(scene, order, facings, units, 0, {}, target)
        if best is None or plan.score() < best.score():
            best = plan
    moved_units = dict(units)
    if best is not None:
        for d in best.order:
            res, m = results[d], best.moves[d]
            res.move = m
            if m is None:
                others = [o.charger for o in best.order if best.moves[o] is not None]
                res.out_of_order = (f"{res.charger.id} found no room once "
                                    f"{', '.join(others) or 'the others'} had moved: an "
                                    "impossible charge, so it is a failed charge "
                                    "(RULES.md 8).") if others else None
                continue
            if req.dice is not None:
                res.outcome = "success"
            moved_units[d.charger] = units[d.charger].placed(m.final)
            if m.target_final is not None:
                moved_units[target.id] = target.placed(m.target_final)
        n = sum(1 for m in best.moves.values() if m is not None)
        for d in best.order:
            results[d].chargers_in_contact = n
        note = (f"Multiple charge: moving in the order {', '.join(x.charger for x in best.order)}"
                f" puts {n} charger(s) and {best.models} models in contact (RULES.md 8).")
        for d in best.order:
            results[d].notes.append(note.rstrip("."))
    # Those out of range, or left without room, make failed charge moves after the others.
    after = _scene_with(scene, moved_units)
    for d in group:
        res = results[d]
        if req.dice is None or res.outcome in ("success", "impossible"):
            continue
        res.move = None
        _fail(res, after, req.ruleset)
    return [results[d] for d in group]
