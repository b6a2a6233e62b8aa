"""Rulings: the whole answer to a request (DESIGN.md, Ruling; RULES.md 1-8).

:func:`rule` parses the request, resolves the charges against each target in turn (a target
charged by several units is a multiple charge, RULES.md 8), and returns the ruling JSON with
every figure and the explanation a player can read aloud.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from typing import Any

import geometry as g

from .declaration import Declaration, declare
from .dice import DiceRule
from .explain import explain
from .fleeing import search_fleeing
from .moves import FailedMove, failed_charge_move
from .request import ChargeDecl, Request, parse_request
from .rulesets import Ruleset
from .search import ChargeMove, Rejected, SearchMemo, search_charge
from .secondary import search_secondary
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
    world: World | None = None  # the charger's world, in the scene it was assessed in
    world_scene: g.Scene | None = None

    @property
    def in_range(self) -> bool | None:
        if self.range_in is None:
            return None
        return g.in_to_mm(self.range_in) >= self.declaration.distance.distance_mm - g.EPS_MM


def _scene_with(scene: g.Scene, units: dict[str, g.Unit]) -> g.Scene:
    return g.Scene.model_construct(table=scene.table, terrain=scene.terrain,
                                   units=[units.get(u.id, u) for u in scene.units])


def _odds(res: Resolution) -> float:
    """Chance of success before rolling: the roll must cover the distance and a legal move (or
    a special charge that reaches an enemy) must exist (RULES.md 3)."""
    if not res.declaration.declarable:
        return 0.0
    if res.move is not None:
        return float(res.dice_rule.chance_at_least(res.needed))
    if res.special is not None and res.special.charged is not None:
        reach = max(res.declaration.distance.distance_mm, res.special.forward_mm)
        need = res.dice_rule.needed(g.mm_to_in(reach), res.charger.advance_in or 0.0)
        return float(res.dice_rule.chance_at_least(need))
    return 0.0


def assess(scene: g.Scene, charger: g.Unit, target: g.Unit, ruleset: Ruleset,
           decl: ChargeDecl) -> Resolution:
    """Declaration, facing, odds and the best move, before any dice (RULES.md 1-5, 7)."""
    d = declare(scene, charger, target, ruleset)
    rule = ruleset.dice_for(charger)
    needed = rule.needed(d.distance.distance_in, charger.advance_in or 0.0)
    res = Resolution(decl, charger, target, d, rule, needed)
    if d.declarable:
        world = World.for_unit(scene, charger, target.id)
        res.world, res.world_scene = world, scene
        if target.state == "fleeing":
            res.move = search_fleeing(charger, target, world)
        else:
            # Built only if the target-turn fallback is reached (RULES.md 4, priority 2).
            target_world = partial(World.for_unit, scene, target,
                                   ignore=frozenset({charger.id}))
            memo = SearchMemo()
            res.move, res.rejected = search_charge(charger, target, d.facing, world,
                                                   target_world, memo=memo)
            if res.move is None:
                engaged = frozenset(u.id for u in scene.units if u.state == "engaged")
                res.move, res.secondary = search_secondary(charger, target, d.facing, world,
                                                           target_world, engaged, memo)
            if res.move is None:
                res.special = plan_special(scene, charger, target, d.facing, world, ruleset,
                                           memo)
    res.odds = _odds(res)
    return res


def _apply_dice(res: Resolution, dice: tuple[int, ...]) -> None:
    res.dice = dice
    res.range_in = (res.charger.advance_in or 0.0) + res.dice_rule.total(dice)


def _fail(res: Resolution, scene: g.Scene, ruleset: Ruleset) -> None:
    """RULES.md 6: the failed charge move; the charger becomes disrupted. It stops short of
    everything, the target included: the charge's world with the target as any enemy, when
    the charge was assessed in this very scene."""
    res.outcome = "failed"
    if res.dice is None:
        return
    if res.world is not None and res.world_scene is scene:
        world = res.world.with_kind({res.target.id}, "enemy")
    else:
        world = World.for_unit(scene, res.charger)
    dist = g.in_to_mm(ruleset.failed_distance_in(res.dice))
    res.failed = failed_charge_move(res.charger.formation, res.charger.pose,
                                    res.target.pose.centre, dist, world)


def resolve(scene: g.Scene, res: Resolution, ruleset: Ruleset) -> None:
    """Decide the outcome of one assessed charge with dice (RULES.md 3-7)."""
    if not res.declaration.declarable:
        res.outcome = "impossible"
        return
    if res.dice is None:
        return
    if not res.in_range:
        _fail(res, scene, ruleset)
        return
    if res.move is not None:
        res.outcome = "caught_fleeing" if res.target.state == "fleeing" else "success"
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
    _fail(res, scene, ruleset)


def _charger_after(res: Resolution) -> tuple[g.Pose, str]:
    """The charger's pose and state after the ruling."""
    c = res.charger
    if res.outcome in ("success",) and res.move is not None:
        return res.move.final, "engaged"
    if res.outcome == "caught_fleeing" and res.move is not None:
        return res.move.final, "disrupted"
    if res.outcome == "special":
        assert res.special is not None
        return g.forward(c.pose, res.special.forward_mm), "engaged"
    if res.outcome == "failed" and res.failed is not None:
        return res.failed.final, "disrupted"
    return c.pose, c.state


