"""Resolving a declared charge (RULES.md 1-7, and each ruleset's hooks): the declaration, the
best move, the dice, the outcome and the units after. Reporting it is charges/report.py's."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import geometry as g

from .accidental import Accidental, accidental_move, fleeing_blockers, meets, path_towards
from .charge_move import ChargeMove, Rejected
from .declaration import Declaration, declare
from .dice import DiceRule, by_count
from .facing_frame import MoveRules
from .failed_wheel import failed_wheel_move, two_wheel_failed_move
from .fleeing import search_fleeing
from .front_edge import strip_of, unit_move
from .moves import FailedMove, failed_charge_move
from .plan import SearchMemo, SearchPlan
from .refine import polish_move
from .request import ChargeDecl
from .rulesets import Ruleset
from .search import search_charge, shortest_move
from .secondary import search_secondary
from .secondary_align import SecondaryAlign, align_secondaries
from .special import Placement, SpecialPlan, plan_special, reform_placement
from .world import World


@dataclass
class Resolution:
    """Everything known about one declared charge."""

    decl: ChargeDecl
    charger: g.Unit
    target: g.Unit
    declaration: Declaration
    dice_rule: DiceRule
    needed: int
    dice: tuple[int, ...] | None = None
    roll_total: int | None = None  # what the dice made (apply_dice)
    range_in: float | None = None
    move: ChargeMove | None = None
    rejected: list[Rejected] = field(default_factory=list)
    special: SpecialPlan | None = None
    placement: Placement | None = None
    failed: FailedMove | None = None
    outcome: str | None = None
    odds: float = 0.0
    notes: list[str] = field(default_factory=list)
    out_of_order: str | None = None  # why a multiple charger found no room
    chargers_in_contact: int = 1  # RULES.md 8: over all chargers of the target
    #: A multiple charge's combined figures (RULES.md 8): move order, chargers and models in
    #: contact over all chargers (each model once), per-charger and target models.
    multiple: dict[str, Any] | None = None
    #: Other enemies the move cannot avoid touching at its end (RULES.md 4, priority 1).
    secondary: tuple[str, ...] = ()
    #: Those of them touched at an angle, aligning to the charger (tow 1.5, whfb8 2.5).
    secondary_aligns: list[SecondaryAlign] = field(default_factory=list)
    world: World | None = None  # the charger's world, in the scene it was assessed in
    world_scene: g.Scene | None = None
    ruleset: Ruleset | None = None
    #: The shortest legal paid path (mm), when the roll is compared with the path (tow 1.3).
    shortest_mm: float | None = None
    #: The target's Flee! reaction to this charge, when it fled (charges/flee.py).
    flight: Any = None
    #: The request gave the target a flee roll, but no charge against it could be declared,
    #: so it made no reaction (tow 1.7, whfb8 2.7: a reaction answers a declared charge).
    flee_not_made: bool = False
    #: The declaration made before any reaction or move (its distance: where the target
    #: stood before it fled), when the ruling settled it first.
    declared: Declaration | None = None
    #: Why the charger makes no move at all (tow 1.2: a Marching Column), when it does not.
    stays: str | None = None
    #: Set when the target had to align to the charger and the ruleset flags it (tow:
    #: ``disordered``, 1.5).
    flags: dict[str, Any] = field(default_factory=dict)
    #: The best move through fleeing enemies in the way, when it is better than any other
    #: (tow 1.5, accidental contact), and those enemies.
    through: ChargeMove | None = None
    blockers: frozenset[str] = frozenset()
    #: The shortest paid path into them (tow 1.3: the roll needed when only ``through``
    #: reaches the target).
    through_shortest_mm: float | None = None
    #: What the charger does when it meets one: ``halt`` or ``continue`` (the request's
    #: ``on_accidental_contact``).
    on_accidental: str = "halt"
    accidental: Accidental | None = None

    @property
    def through_compared_mm(self) -> float:
        """What the roll is compared with when only ``through`` reaches the target: the
        shortest path into the fleeing enemies (tow 1.3)."""
        assert self.through is not None
        return self.through_shortest_mm if self.through_shortest_mm is not None else \
            self.through.length_mm

    @property
    def compared_mm(self) -> float:
        """What the roll is compared with: the closest distance (RULES.md 3), or the shortest
        legal paid path (tow 1.3; the distance when no path exists)."""
        if self.ruleset is not None and self.ruleset.range_measure == "paid_path" and \
                self.shortest_mm is not None:
            return self.shortest_mm
        return self.declaration.distance.distance_mm

    @property
    def in_range(self) -> bool | None:
        if self.range_in is None:
            return None
        return g.in_to_mm(self.range_in) >= self.compared_mm - g.EPS_MM


def scene_with(scene: g.Scene, units: dict[str, g.Unit]) -> g.Scene:
    return g.Scene.model_construct(table=scene.table, terrain=scene.terrain,
                                   units=[units.get(u.id, u) for u in scene.units])


def _odds(res: Resolution) -> float:
    """Chance of success before rolling: the roll must cover the distance and a legal move (or
    a special charge that reaches an enemy) must exist (RULES.md 3); a contact nobody can
    align fails in whfb8 (2.5)."""
    if not res.declaration.declarable:
        return 0.0
    if res.move is not None and not res.move.aligned and res.ruleset is not None and \
            res.ruleset.unaligned == "fail":
        return 0.0
    if res.move is not None:
        return float(res.dice_rule.chance_at_least(res.needed))
    if res.special is not None and res.special.charged is not None:
        scene = res.world_scene
        if scene is not None and scene.unit(res.special.charged).state == "engaged":
            return 0.0  # an engaged unit never reforms, so no special charge (RULES.md 5)
        if scene is not None and reform_placement(
                scene, res.charger, g.forward(res.charger.pose, res.special.forward_mm),
                scene.unit(res.special.charged)) is None:
            return 0.0  # no room to reform, whatever the roll (RULES.md 5)
        reach = max(res.declaration.distance.distance_mm, res.special.forward_mm)
        need = res.dice_rule.needed(g.mm_to_in(reach), res.charger.advance_in or 0.0)
        return float(res.dice_rule.chance_at_least(need))
    return 0.0


def _rules(charger: g.Unit, ruleset: Ruleset) -> tuple[object, MoveRules, float]:
    """The unit the search moves (its front edge alone when the ruleset sweeps only that),
    the search's rules, and how far that strip stands ahead of the unit's centre."""
    if ruleset.swept == "front_edge":
        mover, ahead = strip_of(charger)
        return mover, ruleset.move_rules(charger.formation), ahead
    return charger, ruleset.move_rules(), 0.0


def never_secondary(scene: g.Scene, ruleset: Ruleset) -> frozenset[str]:
    """The units a move may never touch as other enemies charged too: an engaged unit, and a
    fleeing one where meeting it is accidental contact (tow 1.5)."""
    return frozenset(u.id for u in scene.units if u.state == "engaged" or (
        u.state == "fleeing" and ruleset.accidental_contact))


def find_move(scene: g.Scene, charger: g.Unit, target: g.Unit, facing: g.FacingName,
              world: World, ruleset: Ruleset, max_length: float = math.inf,
              memo: SearchMemo | None = None
              ) -> tuple[ChargeMove | None, list[Rejected], tuple[str, ...]]:
    """The best legal charge move by the ruleset's rules (RULES.md 4; tow 1.4), within
    ``max_length`` of path: (move, better groups rejected, other enemies it must touch)."""
    mover, rules, ahead = _rules(charger, ruleset)
    if g.closest(charger.body.polygon, target.body.polygon).distance_mm <= g.EPS_MM:
        # Already in contact: the charge moves no further, only the align remains (a path
        # of zero length; tow 1.4: "stop as soon as the units touch").
        max_length = min(max_length, 1e-3)
    # Built only if the target-turn fallback is reached (RULES.md 4, priority 2).
    target_world = partial(World.for_unit, scene, target, ignore=frozenset({charger.id}))
    memo = memo if memo is not None else SearchMemo()
    move, rejected = search_charge(mover, target, facing, world, target_world,  # type: ignore[arg-type]
                                   memo=memo, rules=rules, max_length=max_length)
    secondary: tuple[str, ...] = ()
    if move is not None and not move.aligned and ruleset.unaligned == "fail":
        # whfb8 2.5: a contact nobody can align to fails the charge, so it does not count as
        # a way to complete it; one touching another enemy ("clipping") does.
        clip, also = search_secondary(mover, target, facing, world, target_world,  # type: ignore[arg-type]
                                      never_secondary(scene, ruleset), memo, rules, max_length)
        if clip is not None and clip.aligned:
            move, secondary = clip, also
    if move is None:
        move, secondary = search_secondary(mover, target, facing, world, target_world,  # type: ignore[arg-type]
                                           never_secondary(scene, ruleset), memo, rules, max_length)
    if move is not None and ahead:
        move = unit_move(move, charger, ahead)
        fits = world.with_kind(set(secondary), "secondary") if secondary else world
        if fits.blocked(g.boundary(charger.formation, move.final)) is not None:
            move = None  # the whole footprint does not fit where the front edge arrived
    return move, rejected, secondary


def flag_fallbacks(res: Resolution, ruleset: Ruleset) -> None:
    """A successful move that left the gap, or that the target aligned to, sets the
    ruleset's flag (tow 1.5: "either way the charge is disordered")."""
    m = res.move
    if m is not None and ruleset.target_aligns_flag and (
            not m.aligned or m.target_final is not None):
        res.flags[ruleset.target_aligns_flag] = True


