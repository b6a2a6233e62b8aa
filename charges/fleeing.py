"""Charging a fleeing unit (RULES.md 7): any facing, no align, no priority list; the shortest
legal move that reaches it catches it."""

from __future__ import annotations

import math
from dataclasses import replace

import shapely

import geometry as g

from .candidates import Candidate, candidates_at
from .charge_move import ChargeMove
from .exact_check import check_candidate
from .facing_frame import facing_frame, offset_candidates
from .moves import first_contact
from .world import World

#: Coarser wheel grid for the fleeing search: any contact will do, only the path length ranks.
FLEEING_THETA_STEP = 3.0


def search_fleeing(charger: g.Unit, target: g.Unit, world: World) -> ChargeMove | None:
    form, start = charger.formation, charger.pose
    tbody = target.body
    cands: list[tuple[g.FacingName, Candidate]] = []
    for facing in g.FACINGS:
        frame = facing_frame(tbody, facing)
        for s in offset_candidates(frame, form):
            for c in candidates_at(form, start, tbody, frame, s, FLEEING_THETA_STEP):
                # No align: the move ends where the charger first touches.
                cands.append((facing, replace(c, final=c.pre_align, align_point=None,
                                              align_deg=0.0)))
    straight = _straight_in(charger, target, world)
    if straight is not None:
        cands.append(straight)
    cands.sort(key=lambda fc: fc[1].key())
    seen: set[tuple[float, float, float]] = set()
    for facing, c in cands:
        sig = (round(c.final.x, 3), round(c.final.y, 3), round(c.final.facing, 3))
        if sig in seen:
            continue
        seen.add(sig)
        if check_candidate(form, start, c, tbody, world).ok:
            mc = g.models_in_contact(g.Body(form, c.final), tbody)
            return ChargeMove(charger.id, target.id, facing, start, c.steps(), c.final, None,
                              0.0, 0.0, None, len(mc.a_models), len(mc.b_models), mc.a_models,
                              mc.b_models, c.length, c.wheel_deg, c.s, c.family)
    return None


def _straight_in(charger: g.Unit, target: g.Unit, world: World
                 ) -> tuple[g.FacingName, Candidate] | None:
    """Straight ahead until the charger first touches the target, when the target is the
    first thing met (closed form, moves.first_contact): often the shortest move of all, and
    one the grid of wheel angles, which ends its paths flush with a facing, does not hold
    (a corner meeting the fleeing unit at a slant). With the facing it meets."""
    form, start = charger.formation, charger.pose
    dist, hit, _ = first_contact(form, start, world)
    if hit != target.id or not math.isfinite(dist):
        return None
    final = g.forward(start, dist)
    here = g.boundary(form, final)
    segs = g.facing_segments(target.formation, target.pose)
    facing = min(g.FACINGS, key=lambda n: shapely.distance(here, shapely.LineString(segs[n])))
    c = Candidate(math.nan, "flush", dist, 0.0, None, 0.0, None, 0.0, final, final, dist,
                  math.hypot(final.x - start.x, final.y - start.y))
    return facing, c
