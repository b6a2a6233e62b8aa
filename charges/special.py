"""Blocked path and the special charge (RULES.md 5, seed figure 5).

Applies when the range test passed and no legal charge move exists only because of unengaged
enemy units in the way that this charger could not charge normally either. The charger then
moves straight forward up to its charge range; the enemy it first touches is charged and
reforms flush with it: the charger keeps its position and facing, the charged unit is contacted
in its front, keeps its ranks and files, and puts the most models in contact. If no such
placement fits, its ranks and files change as little as needed (no maximising then).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import shapely

import geometry as g

from .charge_move import ChargeMove
from .declaration import declare
from .facing_frame import contact_counts, facing_frame, flush_pose, offset_candidates
from .moves import first_contact
from .plan import SearchMemo
from .rulesets import Ruleset
from .search import legal_move_exists, search_moves
from .world import Obstacle, World


@dataclass(frozen=True)
class SpecialPlan:
    """Why a special charge applies and what it needs."""

    blockers: tuple[str, ...]
    forward_mm: float  # straight move to the first contact
    charged: str | None  # the enemy touched first, or None
    stopped_by: str | None  # what stops the straight move if not an enemy


@dataclass(frozen=True)
class Placement:
    pose: g.Pose
    files: int
    ranks: int
    charger_models: int
    target_models: int
    reformed_ranks: bool


def could_charge(scene: g.Scene, charger: g.Unit, enemy: g.Unit, ruleset: Ruleset) -> bool:
    """Whether ``charger`` could charge ``enemy`` normally (declarable and a legal move).
    Only the yes or no counts, so an enemy out of range is not also checked for sight."""
    d = declare(scene, charger, enemy, ruleset, every_reason=False)
    if not d.declarable:
        return False
    return legal_move_exists(charger, enemy, d.facing, World.for_unit(scene, charger, enemy.id),
                             rules=ruleset.move_rules())


def plan_special(scene: g.Scene, charger: g.Unit, target: g.Unit, facing: g.FacingName,
                 world: World, ruleset: Ruleset,
                 memo: SearchMemo | None = None) -> SpecialPlan | None:
    """What RULES.md 5 gives when no legal charge move exists: a plan with ``charged`` set when
    the special charge applies, a plan with ``charged`` None when the straight move could not
    reach an enemy anyway (``stopped_by`` says what it meets), or None when the rule does not
    apply (no enemy stands in the way, or terrain, friends or engaged units block the way too).

    The straight move forward is computed first: it is one closed-form contact test, and when
    it meets no enemy within the longest possible roll no special charge can be made whoever
    stands in the way, so the searches that decide whether the rule applies are skipped."""
    others = [u for u in scene.units if u.side != charger.side and u.id != target.id
              and u.state not in ("destroyed", "engaged")]
    # Only enemies near the way from the charger to the target can be in the way: the hull of
    # the two units, widened by the charger's size (the reach of its wheel and align).
    corridor = shapely.MultiPolygon([charger.body.polygon, target.body.polygon]).convex_hull \
        .buffer(max(charger.formation.width, charger.formation.depth))
    near = [u for u in others if corridor.intersects(u.body.polygon)]
    if not near:
        return None
    reach = g.in_to_mm(ruleset.max_range_in(charger))
    dist, hit, kind = first_contact(charger.formation, charger.pose, world)
    if kind not in ("enemy", "target") or dist > reach + g.EPS_MM:
        if hit is None or dist > reach + g.EPS_MM:
            stopped = f"nothing within the longest possible charge of {g.mm_to_in(reach):g} in"
        elif hit == "table":
            stopped = "the table edge"
        else:
            stopped = next(o.describe() for o in world.obstacles if o.id == hit)
        return SpecialPlan((), dist, None, stopped)
    # Whether the rule applies is whether a legal move exists once the enemies in the way
    # that could not be charged are removed. Asking every enemy in the way whether it could
    # be charged is a whole search each, so they are asked lazily: find a path legal without
    # every enemy in the way except those known chargeable; if none exists, none exists with
    # fewer removed either (removing obstacles only adds paths), and the rule does not apply.
    # Otherwise the path touches some of them (it would be a legal move otherwise): if none
    # of those could be charged, the path is legal without the ones that cannot, and the
    # rule applies; else the first chargeable one stays in the way and the loop repeats.
    # ``memo``: what the search that found no move learned; these worlds lack only enemies.
    known: dict[str, bool] = {}

    def chargeable(u: g.Unit) -> bool:
        if u.id not in known:
            known[u.id] = could_charge(scene, charger, u, ruleset)
        return known[u.id]

    kept: set[str] = set()  # enemies in the way known chargeable: they stay
    rules = ruleset.move_rules()  # the charge's own search's: the memo's plan serves
    while True:
        moves, _ = search_moves(charger, target, facing,
                                world.without({u.id for u in near} - kept), None, False, 1,
                                refine=False, memo=memo, count=False, rules=rules)
        if not moves:
            return None
        touched = _touched(charger.formation, moves[0], [u for u in near if u.id not in kept])
        fresh = next((u for u in touched if chargeable(u)), None)
        if fresh is None:
            break
        kept.add(fresh.id)
    blockers = tuple(u.id for u in near if not chargeable(u))
    if not touched or not blockers:
        return None  # the path was legal in the full world: then the search found a move
    return SpecialPlan(blockers, dist, hit, None)


def _touched(form: g.Formation, move: ChargeMove, units: list[g.Unit]) -> list[g.Unit]:
    """The ``units`` (enemies, which may not even be touched: RULES.md 4) that ``move``'s
    path, replayed step by step, comes within EPS_MM of."""
    poses = [move.start, *g.replay(form, move.start, move.steps)]
    areas = [step.swept(form, pose) for step, pose in zip(move.steps, poses, strict=False)]
    return [u for u in units
            if any(shapely.dwithin(u.body.polygon, a, g.EPS_MM) for a in areas)]


def _formations(unit: g.Unit) -> list[tuple[int, int]]:
    """Other files x ranks for the same models, least change first (RULES.md 5)."""
    n = unit.model_count
    out = []
    for files in range(1, n + 1):
        ranks = math.ceil(n / files)
        if (files, ranks) != (unit.files, unit.ranks):
            out.append((files, ranks))
    out.sort(key=lambda fr: (abs(fr[0] - unit.files), abs(fr[1] - unit.ranks), -fr[0]))
    return out


def reform_placement(scene: g.Scene, charger: g.Unit, charger_pose: g.Pose,
                     charged: g.Unit) -> Placement | None:
    """Place ``charged`` flush against the charger's front, front to front (RULES.md 5)."""
    cbody = g.Body(charger.formation, charger_pose)
    frame = facing_frame(cbody, "front")
    obstacles = [Obstacle(u.id, "friend", u.body.polygon) for u in scene.units
                 if u.id not in (charger.id, charged.id) and u.state != "destroyed"]
    obstacles.append(Obstacle(charger.id, "friend", cbody.polygon))
    obstacles += [Obstacle(t.id, "terrain", t.shape) for t in scene.terrain if t.impassable]
    world = World(scene.table.polygon, obstacles)

    def best_for(unit: g.Unit, maximise: bool) -> Placement | None:
        form = unit.formation
        options = []
        for s in offset_candidates(frame, form):
            pose = flush_pose(frame, form, s)
            cm, tm = contact_counts(frame, form, s)
            if cm + tm == 0 or world.blocked(g.boundary(form, pose)):
                continue
            gap = math.hypot(pose.x - charged.x, pose.y - charged.y)
            options.append(((-(cm + tm) if maximise else 0, gap), pose, tm, cm))
        if not options:
            return None
        _, pose, charger_models, charged_models = min(options, key=lambda o: o[0])
        return Placement(pose, unit.files, unit.ranks, charger_models, charged_models,
                         (unit.files, unit.ranks) != (charged.files, charged.ranks))

    found = best_for(charged, maximise=True)
    if found is not None:
        return found
    for files, ranks in _formations(charged):
        rear = charged.model_count - files * (ranks - 1)
        unit = charged.placed(charged.pose, files=files, ranks=ranks,
                              models=charged.model_count,
                              rear_rank=list(range(rear)) if rear < files else "centre")
        found = best_for(unit, maximise=False)
        if found is not None:
            return found
    return None