def settle_secondaries(res: Resolution, scene: g.Scene) -> None:
    """The other enemies the move touches at an angle align to the charger, where the ruleset
    says so (tow 1.5, whfb8 2.5; charges/secondary_align.py): in the scene the move leaves,
    the charger and a turned target at their final poses."""
    res.secondary_aligns = []
    rs = res.ruleset
    if rs is None or not rs.secondary_aligns or res.move is None or not res.secondary:
        return
    charger = res.charger.placed(res.move.final)
    moved = {charger.id: charger}
    if res.move.target_final is not None:
        moved[res.target.id] = res.target.placed(res.move.target_final)
    res.secondary_aligns = align_secondaries(scene_with(scene, moved), charger, res.secondary)


def _fleeing_move(scene: g.Scene, charger: g.Unit, target: g.Unit, world: World,
                  ruleset: Ruleset, max_length: float) -> ChargeMove | None:
    """Charging a fleeing unit: any facing. t9a-1 (RULES.md 7): no align, the shortest move
    that reaches it; tow (1.7, running down): a normal charge move into whichever facing it
    best meets."""
    if not ruleset.fleeing_aligns:
        return search_fleeing(charger, target, world)
    best: ChargeMove | None = None
    for facing in g.FACINGS:
        move, _, _ = find_move(scene, charger, target, facing, world, ruleset, max_length)
        if move is not None and (best is None or (
                ruleset.group_key(move.charger_models, move.target_models), move.length_mm) <
                (ruleset.group_key(best.charger_models, best.target_models), best.length_mm)):
            best = move
    return best


