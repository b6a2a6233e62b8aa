"""Reporting a resolved charge (DESIGN.md, Ruling): the JSON entry with every figure, the
margin and its certainty, the path replayed step by step, and the explanation."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import shapely

import geometry as g
from geometry.arcs import arc_ring
from geometry.formation import boundary_coords

from .explain import explain
from .resolution import Resolution, charger_after
from .rulesets import Ruleset
from .rulesets.base import front_rank_centres


def sigma_mm(units: list[g.Unit]) -> float:
    """Combined position uncertainty of the units a ruling depends on: each unit's sigma_mm,
    plus its sigma_deg turned into millimetres at its far corner."""
    total = 0.0
    for u in units:
        radius = math.hypot(u.formation.width, u.formation.depth) / 2
        total += u.sigma_mm ** 2 + (math.radians(u.sigma_deg) * radius) ** 2
    return math.sqrt(total)


#: Front ranks up to this many models are searched for the fewest crossings exactly.
EXACT_MODELS = 12


def _models_margin(res: Resolution) -> float | None:
    """How far the charger could move before the facing decided by its front-rank models
    changes (tow 1.1, whfb8 2.1): a model changes arc when its base centre crosses a ray, the
    charger moving at least the centre's distance to the other arc. The least distance by
    which some set of models crossing (each into its nearest other arc) changes the decision
    (facing, or contested or not) through the ruleset's own rule; None for rulesets that
    decide by area."""
    rs, d = res.ruleset, res.declaration
    dec = d.decision
    if rs is None or rs.facing_rule != "front_rank_models" or dec is None or \
            dec.counts is None:
        return None
    arcs = res.target.body.arcs
    centres = shapely.points(np.asarray(front_rank_centres(res.charger), dtype=float))
    table = shapely.distance(np.asarray([arcs[k] for k in g.FACINGS])[:, None],
                             centres[None, :])  # (arcs, centres), in one call
    moves = []  # (distance to cross, from arc, to arc) per centre
    for col in table.T:
        dist = {k: float(v) for k, v in zip(g.FACINGS, col, strict=True)}
        here = [k for k in g.FACINGS if dist[k] <= 1e-7]
        if len(here) != 1:
            return 0.0  # a centre on a ray: any move changes its count
        other = min((k for k in g.FACINGS if k != here[0]), key=lambda k: dist[k])
        moves.append((dist[other], here[0], other))
    moves.sort()
    base = (dec.facing, dec.contested)

    def changed(subset: list[tuple[float, str, str]]) -> bool:
        counts = dict(dec.counts)  # type: ignore[arg-type]
        for _, a, b in subset:
            counts[a] -= 1
            counts[b] += 1
        new = rs.facing_from_counts(counts, dec.roll)
        return (new.facing, new.contested) != base

    for k, move in enumerate(moves):
        if k >= EXACT_MODELS:  # many models: the nearest ones all crossing, a cruder bound
            if changed(moves[:k + 1]):
                return move[0]
            continue
        # Sets whose farthest member is model k (the others nearer): the least change first.
        for mask in range(1 << k):
            if changed([move] + [moves[j] for j in range(k) if mask >> j & 1]):
                return move[0]
    return math.inf


def _facing_margin(res: Resolution) -> float:
    """How far the charger could move before the charged facing changes: by front-rank
    models (_models_margin), or the share of the winning arc above one half, spread over the
    length of the charger cut by the arc's rays; or, when no ray crosses the charger, its
    distance to the nearest ray."""
    by_models = _models_margin(res)
    if by_models is not None:
        return by_models
    t, c = res.target, res.charger
    win = t.body.arcs[res.declaration.facing]  # built by the declaration already
    poly = c.body.polygon
    share = res.declaration.shares[res.declaration.facing]
    ray_lines = win.exterior.difference(t.body.polygon.buffer(1e-6))
    cut = poly.intersection(ray_lines).length
    if cut > 1e-6:
        return max(share - 0.5, 0.0) * poly.area / cut
    return float(poly.distance(ray_lines))


def _arc_margin(res: Resolution) -> float:
    """How far the target could move before the declaration's front-arc test (RULES.md 2,
    tow 1.2, whfb8 2.2) would change: inside the charger's front arc, the least translation
    that takes it out (the separating-axis depth of the two convex shapes); outside, its
    distance to the arc. A fled target's arc was judged where it stood when the charge was
    declared: not measured again."""
    if res.declared is not None:
        return math.inf
    c, t = res.charger, res.target
    if not res.declaration.in_front_arc:
        return float(c.body.arcs["front"].distance(t.body.polygon))
    return _sat_depth(np.asarray(arc_ring(c.formation, c.pose, "front"), dtype=float),
                      np.asarray(boundary_coords(t.formation, t.pose), dtype=float))


def _sat_depth(a: np.ndarray, b: np.ndarray) -> float:
    """Overlap depth of two convex polygons (vertex arrays), the least translation that
    separates them: the smallest overlap of their projections on every edge normal of
    either (separating axes; exact for convex shapes). On each axis the shortest way apart
    is either way out, ``min(max_a - min_b, max_b - min_a)``: when one interval holds the
    other (a target wholly inside the arc) that is not their intersection's length."""
    edges = np.concatenate([np.roll(a, -1, axis=0) - a, np.roll(b, -1, axis=0) - b])
    normals = np.stack([-edges[:, 1], edges[:, 0]], axis=1)
    length = np.hypot(normals[:, 0], normals[:, 1])
    normals = normals[length > 1e-12] / length[length > 1e-12, None]
    pa, pb = a @ normals.T, b @ normals.T
    overlap = np.minimum(pa.max(axis=0) - pb.min(axis=0), pb.max(axis=0) - pa.min(axis=0))
    return max(float(overlap.min()), 0.0)