def _apply(units: dict[str, g.Unit], res: Resolution) -> None:
    pose, state = _charger_after(res)
    units[res.charger.id] = res.charger.placed(pose, state=state)
    t = res.target
    if res.outcome == "success" and res.move is not None:
        tpose = res.move.target_final or units[t.id].pose
        units[t.id] = units[t.id].placed(tpose, state="engaged")
        for other in res.secondary:  # charged too (RULES.md 4, unavoidable contact)
            units[other] = units[other].placed(units[other].pose, state="engaged")
    elif res.outcome == "caught_fleeing":
        units[t.id] = units[t.id].placed(units[t.id].pose, state="destroyed")
    elif res.outcome == "special" and res.placement is not None and res.special is not None:
        cid = res.special.charged
        assert cid is not None
        p = res.placement
        changes: dict[str, Any] = {"state": "engaged"}
        if (p.files, p.ranks) != (units[cid].files, units[cid].ranks):
            n = units[cid].model_count
            rear = n - p.files * (p.ranks - 1)
            changes.update(files=p.files, ranks=p.ranks,
                           rear_rank=list(range(rear)) if rear < p.files else "centre")
        units[cid] = units[cid].placed(p.pose, **changes)


def _sigma_mm(units: list[g.Unit]) -> float:
    """Combined position uncertainty of the units a ruling depends on: each unit's sigma_mm,
    plus its sigma_deg turned into millimetres at its far corner."""
    total = 0.0
    for u in units:
        radius = math.hypot(u.formation.width, u.formation.depth) / 2
        total += u.sigma_mm ** 2 + (math.radians(u.sigma_deg) * radius) ** 2
    return math.sqrt(total)


def _facing_margin(res: Resolution) -> float:
    """How far the charger could move before the charged facing changes: the share of the
    winning arc above one half, spread over the length of the charger cut by the arc's rays; or,
    when no ray crosses the charger, its distance to the nearest ray."""
    t, c = res.target, res.charger
    win = t.body.arcs[res.declaration.facing]  # built by the declaration already
    poly = c.body.polygon
    share = res.declaration.shares[res.declaration.facing]
    ray_lines = win.exterior.difference(t.body.polygon.buffer(1e-6))
    cut = poly.intersection(ray_lines).length
    if cut > 1e-6:
        return max(share - 0.5, 0.0) * poly.area / cut
    return float(poly.distance(ray_lines))


def _margin(res: Resolution) -> float:
    facing = _facing_margin(res)
    d = res.declaration.distance.distance_mm
    if res.range_in is not None:
        rng = abs(g.in_to_mm(res.range_in) - d)
    else:
        rng = abs(g.in_to_mm(res.declaration.max_range_in) - d)
    return min(facing, rng)