def assess(scene: g.Scene, charger: g.Unit, target: g.Unit, ruleset: Ruleset,
           decl: ChargeDecl, facing_roll: int | None = None,
           provisional_facing: bool = False, declared: Declaration | None = None
           ) -> Resolution:
    """Declaration, facing, odds and the best move, before any dice (RULES.md 1-5, 7; and the
    ruleset's hooks: a paid path's roll needed, a declaration that needs room). A contested
    facing needs its roll, unless ``provisional_facing`` (a charge map) takes the provisional
    one. ``declared``: the declaration made before the target's Flee! reaction, when it fled
    (``target`` then stands where it fled): whether the charge could be declared was settled
    then (tow 1.2, whfb8 2.2: the target reacts after the declaration), and the range test
    is against the fled position (tow 1.7, whfb8 2.7)."""
    d = declare(scene, charger, target, ruleset, facing_roll=facing_roll)
    if declared is not None:
        # The facing too was fixed as the charge was declared, before the reaction (whfb8
        # 2.1, RULES-editions.md 6 facing_fixed_at): a fled target is then charged in any
        # facing, but the ruling's facing and its evidence are the declaration's.
        d = replace(d, declarable=declared.declarable, reasons=list(declared.reasons),
                    in_front_arc=declared.in_front_arc, visible=declared.visible,
                    room_checked=declared.room_checked, facing=declared.facing,
                    shares=declared.shares, decision=declared.decision)
    if d.decision is not None and not provisional_facing:
        ruleset.check_facing_roll(d.decision, facing_roll, charger.id, target.id)
    rule = ruleset.dice_for(charger)
    adv = charger.advance_in or 0.0
    needed = rule.needed(d.distance.distance_in, adv)
    res = Resolution(decl, charger, target, d, rule, needed, ruleset=ruleset,
                     declared=declared)
    if not d.declarable:
        res.odds = _odds(res)
        return res
    res.stays = ruleset.cannot_make_a_move(charger)
    if res.stays is not None:
        return res  # declarable, but it cannot move: the odds are nil (tow 1.2)
    world = World.for_unit(scene, charger, target.id)
    res.world, res.world_scene = world, scene
    paid = ruleset.range_measure == "paid_path"
    # Within EPS_MM, as the range test (declaration.declare) and the roll needed measure.
    longest = g.in_to_mm(adv + rule.max_total) + g.EPS_MM if paid else math.inf
    memo: SearchMemo | None = None
    if target.state == "destroyed":
        pass  # it fled off the table after the declaration: nothing left to reach
    elif target.state == "fleeing":
        res.move = _fleeing_move(scene, charger, target, world, ruleset, longest)
    else:
        memo = SearchMemo()
        res.move, res.rejected, res.secondary = find_move(scene, charger, target, d.facing,
                                                          world, ruleset, longest, memo)
        settle_secondaries(res, scene)
        if res.move is None and ruleset.special_charge:
            res.special = plan_special(scene, charger, target, d.facing, world, ruleset,
                                       memo)
        if ruleset.accidental_contact:
            _through(scene, res, world, ruleset, longest)
    if paid and res.move is not None:
        res.shortest_mm = _shortest_paid(res, res.move, world, ruleset, longest, memo)
        res.needed = rule.needed(g.mm_to_in(res.shortest_mm), adv)
    elif paid and res.through is not None:
        # tow 1.3, 7a: the roll needed is the SHORTEST path's, here the shortest that runs
        # into the fleeing enemies (the best one may be longer; any roll that reaches the
        # shortest already halts the charge or runs one down, tow 1.5).
        res.through_shortest_mm = _shortest_paid(res, res.through,
                                                 world.without(set(res.blockers)), ruleset,
                                                 longest, memo)
        res.needed = rule.needed(g.mm_to_in(res.through_shortest_mm), adv)
    if ruleset.requires_room and res.move is None and res.special is None and \
            res.through is None and target.state != "destroyed" and not d.room_checked:
        # A target fleeing before the charge is declared too: no exception is made for it
        # (tow 1.2; 7a). One that fled in reaction was checked as it was declared.
        why = ("no charge move within the longest possible roll of "
               f"{adv + rule.max_total:g} in") if paid else "no legal charge move exists"
        res.declaration = replace(d, declarable=False, reasons=[*d.reasons, why])
    res.odds = _odds(res)
    return res


