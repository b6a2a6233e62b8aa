"""Measured, not sampled (RULES.md 4): the chosen path polished to the shortest of its kind
(charges/shortest.py) and the target's turn bisected to the least that clears."""

from __future__ import annotations

import math

import numpy as np

import geometry as g

from .candidates import FAMILIES, Candidate, CandidateTable, candidate_at
from .charge_move import ChargeMove, _finish
from .exact_check import check_candidate
from .facing_frame import (
    THETA_GRID_DEG,
    FacingFrame,
    facing_frame,
    offset_breakpoints,
    offset_interval,
)
from .plan import SearchPlan
from .shortest import slots_of
from .world import World


def polish_move(charger: g.Unit, target: g.Unit, move: ChargeMove, world: World,
                end_form: g.Formation | None = None) -> ChargeMove:
    """``move`` (found without refinement) made the shortest legal path of its kind in
    ``world`` (RULES.md 4, tie-breaks measured): multiple charges choose their moves on the
    grid, then refine the chosen ones with every other charger in its final place.
    ``end_form``: ``charger`` is that formation's front-edge strip (check_candidate)."""
    from .shortest import shortest_in, slot_of

    c = move.candidate
    if c is None or move.target_final is not None:
        return move
    form, start = charger.formation, charger.pose
    frame = facing_frame(target.body, move.facing)
    lo, hi = offset_interval(offset_breakpoints(frame, form), c.s)
    low = shortest_in(form, start, frame, slot_of(c.family, c.align_point, frame), lo, hi)
    best = _polish(form, start, target.body, frame, c, low, world, end_form=end_form)
    if best is c:
        return move
    return _finish(charger, target, frame, best, False, move.rejected, True, move.contact_id)


#: The target's turn is measured to this (degrees): RULES.md 4 asks for the smallest angle
#: that clears "to within 0.01 degrees".
TURN_RESOLUTION_DEG = 0.005


def _least_turn(form: g.Formation, start: g.Pose, frame: FacingFrame, cand: Candidate,
                tbody: g.Body, world: World, target_world: World,
                max_length: float = math.inf,
                end_form: g.Formation | None = None) -> Candidate:
    """The smallest target turn for ``cand``'s end position and family (RULES.md 4, priority
    2: "as little as possible", measured): the target turns by the charger's arrival angle,
    which a wheel closer to the final facing makes smaller. The grid gave the first legal
    turn in 1-degree steps; bisection between it and one grid step less finds where the turn
    stops clearing."""
    from .shortest import nearest_reachable, slot_of

    slot = slot_of(cand.family, cand.align_point, frame)
    alpha = cand.align_deg
    step = math.copysign(min(THETA_GRID_DEG, abs(alpha)), alpha)
    good, lo, hi = cand, 0.0, step  # wheel changes: lo legal, hi not known to be
    while abs(hi - lo) > TURN_RESOLUTION_DEG:
        mid = (lo + hi) / 2
        c = candidate_at(form, start, frame, slot, cand.s, cand.wheel_deg + mid)
        if c is None:
            # The wheel cannot reach this end offset: the nearest it reaches (a smaller turn
            # is priority 2, before the models that offset puts in contact, RULES.md 4).
            near = nearest_reachable(form, start, frame, slot, cand.s, cand.wheel_deg + mid)
            if near is not None:
                c = candidate_at(form, start, frame, slot, near, cand.wheel_deg + mid)
        if c is not None and abs(c.align_deg) < abs(good.align_deg) and \
                c.length <= max_length + 1e-6 and check_candidate(
                form, start, c, tbody, world, target_turns=True, target_world=target_world,
                end_form=end_form).ok:
            good, lo = c, mid
        else:
            hi = mid
    return good


#: Kinds of path (interval of end offsets, family) refined beside the first legal one's: the
#: first distinct kinds met in search order after it.
REFINE_RIVALS = 6


#: Halvings of the way from a legal grid path to a shorter blocked one of its kind: the last
#: legal point found is within 2**-8 of that way from the blocking boundary.
BISECT_STEPS = 8


#: A path within this of the shortest of its kind is not polished further: RULES.md 4 resolves
#: the tie-break on path length "to within 0.1 mm".
POLISH_TOL_MM = 0.05


