"""Charging a fleeing unit (RULES.md 7): any facing, no align, no priority list; the shortest
legal move that reaches it catches it.

Its candidates: the paths of the charge search's grid ending flush with a facing (first
contact on the way there ends them), straight in, and a wheel at the start then straight in
with the wheel's angle measured, not sampled (RULES.md 4: path ties to within 0.1 mm): a
fleeing unit stands at a slant, and the shortest path often grazes its corner at an angle no
grid holds."""

from __future__ import annotations

import math
from dataclasses import replace

import shapely

import geometry as g
from geometry.search1d import golden_min

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
    cands.extend(_wheel_then_in(charger, target, world))
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


#: The wheel-then-straight-in search: a grid of this step (degrees), then the best cell
#: narrowed by golden section to ``WHEEL_TOL_DEG``.
WHEEL_GRID_DEG = 1.0
WHEEL_TOL_DEG = 1e-4


def _wheel_then_in(charger: g.Unit, target: g.Unit, world: World
                   ) -> list[tuple[g.FacingName, Candidate]]:
    """For each pivot, the wheel at the start (0 to 90 degrees) after which moving straight
    ahead meets the target first by the shortest path: the wheel's outer arc W * theta plus
    the closed-form distance to first contact (moves.first_contact). The path is then
    checked like any other candidate (the wheel's sweep included)."""
    form, start = charger.formation, charger.pose
    out: list[tuple[g.FacingName, Candidate]] = []
    segs = g.facing_segments(target.formation, target.pose)
    for pivot, sign in (("left", 1.0), ("right", -1.0)):
        def length(theta: float, pivot: g.moves.Pivot = pivot, sign: float = sign) -> float:
            pose = g.wheel(form, start, pivot, sign * theta)
            dist, hit, _ = first_contact(form, pose, world)
            if hit != target.id or not math.isfinite(dist):
                return math.inf
            return form.width * math.radians(theta) + dist

        steps = int(round(90.0 / WHEEL_GRID_DEG))
        grid = [length(k * WHEEL_GRID_DEG) for k in range(1, steps + 1)]
        k = min(range(len(grid)), key=grid.__getitem__)
        if not math.isfinite(grid[k]):
            continue
        # The cells either side of the best grid angle.
        a, fa = golden_min(length, max(k * WHEEL_GRID_DEG, 1e-6),
                           min((k + 2) * WHEEL_GRID_DEG, 90.0), WHEEL_TOL_DEG)
        theta = (k + 1) * WHEEL_GRID_DEG if grid[k] < fa else a
        pose = g.wheel(form, start, pivot, sign * theta)  # type: ignore[arg-type]
        dist, hit, _ = first_contact(form, pose, world)
        if hit != target.id or not math.isfinite(dist):
            continue
        final = g.forward(pose, dist)
        here = g.boundary(form, final)
        facing = min(g.FACINGS, key=lambda n: shapely.distance(here,
                                                               shapely.LineString(segs[n])))
        total = form.width * math.radians(theta) + dist
        out.append((facing, Candidate(math.nan, "flush", 0.0, sign * theta, pivot, dist,  # type: ignore[arg-type]
                                      None, 0.0, final, final, total,
                                      math.hypot(final.x - start.x, final.y - start.y))))
    return out