def room_when_declared(scene: g.Scene, charger: g.Unit, target: g.Unit, ruleset: Ruleset,
                       decl: ChargeDecl, d: Declaration, might_move: frozenset[str],
                       facing_roll: int | None = None) -> Declaration:
    """``d`` with the ruleset's "no impossible charge" test made as the charge is declared
    (tow 1.2, whfb8 2.2: obstructions that make every charge move impossible forbid it,
    "unless a unit might move out of the way"): some legal move within the longest possible
    roll must exist in ``scene`` without the units of ``might_move``, the charger's friends
    with a charge of their own to make ([D] tow 1.2: they might move first; enemies do not
    move but by fleeing). Sight and the rest were judged in the whole scene."""
    if not ruleset.requires_room or not d.declarable:
        return replace(d, room_checked=True)
    gone = might_move - {charger.id, target.id}
    view = scene if not gone else g.Scene.model_construct(
        table=scene.table, terrain=scene.terrain,
        units=[u for u in scene.units if u.id not in gone])
    room = assess(view, charger, target, ruleset, decl, facing_roll).declaration
    if room.declarable:
        return replace(d, room_checked=True)
    return replace(d, declarable=False, reasons=[*d.reasons, room.reasons[-1]],
                   room_checked=True)


def _through(scene: g.Scene, res: Resolution, world: World, ruleset: Ruleset,
             longest: float) -> None:
    """tow 1.5: the best move were the fleeing enemies not there, kept when it meets one of
    them and no ordinary move is as short (so some roll halts the charge or runs one down)."""
    blockers = frozenset(fleeing_blockers(scene, world, res.target.id))
    if not blockers:
        return
    if res.move is not None and ruleset.range_measure != "paid_path":
        return  # the ordinary move is made whatever the roll
    through, _, _ = find_move(scene, res.charger, res.target, res.declaration.facing,
                              world.without(set(blockers)), ruleset, longest)
    if through is None or (res.move is not None and
                           through.length_mm >= res.move.length_mm - g.EPS_MM):
        return
    if not meets(scene, res.charger, through, set(blockers)):
        return  # it does not meet them after all
    res.through, res.blockers = through, blockers