def _kinds(frame: FacingFrame, breaks: np.ndarray, s: np.ndarray, family: np.ndarray,
           px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """The kind of each path, as one integer: its interval of end offsets ``s`` (2i at
    breakpoint i, 2i - 1 between breakpoints i - 1 and i) times 5 plus its family slot
    (shortest.py: the align pivot tells the facing's two ends apart)."""
    i = np.searchsorted(breaks, s - 1e-7)
    at = (i < len(breaks)) & (np.abs(breaks[np.minimum(i, len(breaks) - 1)] - s) <= 1e-7)
    interval = np.where(at, 2 * i, 2 * i - 1)
    return interval * 5 + slots_of(frame, family, px, py)


def _best_refined(form: g.Formation, start: g.Pose, tbody: g.Body, frame: FacingFrame,
                  first: Candidate, cands: CandidateTable, rest: np.ndarray, world: World,
                  taken: set[int], plan: SearchPlan) -> Candidate:
    """The shortest legal path into the group's end positions (RULES.md 4, tie-breaks: "a
    tie-break on path length is resolved to within 0.1 mm"): the first legal grid path and
    the first rival kinds after it (other intervals of end offsets or families), each
    polished to the shortest path of its kind (:func:`_polish`). A rival whose kind holds no
    path as short as the best so far, legal or not (shortest.py, closed form), is passed
    over unchecked."""
    from .shortest import shortest_many, slot_of

    breaks = np.asarray(offset_breakpoints(frame, form))
    first_slot = slot_of(first.family, first.align_point, frame)
    lo, hi = offset_interval(list(breaks), first.s)
    point = first.align_point or (math.nan, math.nan)
    first_kind = int(_kinds(frame, breaks, np.array([first.s]),
                            np.array([FAMILIES.index(first.family)]), np.array([point[0]]),
                            np.array([point[1]]))[0])
    kinds = _kinds(frame, breaks, cands.s[rest], cands.family[rest], cands.px[rest],
                   cands.py[rest])
    picked: list[int] = []  # rows of rest, one per rival kind, in search order
    _, where = np.unique(kinds, return_index=True)
    for pos in np.sort(where):
        i = int(rest[pos])
        if int(kinds[pos]) == first_kind or \
                (taken and int(plan.contact_id[plan.at[i]]) in taken):
            continue
        picked.append(i)
        if len(picked) >= REFINE_RIVALS:
            break
    keys = [(first_slot, lo, hi)]
    for i in picked:
        c = cands.row(i)
        keys.append((slot_of(c.family, c.align_point, frame), *offset_interval(list(breaks),
                                                                               c.s)))
    bounds = shortest_many(form, start, frame, keys)
    best = _polish(form, start, tbody, frame, first, bounds[0], world, end_form=plan.end_form)
    order = sorted(range(1, len(keys)),
                   key=lambda j: bounds[j].length if bounds[j] is not None else math.inf)
    for j in order:
        low = bounds[j]
        if low is None or low.length >= best.length - POLISH_TOL_MM:
            continue
        c = cands.row(picked[j - 1])
        if not check_candidate(form, start, c, tbody, world, end_form=plan.end_form).ok:
            continue
        r = _polish(form, start, tbody, frame, c, low, world, beat=best, end_form=plan.end_form)
        if r.key() < best.key():
            best = r
    return best


def _polish(form: g.Formation, start: g.Pose, tbody: g.Body, frame: FacingFrame,
            cand: Candidate, shortest: object, world: World,
            beat: Candidate | None = None, end_form: g.Formation | None = None) -> Candidate:
    """The shortest legal path of ``cand``'s kind, from the legal ``cand`` and the shortest
    path of that kind (``shortest``, a shortest.Shortest, legal or not): that one when legal;
    else the last legal point of a bisection between the two in (end offset, wheel) space,
    which stops at whatever blocks the shorter path. With ``beat``, paths not ranked before
    it are not worth checking. ``end_form``: as check_candidate's."""
    from .shortest import towards

    limit = cand if beat is None or cand.key() < beat.key() else beat
    if shortest is None or \
            shortest.length >= limit.length - POLISH_TOL_MM:  # type: ignore[attr-defined]
        return cand
    slot, s1, th1 = shortest.slot, shortest.s, shortest.theta  # type: ignore[attr-defined]
    c = candidate_at(form, start, frame, slot, s1, th1)
    if c is not None and c.key() < limit.key() and \
            check_candidate(form, start, c, tbody, world, end_form=end_form).ok:
        return c
    good, lo_t, hi_t = cand, 0.0, 1.0
    a, b = (cand.s, cand.wheel_deg), (s1, th1)
    for _ in range(BISECT_STEPS):
        t = (lo_t + hi_t) / 2
        c = candidate_at(form, start, frame, slot, *towards(a, b, t))
        if c is not None and check_candidate(form, start, c, tbody, world,
                                             end_form=end_form).ok:
            lo_t = t
            if c.key() < good.key():
                good = c
        else:
            hi_t = t
    return good