def _margin(res: Resolution) -> float:
    """DESIGN.md ``margin_mm``: how far the geometry could move before the outcome or the
    facing would change: the facing, the range and the front-arc test."""
    facing = _facing_margin(res)
    d = res.compared_mm
    if res.range_in is not None:
        rng = abs(g.in_to_mm(res.range_in) - d)
    else:
        rng = abs(g.in_to_mm(res.declaration.max_range_in) - d)
    return min(facing, rng, _arc_margin(res))


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
    elif res.outcome in ("failed", "target_escaped") and res.failed is not None:
        steps = [(s, c.id) for s in res.failed.steps]
    elif res.outcome in ("halted", "ran_down") and res.accidental is not None:
        steps = [(s, c.id) for s in res.accidental.steps]
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
    if res.outcome in ("success", None) and res.move is not None:
        for a in res.secondary_aligns:  # tow 1.5: other enemies touched align to the charger
            if a.final is not None:
                out.append(g.step_to_json(g.Align(a.pivot, a.turn_deg), a.final, a.unit))
    return out


def to_json(res: Resolution, ruleset: Ruleset, sigma: float) -> dict:
    d = res.declaration
    margin = _margin(res)
    certain = sigma == 0.0 or margin > 3 * sigma
    final, _ = charger_after(res)
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
                      "path_mm": round(m.length_mm, 3),
                      "path_in": round(g.mm_to_in(m.length_mm), 3),
                      "wheel_deg": round(m.wheel_deg, 4)}
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
        "max_range_mm": round(g.in_to_mm(d.max_range_in), 3),
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
    rs = res.ruleset or ruleset
    if res.secondary and res.move is not None and res.outcome in ("success", None):
        # Only when a move cannot avoid other enemies (RULES.md 4, priority 1).
        out["secondary_targets"] = list(res.secondary)
        if priorities is not None:
            priorities["other_enemies"] = len(res.secondary)
        if rs.secondary_aligns:
            # tow 1.5, whfb8 2.5: those touched at an angle align to the charger; where a
            # turn is blocked the gap is left.
            out["secondary_final"] = {a.unit: a.final.to_json() for a in res.secondary_aligns
                                      if a.final is not None}
            out["secondary_unaligned"] = [a.unit for a in res.secondary_aligns
                                          if a.final is None]
            if rs.secondary_flag:
                out[rs.secondary_flag] = [a.unit for a in res.secondary_aligns]
    dec = d.decision
    if dec is not None and dec.counts is not None:
        # Rulesets that count front-rank models per arc (tow 1.1, whfb8 2.1).
        out["front_rank_counts"] = {k: round(v, 2) for k, v in dec.counts.items()}
        out["facing_contested"] = dec.contested
    if res.move is not None and not res.move.aligned and res.outcome in (None, "success"):
        # Nobody could align: the move ends at first contact (tow 1.5: the gap is left;
        # whfb8 2.5: such a charge fails, so its odds are nil).
        out["aligned"] = False
    if rs.target_aligns_flag:
        shown = res.outcome is None and res.move is not None and (
            not res.move.aligned or res.move.target_final is not None)
        out[rs.target_aligns_flag] = shown or bool(res.flags.get(rs.target_aligns_flag, False))
    if res.outcome == "caught_fleeing":
        # RULES.md 7, tow 1.7, whfb8 2.7: the charger may test to reform.
        out["reform_allowed"] = True
    if rs.range_measure == "paid_path" and res.accidental is not None:
        out["paid_path_mm"] = round(res.accidental.moved_mm, 3)
        out["paid_path_in"] = round(g.mm_to_in(res.accidental.moved_mm), 3)
    elif rs.range_measure == "paid_path" and res.move is not None:
        # tow 1.3: the roll is compared with the paid path (the closing align is free): the
        # path of the move made (or shown, without dice), else the shortest legal one.
        paid = res.move.length_mm if res.outcome in ("success", "caught_fleeing", None) else \
            res.compared_mm
        out["paid_path_mm"] = round(paid, 3)
        out["paid_path_in"] = round(g.mm_to_in(paid), 3)
        out["shortest_paid_path_mm"] = round(res.compared_mm, 3)
        out["shortest_paid_path_in"] = round(g.mm_to_in(res.compared_mm), 3)
    out.update(res.flags)
    if res.flight is not None:
        # The Flee! reaction (tow 1.7): where the target fled before the charge was ruled.
        out["flee"] = res.flight.to_json()
        if out.get("target_final") is None:
            # DESIGN.md: "when the target was moved": it fled there (and, caught, is
            # destroyed there).
            out["target_final"] = res.flight.pose.to_json()
    if res.accidental is not None:
        # tow 1.5: met by a fleeing enemy, the charge halted or ran it down.
        out["accidental_contact"] = res.accidental.to_json()
        if res.outcome == "ran_down":
            out["charged_unit"] = res.accidental.blocker
    elif res.through is not None and res.outcome is None:
        # Without dice: the rolls that reach the target only through a fleeing enemy.
        shortest = res.through_compared_mm
        need = res.dice_rule.needed(g.mm_to_in(shortest), res.charger.advance_in or 0.0)
        out["accidental_contact"] = {
            "units": sorted(res.blockers), "choice": res.on_accidental,
            "through_path_mm": round(res.through.length_mm, 3),
            "through_path_in": round(g.mm_to_in(res.through.length_mm), 3),
            "shortest_through_path_mm": round(shortest, 3),
            "shortest_through_path_in": round(g.mm_to_in(shortest), 3), "needed_in": need,
            "odds": round(float(res.dice_rule.chance_at_least(need)) - res.odds, 6)}
    if res.multiple is not None:
        # Only on the entries of a multiple charge (RULES.md 8): the figures over all of them.
        out["multiple_charge"] = res.multiple
    if priorities is not None:
        _name_priorities(priorities, res)
    return out


def _name_priorities(priorities: dict, res: Resolution) -> None:
    """Every name of ``order`` is a key of ``priorities`` (DESIGN.md: the priority tuple of
    the chosen alignment, read back as ``[priorities[n] for n in order]``): the rulesets'
    own names for the figures the object already holds, and whfb8 2.8's equal split (the
    spread of the chargers' models in contact, 0 for one charger)."""
    spread = 0
    if res.multiple is not None and res.multiple.get("charger_models"):
        counts = list(res.multiple["charger_models"].values())
        spread = max(counts) - min(counts)
    named = {"target_turned": priorities["target_turned_deg"],
             "undeclared_enemies": priorities["other_enemies"],
             "within_range": res.in_range, "path": priorities["path_mm"],
             "equal_split": spread}
    for name in priorities["order"]:
        if name not in priorities and name in named:
            priorities[name] = named[name]