def _accidental(scene: g.Scene, res: Resolution, ruleset: Ruleset) -> bool:
    """tow 1.5: no ordinary move within the roll, but the move through a fleeing enemy is:
    the charger halts 1" from it or runs it down (charges/accidental.py)."""
    if res.through is None or res.world is None or res.range_in is None:
        return False
    reach = g.in_to_mm(res.range_in)
    through = res.through
    if through.length_mm > reach + g.EPS_MM:
        through, _, _ = find_move(scene, res.charger, res.target, res.declaration.facing,
                                  res.world.without(set(res.blockers)), ruleset, reach)
        if through is None:
            return False
    choice = "continue" if res.on_accidental == "continue" else "halt"
    acc = accidental_move(scene, res.charger, through, set(res.blockers), res.world, choice)
    if acc is None:
        return False
    res.accidental = acc
    res.outcome = "halted" if choice == "halt" else "ran_down"
    return True


def _shortest_paid(res: Resolution, move: ChargeMove, world: World, ruleset: Ruleset,
                   longest: float, memo: SearchMemo | None) -> float:
    """The shortest legal paid path in ``world`` into the facing of ``move``, the best move
    found there (tow 1.3: the roll needed). No path is shorter than the closest distance (the
    point that ends in contact travels at least that far, and no point of the front edge
    travels further than the path pays), so a best move that long is the shortest."""
    if move.length_mm <= res.declaration.distance.distance_mm + 1e-9:
        return move.length_mm
    mover, rules, _ = _rules(res.charger, ruleset)
    plan = memo.plan_for(mover, res.target, move.facing, rules=rules) \
        if memo is not None and move.facing == res.declaration.facing else \
        SearchPlan.of(mover, res.target, move.facing, rules=rules)  # type: ignore[arg-type]
    short = shortest_move(mover, res.target, world, plan, longest)  # type: ignore[arg-type]
    if short is None:
        return move.length_mm
    short = polish_move(mover, res.target, short, world, rules.end_form)  # type: ignore[arg-type]
    return min(move.length_mm, short.length_mm)


def apply_dice(res: Resolution, dice: tuple[int, ...]) -> None:
    """The roll made: its total by the dice rule of its count (tow 1.3: Swiftstride's +D6 is
    optional, two dice are the roll without it)."""
    res.dice = dice
    rule = by_count(res.ruleset.roll_rules(res.charger), len(dice)) \
        if res.ruleset is not None else res.dice_rule
    res.roll_total = rule.total(dice)
    res.range_in = (res.charger.advance_in or 0.0) + res.roll_total


