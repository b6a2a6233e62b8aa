"""Multiple charges against one target (RULES.md 8, seed figure 7).

The chargers roll together; those in range move in the order that puts the most chargers in
contact (priority 3), then best meets the rest of the list over the final positions of all of
them: priority 4 counts every model once, however many chargers touch it ("a model counts
once however many enemies it touches", RULES.md 4), then the shortest paths, the smallest
wheels and the ends nearest the starts, summed over the chargers.

Orders are tried exhaustively (a handful of chargers). For each order the chargers are placed
one after another: each later charger's moves are ranked by the models *it adds* (the target
models already touched are not counted again), and the first chargers offer alternatives (up
to ``ALTERNATIVES``, each putting a different set of models in contact, best first; the first
charger's also its shortest move whatever it contacts, and each pushed to either side of the
facing as far as its contact allows) so that a
charger may leave room for the next one or leave it the target models it can reach. The chosen
moves are then refined to their shortest paths with every other charger in its final place.
Chargers never overlap; one left without a legal move has made an impossible charge and makes
a failed charge move instead.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

import geometry as g

from .charge_move import ChargeMove
from .declaration import Declaration
from .facing_frame import T9A_MOVES, MoveRules
from .front_edge import strip_of, unit_move
from .plan import SearchMemo, SearchPlan
from .refine import polish_move
from .request import ChargeDecl, Request, roll_for
from .resolution import (
    Resolution,
    _fail,
    apply_dice,
    assess,
    flag_fallbacks,
    never_secondary,
    scene_with,
    settle_secondaries,
)
from .search import moves_aside, search_moves, shortest_move
from .secondary import search_secondary
from .world import World

#: Alternatives offered per charger, by its place in the order: wide at the top, where a
#: choice leaves room (or target models) for the others, narrow further down; the last charger
#: always takes its best move given the others.
ALTERNATIVES = (6, 2, 1, 1)


@dataclass
class Plan:
    order: tuple[ChargeDecl, ...]
    moves: dict[ChargeDecl, ChargeMove | None]
    #: Rank plans of equal models by the spread of the chargers' models (whfb8 2.8: the
    #: moves equalise the models fighting from each charger).
    equalise: bool = False
    #: The target turned ranks first (RULES.md 4: priority 2 above the chargers in contact),
    #: or after the chargers and models (tow 1.8, whfb8 2.8 [D]: chargers that complete,
    #: then models; the target aligning is one of a charge's legal fallbacks, tow 1.5).
    turn_first: bool = True

    @property
    def moved(self) -> list[ChargeMove]:
        return [m for m in self.moves.values() if m is not None]

    @property
    def target_models(self) -> int:
        """Target models in contact with any charger, each counted once."""
        return len(frozenset().union(*(m.target_slots for m in self.moved)))

    @property
    def charger_models(self) -> int:
        return sum(m.charger_models for m in self.moved)

    @property
    def models(self) -> int:
        return self.charger_models + self.target_models

    def score(self) -> tuple:
        """Smaller is better: priority 2 (target turned), 3 (chargers in contact), 4 (models,
        each once), the spread of the chargers' models where the ruleset equalises them, then
        the tie-breaks summed: path length, wheel, end nearest the start."""
        moved = self.moved
        counts = [m.charger_models for m in moved]
        spread = max(counts) - min(counts) if self.equalise and counts else 0
        return (*_ranked(round(sum(abs(m.target_turn_deg) for m in moved), 6), -len(moved),
                         -self.models, spread, self.turn_first),
                round(sum(m.length_mm for m in moved), 6),
                round(sum(abs(m.wheel_deg) for m in moved), 6),
                round(sum(math.hypot(m.final.x - m.start.x, m.final.y - m.start.y)
                          for m in moved), 6))


def _ranked(turn: float, chargers: int, models: int, spread: int, turn_first: bool
            ) -> tuple:
    """The first four entries of a plan's score, in the ruleset's order (Plan.turn_first)."""
    return (turn, chargers, models, spread) if turn_first else (chargers, models, spread, turn)


def _placed_scene(scene: g.Scene, units: dict[str, g.Unit], placed: dict[ChargeDecl,
                  ChargeMove | None], target: g.Unit) -> g.Scene:
    moved = {d.charger: units[d.charger].placed(m.final) for d, m in placed.items()
             if m is not None}
    return scene_with(scene, {**units, **moved, target.id: target})


@dataclass
class _Search:
    """One resolution's search over orders: the search plans already built (they depend only
    on the charger, the target's pose, the facing and the target models not counted), and
    whether the first charger is also offered its moves pushed aside (moves_aside)."""

    scene: g.Scene
    facings: dict[ChargeDecl, str]
    units: dict[str, g.Unit]
    aside: bool
    plans: dict[tuple, SearchPlan]
    #: Each charger's closest distance to the target: no charge path is shorter.
    distance: dict[ChargeDecl, float]
    #: The ruleset's ranking of contacts, and each charger's longest path where the roll is
    #: compared with the path (tow 1.3; inf otherwise).
    rules: MoveRules = T9A_MOVES
    reach: dict[ChargeDecl, float] = field(default_factory=dict)
    equalise: bool = False
    #: Only the front edge is swept (tow 1.4): each charger's front-edge strip is searched and
    #: its moves made the unit's, whose end footprint must fit (charges/front_edge.py).
    front_edge: bool = False
    #: What :meth:`moves` found, by everything it depends on: orders that share a prefix (the
    #: same charger first, the same moves before it) ask the same question again.
    found: dict[tuple, tuple] = field(default_factory=dict)
    turn_first: bool = True
    #: Units never charged as a second target (an engaged unit; a fleeing one where meeting
    #: it is accidental contact), or None where a charger with no move of its own is not
    #: offered one touching other enemies too (RULES.md 4 priority 1, tow 1.5).
    engaged: frozenset[str] | None = None
    #: The other enemies each move of that kind touches, by the move's identity.
    secondary: dict[int, tuple[str, ...]] = field(default_factory=dict)

    def _as_unit(self, charger: g.Unit, ahead: float, world: World,
                 moves: list[ChargeMove]) -> list[ChargeMove]:
        if not self.front_edge:
            return moves
        out = [unit_move(m, charger, ahead) for m in moves]
        return [m for m in out if world.blocked(g.boundary(charger.formation, m.final)) is None]

    def moves(self, decl: ChargeDecl, depth: int, last: bool, placed: dict, target: g.Unit,
              touched: frozenset[tuple[int, int]]
              ) -> tuple[list[ChargeMove], Callable[[ChargeMove], list[ChargeMove]]]:
        """The charger's alternatives, best first, and how to push one of them aside (empty
        unless the search offers asides here). They depend only on the charger, its place in
        the order, where the chargers placed before it ended, the target's pose and the
        target models already touched, so each is searched once (``found``)."""
        ends = tuple(sorted((d.charger, m.final.x, m.final.y, m.final.facing)
                            for d, m in placed.items() if m is not None))
        key = (decl, depth, last, ends, (target.x, target.y, target.facing), touched)
        hit = self.found.get(key)
        if hit is None:
            hit = self.found[key] = self._moves(decl, depth, last, placed, target, touched)
        return hit

    def _moves(self, decl: ChargeDecl, depth: int, last: bool, placed: dict, target: g.Unit,
               touched: frozenset[tuple[int, int]]
               ) -> tuple[list[ChargeMove], Callable[[ChargeMove], list[ChargeMove]]]:
        """:meth:`moves`, searched."""
        charger = self.units[decl.charger]
        mover, ahead = strip_of(charger) if self.front_edge else (charger, 0.0)
        rules = replace(self.rules, end_form=charger.formation) if self.front_edge else \
            self.rules
        current = _placed_scene(self.scene, self.units, placed, target)
        world = World.for_unit(current, charger, target.id)
        target_world = partial(World.for_unit, current, target,
                               ignore=frozenset({charger.id}))
        facing = self.facings[decl]
        key = SearchPlan.key_of(mover, target, facing, touched, rules)  # type: ignore[arg-type]
        memo = SearchMemo(plan=self.plans.get(key))
        k = 1 if last else ALTERNATIVES[min(depth, len(ALTERNATIVES) - 1)]
        longest = self.reach.get(decl, math.inf)
        moves, _ = search_moves(mover, target, facing, world, target_world,  # type: ignore[arg-type]
                                allow_target_turn=depth == 0, k=k, refine=False,
                                exclude=touched, memo=memo, rules=rules, max_length=longest)
        moves = self._as_unit(charger, ahead, world, moves)
        if not moves and self.engaged is not None:
            # Its only legal moves touch other enemies too: as few as possible (the single
            # charge's fallback, resolution.find_move), so it is not left out of the plan.
            other, touching = search_secondary(mover, target, facing, world,  # type: ignore[arg-type]
                                               target_world, self.engaged, memo, rules,
                                               longest)
            moves = self._as_unit(charger, ahead, world.with_kind(set(touching), "secondary"),
                                  [other] if other is not None else [])
            for m in moves:
                self.secondary[id(m)] = touching
        if memo.plan is not None:
            self.plans[key] = memo.plan
        plan = memo.plan
        if depth == 0 and not last and plan is not None:
            straight = shortest_move(mover, target, world, plan, longest)  # type: ignore[arg-type]
            for m in self._as_unit(charger, ahead, world, [straight] if straight else []):
                if all(m.contact_id != o.contact_id for o in moves):
                    moves.append(m)
        if self.aside and depth == 0 and not last and plan is not None:
            aside = partial(moves_aside, mover, target, world=world, plan=plan)
            # Pushed aside, a path may grow longer than the roll (tow 1.3): those are out.
            return moves, lambda m: [a for a in self._as_unit(charger, ahead, world, aside(m))
                                     if a.length_mm <= longest + 1e-6]
        return moves, lambda _: []

    def best(self, order: tuple[ChargeDecl, ...], depth: int = 0,
             placed: dict[ChargeDecl, ChargeMove | None] | None = None,
             target: g.Unit | None = None,
             touched: frozenset[tuple[int, int]] = frozenset()) -> Plan:
        """The best plan for ``order`` from ``depth`` on, the earlier chargers ``placed``."""
        placed = placed or {}
        if depth == len(order):
            return Plan(order, dict(placed), self.equalise, self.turn_first)
        if target is None:
            target = self.units[order[0].target]
        decl = order[depth]
        moves, aside = self.moves(decl, depth, depth == len(order) - 1, placed, target,
                                  touched)
        best: Plan | None = None

        def consider(m: ChargeMove) -> bool:
            """Follow ``m`` if it can still beat the best plan; whether it could."""
            nonlocal best
            now = {**placed, decl: m}
            if best is not None and self.bound(now, order[depth + 1:], target) >= \
                    best.score()[:5]:
                return False
            t_next = target if m.target_final is None else target.placed(m.target_final)
            plan = self.best(order, depth + 1, now, t_next, touched | m.target_slots)
            if best is None or plan.score() < best.score():
                best = plan
            return True

        hopeful = [m for m in moves if consider(m)]
        # The same contacts pushed to either side of the facing (leaving room for the
        # others): tried after every alternative, and only for those that could still win
        # (a pushed move puts the same models in contact by a path no shorter).
        for m in hopeful:
            for a in aside(m):
                consider(a)
        if best is None:
            return self.best(order, depth + 1, {**placed, decl: None}, target, touched)
        return best

    def bound(self, placed: dict[ChargeDecl, ChargeMove | None],
              rest: tuple[ChargeDecl, ...], target: g.Unit) -> tuple:
        """The best score prefix (Plan.score) any plan starting with ``placed`` could reach:
        every remaining charger in contact with its whole front rank, touching every target
        model its facing presents that is not touched yet, by a path no longer than its
        closest distance (the point that makes contact travels at least that far); no more
        turn."""
        moved = [m for m in placed.values() if m is not None]
        touched = frozenset().union(*(m.target_slots for m in moved))
        reach = set(touched)
        for d in rest:
            reach |= set(g.presented_models(target.formation, self.facings[d]))  # type: ignore[arg-type]
        models = sum(m.charger_models for m in moved) + len(reach) + \
            sum(self.units[d.charger].files for d in rest)
        return (*_ranked(round(sum(abs(m.target_turn_deg) for m in moved), 6),
                         -(len(moved) + len(rest)), -models, 0, self.turn_first),
                round(sum(m.length_mm for m in moved) + sum(self.distance[d] for d in rest)
                      - 1e-6, 6))


def _best_plan(scene: g.Scene, movers: list[ChargeDecl], facings: dict[ChargeDecl, str],
               units: dict[str, g.Unit], distance: dict[ChargeDecl, float],
               rules: MoveRules = T9A_MOVES, reach: dict[ChargeDecl, float] | None = None,
               equalise: bool = False, front_edge: bool = False, turn_first: bool = True,
               engaged: frozenset[str] | None = None
               ) -> tuple[Plan | None, dict[int, tuple[str, ...]]]:
    """The best plan over every order of the movers, and the other enemies each of its moves
    touches at its end (by the move's identity; _Search.secondary)."""
    search = _Search(scene, facings, units, len(movers) > 1, {}, distance, rules, reach or {},
                     equalise, front_edge, turn_first=turn_first, engaged=engaged)
    best: Plan | None = None
    for order in itertools.permutations(movers):
        plan = search.best(order)
        if best is None or plan.score() < best.score():
            best = plan
    return best, search.secondary


def _polished(scene: g.Scene, plan: Plan, units: dict[str, g.Unit], target: g.Unit,
              secondary: dict[ChargeDecl, tuple[str, ...]]) -> Plan:
    """The plan's moves refined to their shortest paths (RULES.md 4, tie-breaks measured),
    one charger at a time with every other charger in its final place (and the other
    enemies its move must touch, ``secondary``, allowed)."""
    moves = dict(plan.moves)
    tgt = target
    for m in moves.values():
        if m is not None and m.target_final is not None:
            tgt = target.placed(m.target_final)
    for d in plan.order:
        m = moves[d]
        if m is None:
            continue
        others = {o: mv for o, mv in moves.items() if o != d}
        current = _placed_scene(scene, units, others, tgt)
        charger = units[d.charger]
        world = World.for_unit(current, charger, target.id)
        if secondary.get(d):
            world = world.with_kind(set(secondary[d]), "secondary")
        into = tgt if m.target_final is None else target
        if m.strip is None:
            moves[d] = polish_move(charger, into, m, world)
            continue
        # Only the front edge is swept (tow 1.4): its strip is refined, and the unit's move
        # made from it kept when its end footprint fits.
        mover, ahead = strip_of(charger)
        better = unit_move(polish_move(mover, into, m.strip, world, charger.formation),  # type: ignore[arg-type]
                           charger, ahead)
        if world.blocked(g.boundary(charger.formation, better.final)) is None:
            moves[d] = better
    return Plan(plan.order, moves, plan.equalise, plan.turn_first)


def resolve_multiple(scene: g.Scene, group: list[ChargeDecl], req: Request,
                     units: dict[str, g.Unit],
                     declared: dict[ChargeDecl, Declaration] | None = None
                     ) -> list[Resolution]:
    """The charges of ``group`` against one target (module doc); ``declared``: their
    declarations before the target fled, when it did (resolution.assess)."""
    target = units[group[0].target]
    results = {d: assess(scene, units[d.charger], target, req.ruleset, d,
                         req.facing_roll.get(d.charger),
                         declared=declared[d] if declared else None) for d in group}
    for d in group:
        roll = roll_for(req, d.charger, results[d].declaration.declarable)
        if roll is not None:
            apply_dice(results[d], roll)
    for d in group:
        if not results[d].declaration.declarable:
            results[d].outcome = "impossible"
    movers = [d for d in group if results[d].declaration.declarable
              and (req.dice is None or results[d].in_range)]
    facings = {d: results[d].declaration.facing for d in group}
    rs = req.ruleset
    reach = {d: g.in_to_mm(r.range_in if r.range_in is not None else
                           (r.charger.advance_in or 0.0) + r.dice_rule.max_total)
             for d, r in results.items()} if rs.range_measure == "paid_path" else {}
    engaged = never_secondary(scene, rs)
    best, touching = _best_plan(scene, movers, facings, units,
                      {d: results[d].declaration.distance.distance_mm for d in group},
                      # A contact nobody aligns is a charger's move where it succeeds
                      # (tow 1.5, the gap left), not where it fails (whfb8 2.5).
                      replace(rs.move_rules(), unaligned=rs.unaligned == "gap"),
                      reach, rs.equalise_chargers,
                      rs.swept == "front_edge", rs.joint_turn_first, engaged)
    moved_units = dict(units)
    if best is not None:
        secondary = {d: touching.get(id(m), ()) for d, m in best.moves.items()}
        best = _polished(scene, best, units, target, secondary)
        for d in best.order:
            res, m = results[d], best.moves[d]
            if m is not res.move:
                # The other enemies its move in the plan touches (none, unless no move of its
                # own touches fewer: _Search.engaged).
                res.secondary, res.secondary_aligns = secondary[d], []
            res.move = m
            if m is None:
                others = [o.charger for o in best.order if best.moves[o] is not None]
                res.out_of_order = (f"{res.charger.id} found no room once "
                                    f"{', '.join(others) or 'the others'} had moved: an "
                                    "impossible charge, so it is a failed charge "
                                    f"({rs.words['multiple']}).") if others else None
                continue
            if req.dice is not None:
                res.outcome = "success"
                flag_fallbacks(res, rs)
            moved_units[d.charger] = units[d.charger].placed(m.final)
            if m.target_final is not None:
                moved_units[target.id] = target.placed(m.target_final)
        for d in best.order:
            if results[d].secondary and not results[d].secondary_aligns:
                # Other enemies its move touches turn to it, where all the chargers stand
                # (tow 1.5, whfb8 2.5).
                settle_secondaries(results[d], scene_with(scene, moved_units))
        n = len(best.moved)
        summary = {"order": [x.charger for x in best.order],
                   "chargers_in_contact": n, "models_in_contact": best.models,
                   "charger_models": {x.charger: best.moves[x].charger_models  # type: ignore[union-attr]
                                      for x in best.order if best.moves[x] is not None},
                   "target_models": best.target_models}
        if rs.same_facing_together and len({facings[d] for d in best.order}) == 1:
            summary["together"] = True  # tow 1.8: the same arc moves simultaneously
        for d in best.order:
            results[d].chargers_in_contact = n
        for d in group:  # the combined figures belong to every entry of the multiple charge
            results[d].multiple = summary
    # Those out of range, or left without room, make failed charge moves after the others,
    # one after another: each sees where the others ended (tow 1.6, whfb8 2.6: 1" from them).
    for d in group:
        res = results[d]
        if req.dice is None or res.outcome in ("success", "impossible"):
            continue
        res.move = None
        _fail(res, scene_with(scene, moved_units), req.ruleset)
        if res.failed is not None:
            moved_units[d.charger] = units[d.charger].placed(res.failed.final)
    return [results[d] for d in group]