def _round(x: float | None, nd: int = 3) -> float | None:
    return None if x is None else round(x, nd)


def _pose_json(p: g.Pose | None) -> dict | None:
    return None if p is None else p.to_json()


def _path_json(res: Resolution) -> list[dict]:
    c = res.charger
    steps: list[tuple[g.Step, str]] = []
    if res.outcome in ("success", "caught_fleeing", None) and res.move is not None:
        steps = [(s, c.id) for s in res.move.steps]
    elif res.outcome == "special" and res.special is not None:
        if res.special.forward_mm > 1e-9:
            steps.append((g.Forward(res.special.forward_mm), c.id))
        if res.placement is not None and res.special.charged is not None:
            p = res.placement
            changed = (p.files, p.ranks) != (res.target.files, res.target.ranks) \
                if res.special.charged == res.target.id else p.reformed_ranks
            steps.append((g.Reform(p.pose, p.files if changed else None,
                                   p.ranks if changed else None), res.special.charged))
    elif res.outcome == "failed" and res.failed is not None:
        steps = [(s, c.id) for s in res.failed.steps]
    out = []
    poses: dict[str, g.Pose] = {c.id: c.pose}
    for step, uid in steps:
        before = poses.get(uid, c.pose)
        form = c.formation if uid == c.id else res.target.formation
        after = step.apply(form, before)
        poses[uid] = after
        out.append(g.step_to_json(step, after, uid))
    if res.outcome in ("success", None) and res.move is not None and \
            res.move.target_final is not None:
        m = res.move
        assert m.target_pivot is not None
        # The target turns about the contact point (RULES.md 4, fallback).
        out.append(g.step_to_json(g.Align(m.target_pivot, m.target_turn_deg), m.target_final,
                                  res.target.id))
    return out


def to_json(res: Resolution, ruleset: Ruleset, sigma: float) -> dict:
    d = res.declaration
    margin = _margin(res)
    certain = sigma == 0.0 or margin > 3 * sigma
    final, _ = _charger_after(res)
    contact = None
    tf = None
    if res.outcome in ("success", "caught_fleeing", None) and res.move is not None:
        m = res.move
        seg = g.contact.flush_contact(g.Body(res.charger.formation, m.final),
                                      g.Body(res.target.formation, m.target_final or
                                             res.target.pose))
        contact = {"charger_models": m.charger_models, "target_models": m.target_models,
                   "models": m.models,
                   "segment": [list(map(lambda v: round(v, 3), p)) for p in seg.segment]
                   if seg else None,
                   "charger_model_slots": sorted(map(list, m.charger_slots)),
                   "target_model_slots": sorted(map(list, m.target_slots))}
        tf = m.target_final
        if res.outcome is None:
            final = m.final
    elif res.outcome == "special" and res.placement is not None:
        p = res.placement
        contact = {"charger_models": p.charger_models, "target_models": p.target_models,
                   "models": p.charger_models + p.target_models, "segment": None}
        tf = p.pose
    priorities = None
    if res.move is not None and res.target.state != "fleeing":
        m = res.move
        priorities = {"order": list(ruleset.priorities), "other_enemies": 0,
                      "target_turned_deg": round(abs(m.target_turn_deg), 4),
                      "chargers_in_contact": res.chargers_in_contact,
                      "models_in_contact": m.models,
                      "charger_models": m.charger_models, "target_models": m.target_models,
                      "path_mm": round(m.length_mm, 3), "wheel_deg": round(m.wheel_deg, 4)}
    out = {
        "charger": res.charger.id, "target": res.target.id,
        "declarable": d.declarable, "reasons": d.reasons,
        # DESIGN.md: front, flank or rear; which flank is in facing_side.
        "facing": "flank" if d.facing in ("left", "right") else d.facing,
        "facing_side": d.facing,
        "arc_shares": {k: round(v, 4) for k, v in d.shares.items()},
        "distance_mm": round(d.distance.distance_mm, 3),
        "distance_in": round(d.distance.distance_in, 3),
        "closest_points": [list(map(lambda v: round(v, 3), d.distance.a)),
                           list(map(lambda v: round(v, 3), d.distance.b))],
        "max_range_in": d.max_range_in,
        "dice_rule": res.dice_rule.name,
        "needed_in": res.needed,
        "odds": round(res.odds, 6),
        "odds_fraction": str(Fraction(res.odds).limit_denominator(6 ** 3)),
        "dice": list(res.dice) if res.dice is not None else None,
        "range_in": res.range_in,
        "range_mm": _round(g.in_to_mm(res.range_in)) if res.range_in is not None else None,
        "outcome": res.outcome,
        "margin_mm": round(margin, 3),
        "margin_in": round(g.mm_to_in(margin), 3),
        "certain": certain,
        "sigma_mm": round(sigma, 3),
        "start": res.charger.pose.to_json(),
        "path": _path_json(res),
        "final": _pose_json(final),
        "contact": contact,
        "target_final": _pose_json(tf),
        "charged_unit": res.special.charged if res.outcome == "special" and res.special
        else (res.target.id if res.outcome in ("success", "caught_fleeing") else None),
        "priorities": priorities,
        "explanation": explain(res, margin, certain, sigma),
    }
    if res.secondary:
        # Only when a move cannot avoid other enemies (RULES.md 4, priority 1).
        out["secondary_targets"] = list(res.secondary)
        assert priorities is not None
        priorities["other_enemies"] = len(res.secondary)
    if res.multiple is not None:
        # Only on the entries of a multiple charge (RULES.md 8): the figures over all of them.
        out["multiple_charge"] = res.multiple
    return out