def _fail(res: Resolution, scene: g.Scene, ruleset: Ruleset) -> None:
    """RULES.md 6: the failed charge move; the charger becomes disrupted. It stops short of
    everything, the target included: the charge's world with the target as any enemy, when
    the charge was assessed in this very scene."""
    res.outcome = "failed"
    if res.dice is None:
        return
    res.failed = _failed_move(res, scene, ruleset,
                              g.in_to_mm(ruleset.failed_distance_in(res.dice)))


def _failed_move(res: Resolution, scene: g.Scene, ruleset: Ruleset, dist: float
                 ) -> FailedMove:
    """The failed charge move of ``dist`` by the ruleset: a turn about the centre then
    forward (RULES.md 6), or a paid wheel towards the target then forward, keeping its gap
    (tow 1.6: 1" from every enemy; whfb8 2.6: 1" from units and impassable terrain)."""
    if res.world is not None and res.world_scene is scene:
        world = res.world.with_kind({res.target.id}, "enemy")
    else:
        world = World.for_unit(scene, res.charger)
    c = res.charger
    if ruleset.failed_turns:
        return failed_charge_move(c.formation, c.pose, res.target.pose.centre, dist, world)
    keep = World(world.table, [o for o in world.obstacles if o.kind in (
        "enemy", "target") or not ruleset.gap_from_enemies_only], world.table_eps)
    make = two_wheel_failed_move if ruleset.failed_wheels >= 2 else failed_wheel_move
    return make(c.formation, c.pose, res.target.pose.centre, dist, world,
                ruleset.failed_gap_mm, keep)


def resolve(scene: g.Scene, res: Resolution, ruleset: Ruleset) -> None:
    """Decide the outcome of one assessed charge with dice (RULES.md 3-7; the ruleset's
    hooks: the roll against the paid path, a fleeing target that escapes)."""
    if not res.declaration.declarable:
        res.outcome = "impossible"
        return
    if res.dice is None:
        return
    if res.stays is not None:
        res.outcome = "failed"  # tow 1.2: it does not move at all
        return
    if ruleset.range_measure == "paid_path" and res.move is not None and res.in_range and \
            res.move.length_mm > g.in_to_mm(res.range_in or 0.0) + g.EPS_MM:
        # The best move is too long for this roll: the best one that fits (tow 1.3 [D]).
        assert res.world is not None
        reach = g.in_to_mm(res.range_in or 0.0)
        if res.target.state == "fleeing":
            res.move = _fleeing_move(scene, res.charger, res.target, res.world, ruleset, reach)
        else:
            res.move, res.rejected, res.secondary = find_move(
                scene, res.charger, res.target, res.declaration.facing, res.world, ruleset,
                reach)
            settle_secondaries(res, scene)
    if (res.move is None or not res.in_range) and _accidental(scene, res, ruleset):
        return
    if not res.in_range or (ruleset.range_measure == "paid_path" and res.move is None):
        if has_fled(res.target) and ruleset.fleeing_miss == "escaped":
            _escaped(res, scene, ruleset)
            return
        _fail(res, scene, ruleset)
        return
    if res.move is not None and not res.move.aligned and ruleset.unaligned == "fail":
        res.notes.append(f"{res.charger.id} cannot close the door on {res.target.id}, nor "
                         f"can {res.target.id}: the charge fails")
        _fail(res, scene, ruleset)
        return
    if res.move is not None:
        res.outcome = "caught_fleeing" if res.target.state == "fleeing" else "success"
        flag_fallbacks(res, ruleset)
        return
    sp = res.special
    if sp is not None and sp.charged is not None and \
            sp.forward_mm <= g.in_to_mm(res.range_in or 0.0) + g.EPS_MM:
        charged = scene.unit(sp.charged)
        pose = g.forward(res.charger.pose, sp.forward_mm)
        if charged.state != "engaged":
            res.placement = reform_placement(scene, res.charger, pose, charged)
        if res.placement is not None:
            res.outcome = "special"
            return
        res.notes.append(f"{charged.id} cannot reform against {res.charger.id} anywhere on the "
                         "table, so the special charge cannot be made")
    if has_fled(res.target) and ruleset.fleeing_miss == "escaped":
        _escaped(res, scene, ruleset)
        return
    _fail(res, scene, ruleset)


