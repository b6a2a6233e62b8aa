"""Unavoidable contact with a second enemy (RULES.md 4, Choosing the move, priority 1: contact
no enemy unit other than the target, "or as few as possible").

When no legal move avoids every other enemy, a move whose *final position* touches one other
unengaged enemy is legal, provided the path never touches it before: once the charger touches
it, it stays in touch to the end. That enemy is charged too (``secondary_targets``): it reacts
and fights. Only enemies that some final position along the charged facing could touch are
tried, one at a time, then in pairs and threes ("as few as possible"), and the best move over
the smallest sets by the usual priorities wins. Overlapping remains illegal.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import shapely

import geometry as g

from .charge_move import ChargeMove
from .facing_frame import T9A_MOVES, MoveRules, _flush_corners, facing_frame
from .plan import SearchMemo, SearchPlan
from .search import TargetWorld, search_moves
from .world import CLEAR, World

#: Moves tried per set of enemies: the best ones may touch them on the way, not only at the
#: end.
TRIES = 4
#: The most other enemies a move may be found touching at once ("as few as possible": sets
#: are tried by size, one enemy first).
MOST_AT_ONCE = 3


def touches_only_at_the_end(form: g.Formation, move: ChargeMove, enemy: shapely.Geometry
                            ) -> bool:
    """Whether ``move`` touches ``enemy`` at its final position and, before that, only in
    steps after which it stays in touch (each step that comes within EPS_MM of it ends within
    EPS_MM of it)."""
    pose = move.start
    for step in move.steps:
        after = step.apply(form, pose)
        if shapely.dwithin(step.swept(form, pose), enemy, g.EPS_MM) and \
                not shapely.dwithin(g.boundary(form, after), enemy, g.EPS_MM):
            return False
        pose = after
    return bool(shapely.dwithin(g.boundary(form, move.final), enemy, g.EPS_MM))


def search_secondary(charger: g.Unit, target: g.Unit, facing: g.FacingName, world: World,
                     target_world: TargetWorld, engaged: frozenset[str],
                     memo: SearchMemo | None = None, rules: MoveRules = T9A_MOVES,
                     max_length: float = math.inf
                     ) -> tuple[ChargeMove | None, tuple[str, ...]]:
    """The best move touching as few other enemies as possible at its end (module doc), and
    those enemies, sorted; (None, ()) when there is none. A set of enemies is searched only
    if some end position flush with the facing is blocked by them and clear once they may be
    touched (a vectorised footprint test over the plan's end positions): then most charges
    with no legal move cost no further search.
    ``memo``: what the charge's own search (in ``world``) built: its plan and what blocks
    each end position."""
    form = charger.formation
    frame = facing_frame(target.body, facing)
    ends = _flush_corners(frame, form, np.array([-form.width, frame.length]))
    reach = shapely.convex_hull(shapely.multipoints(ends.reshape(-1, 2)))
    near = [k for k, o in enumerate(world.obstacles)
            if o.kind == "enemy" and o.id not in engaged and
            shapely.dwithin(reach, o.polygon, g.EPS_MM)]
    if not near:
        return None, ()
    plan = memo.plan if memo is not None and memo.plan is not None else \
        SearchPlan.of(charger, target, facing, rules=rules)
    known = memo.end_blockers if memo is not None else None
    blocked_by = known[1] if known is not None and known[0] is world and \
        len(known[1]) == len(plan.end_corners) else \
        world.footprints(plan.end_corners, ignore_target=True)
    for size in range(1, min(MOST_AT_ONCE, len(near)) + 1):
        best: tuple[tuple, ChargeMove, tuple[str, ...]] | None = None
        for subset in itertools.combinations(near, size):
            blocked = np.isin(blocked_by, subset)
            if not blocked.any():
                continue
            ids = {world.obstacles[k].id for k in subset}
            relaxed = world.with_kind(ids, "secondary")
            if not (relaxed.footprints(plan.end_corners[blocked], ignore_target=True)
                    == CLEAR).any():
                continue  # every end position they block is blocked by something else too
            moves, _ = search_moves(charger, target, facing, relaxed, target_world, k=TRIES,
                                    memo=SearchMemo(plan=plan), rules=rules,
                                    max_length=max_length)
            polys = [world.obstacles[k].polygon for k in subset]
            for m in moves:
                if all(touches_only_at_the_end(form, m, p) for p in polys):
                    if best is None or m.key() < best[0]:
                        best = (m.key(), m, tuple(sorted(ids)))
                    break
        if best is not None:
            return best[1], best[2]
    return None, ()