def _by_target(decls: tuple[ChargeDecl, ...]) -> list[list[ChargeDecl]]:
    groups: dict[str, list[ChargeDecl]] = {}
    for d in decls:
        groups.setdefault(d.target, []).append(d)
    return list(groups.values())


def _multiple(scene: g.Scene, group: list[ChargeDecl], req: Request,
              units: dict[str, g.Unit]) -> list[Resolution]:
    """RULES.md 8: roll together; those in range move in the order that puts the most chargers
    in contact, then best meets the rest of the priority list over all final positions."""
    from .multiple import resolve_multiple

    return resolve_multiple(scene, group, req, units)


def rule(request: dict) -> dict:
    """The ruling for a request (DESIGN.md, Ruling request and ruling)."""
    req = parse_request(request)
    scene = req.scene
    units = {u.id: u for u in scene.units}
    done: dict[ChargeDecl, Resolution] = {}
    sigmas: dict[ChargeDecl, float] = {}
    for group in _by_target(req.charges):
        current = _scene_with(scene, units)
        if len(group) == 1:
            decl = group[0]
            res = assess(current, units[decl.charger], units[decl.target], req.ruleset, decl)
            if req.dice is not None:
                _apply_dice(res, req.dice[decl.charger])
            resolve(current, res, req.ruleset)
            results = [res]
        else:
            results = _multiple(current, group, req, units)
        for res in results:
            sigmas[res.decl] = _sigma_mm([res.charger, res.target])
            _apply(units, res)
            done[res.decl] = res
    return {
        "ruleset": req.ruleset.name,
        "charges": [to_json(done[d], req.ruleset, sigmas[d]) for d in req.charges],
        "units": [_unit_json(units[u.id], u) for u in scene.units],
    }


def _unit_json(u: g.Unit, before: g.Unit) -> dict:
    out = {"id": u.id, "side": u.side, "x": round(u.x, 4), "y": round(u.y, 4),
           "facing": round(u.facing, 5), "state": u.state}
    if (u.files, u.ranks) != (before.files, before.ranks):
        out.update(files=u.files, ranks=u.ranks)
    return out