def has_fled(target: g.Unit) -> bool:
    """Whether the charged unit is fleeing, or fled off the table after the declaration
    (a destroyed unit cannot be charged otherwise)."""
    return target.state in ("fleeing", "destroyed")


def _escaped(res: Resolution, scene: g.Scene, ruleset: Ruleset) -> None:
    """tow 1.7: the fleeing target was not reached: it has escaped (not a failed charge) and
    the charger moves its full charge range towards it along the best charge path of 1.4,
    stopped 1" from enemies (charges/accidental.py, path_towards)."""
    res.outcome = "target_escaped"
    dist = g.in_to_mm(res.range_in or 0.0)
    world = res.world if res.world is not None and res.world_scene is scene else None
    along = _fleeing_move(scene, res.charger, res.target, world, ruleset, math.inf) \
        if world is not None and res.target.state == "fleeing" else None
    if along is None:  # no charge path reaches it at all: straight at it, as a failed move
        res.failed = _failed_move(res, scene, ruleset, dist)
        return
    steps, pose, hit = path_towards(scene, res.charger, along, dist, world,
                                    ruleset.failed_gap_mm)
    form = res.charger.formation
    moved = sum(s.length_mm(form) for s in steps)
    wheel = sum(s.angle_deg for s in steps if isinstance(s, g.Wheel))
    stopped = None if hit is None or moved >= dist - 1e-3 else next(
        (o.describe() for o in world.obstacles if o.id == hit), hit)
    res.failed = FailedMove(steps, pose, wheel, wheel, None, dist, moved, stopped, "path")


def charger_after(res: Resolution) -> tuple[g.Pose, str]:
    """The charger's pose and state after the ruling."""
    c = res.charger
    if res.outcome in ("success",) and res.move is not None:
        return res.move.final, "engaged"
    if res.outcome == "caught_fleeing" and res.move is not None:
        return res.move.final, "disrupted"
    if res.outcome == "special":
        assert res.special is not None
        return g.forward(c.pose, res.special.forward_mm), "engaged"
    if res.outcome == "failed":
        return (res.failed.final if res.failed is not None else c.pose), "disrupted"
    # Not failed charges (tow 1.7, 1.5), but charges all the same: a unit that charged this
    # turn cannot move again (tow 1.6, RULES-editions.md 6 after_failed), so it is not
    # ``ready`` for a chained ruling.
    if res.outcome == "target_escaped" and res.failed is not None:
        return res.failed.final, "disrupted"
    if res.outcome in ("halted", "ran_down") and res.accidental is not None:
        return res.accidental.final, "disrupted"
    return c.pose, c.state


def apply_outcome(units: dict[str, g.Unit], res: Resolution) -> None:
    pose, state = charger_after(res)
    units[res.charger.id] = res.charger.placed(pose, state=state)
    t = res.target
    if res.outcome == "success" and res.move is not None:
        tpose = res.move.target_final or units[t.id].pose
        units[t.id] = units[t.id].placed(tpose, state="engaged")
        turned = {a.unit: a.final for a in res.secondary_aligns if a.final is not None}
        for other in res.secondary:  # charged too (RULES.md 4, unavoidable contact)
            units[other] = units[other].placed(turned.get(other, units[other].pose),
                                               state="engaged")
    elif res.outcome == "caught_fleeing":
        units[t.id] = units[t.id].placed(units[t.id].pose, state="destroyed")
    elif res.outcome == "ran_down" and res.accidental is not None:
        b = res.accidental.blocker  # run down (tow 1.5, Continuing Ahead)
        units[b] = units[b].placed(units[b].pose, state="destroyed")
    elif res.outcome == "special" and res.placement is not None and res.special is not None:
        cid = res.special.charged
        assert cid is not None
        p = res.placement
        changes: dict[str, Any] = {"state": "engaged"}
        if (p.files, p.ranks) != (units[cid].files, units[cid].ranks):
            n = units[cid].model_count
            rear = n - p.files * (p.ranks - 1)
            changes.update(files=p.files, ranks=p.ranks, models=n,
                           rear_rank=list(range(rear)) if rear < p.files else "centre")
        units[cid] = units[cid].placed(p.pose, **changes)
