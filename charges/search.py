"""The charge-move search (RULES.md 4).

A legal charge move is: forward ``d1``, at most one forward wheel of at most 90 degrees about a
front corner, forward ``d2`` until the charger's front facing first touches the charged facing,
then the align about the contact point that closes the angle (the short way). The swept
boundary may not overlap anything, nor touch an enemy other than the target.

Every aligned end position is flush with the charged facing, so it is fixed by one number:
``s``, the position of the charger's front-left corner along the facing line. The models in
contact are a step function of ``s`` whose steps lie exactly where two base edges meet
(corner contact counts, so the value *at* a step is the higher one). The search therefore:

1. lists the exact breakpoints of that step function (plus points inside each open interval)
   and groups them by the number of models in contact, best first;
2. for each candidate ``s`` builds the paths that end there, in closed form: with no align
   (wheel exactly to the final facing), or arriving at an angle ``theta`` on a 1-degree grid and
   aligning about a charger front corner or a target corner. For a given wheel angle the two
   forward distances solve a 2x2 linear system, so no path is sampled blindly;
3. checks the candidates of the best group in order of path length (then smaller wheel, then
   end position nearer the start), sweeping the boundary along each step, and returns the first
   legal one. A group with no legal path records what blocked it, for the explanation.

If no path lets the charger align, the same approach positions are tried with the *target*
turning about the contact point instead, smallest turn first (RULES.md 4, priority 2).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

import numpy as np

import geometry as g
from geometry.formation import boundary_coords

from .candidates import Candidate
from .charge_move import ChargeMove, Rejected, _describe_block, _finish
from .exact_check import check_candidate
from .facing_frame import T9A_MOVES, MoveRules
from .first_pass import _chunks, first_move, path_prefilter
from .plan import SearchMemo, SearchPlan
from .refine import _best_refined, _least_turn
from .world import CLEAR, World

#: What the target may not hit when it turns (priority 2 fallback): a world, or a function
#: that builds it (most searches never need it), or None when the target may not turn.
TargetWorld = World | Callable[[], World] | None


def search_charge(charger: g.Unit, target: g.Unit, facing: g.FacingName, world: World,
                  target_world: TargetWorld = None, allow_target_turn: bool = True,
                  memo: SearchMemo | None = None, rules: MoveRules = T9A_MOVES,
                  max_length: float = math.inf) -> tuple[ChargeMove | None, list[Rejected]]:
    """The best legal charge move of ``charger`` into ``facing`` of ``target`` (RULES.md 4),
    by the ruleset's ``rules``, with a path no longer than ``max_length`` (mm; tow compares
    the roll with the paid path).

    Returns the move (or None) and the better groups that were rejected, with reasons.
    """
    moves, rejected = search_moves(charger, target, facing, world, target_world,
                                   allow_target_turn, 1, memo=memo, rules=rules,
                                   max_length=max_length)
    return (moves[0] if moves else None), rejected


def _first_legal(charger: g.Unit, target: g.Unit, world: World, plan: SearchPlan,
                 rows: np.ndarray, rejected: list[Rejected], stop_at: float | None = None
                 ) -> ChargeMove | None:
    """The first of ``rows`` (in the order given) whose path is legal, by a vectorised first
    pass then the exact test, chunk by chunk; None if none is (or if the row ending at
    offset ``stop_at`` comes first)."""
    form, start, tbody, big = charger.formation, charger.pose, target.body, plan.big
    for lo, hi in _chunks(len(rows)):
        part = rows[lo:hi]
        alive = path_prefilter(big.subset(part), form, start, tbody, world)
        for i in part[alive]:
            c = big.row(int(i))
            if stop_at is not None and abs(c.s - stop_at) < 1e-6:
                return None
            if check_candidate(form, start, c, tbody, world).ok:
                return _finish(charger, target, plan.frame, c, False, rejected, True,
                               int(plan.contact_id[plan.at[i]]))
    return None


def moves_aside(charger: g.Unit, target: g.Unit, move: ChargeMove, world: World,
                plan: SearchPlan) -> list[ChargeMove]:
    """The legal moves putting the same models in contact as ``move`` at the two extreme end
    offsets that allow it (as far to each side of the facing as that contact allows): they
    leave the most room for another charger on the other side (multiple charges, RULES.md 8).
    Each side's rows are tried from the extreme inwards."""
    big = plan.big
    rows = np.flatnonzero(plan.contact_id[plan.at] == move.contact_id)
    if move.target_final is not None:
        return []
    out: list[ChargeMove] = []
    for sign in (1.0, -1.0):
        order = rows[np.lexsort((big.length[rows], sign * big.s[rows]))]
        found = _first_legal(charger, target, world, plan, order, move.rejected, move.s)
        if found is not None:
            out.append(found)
    return out


def shortest_move(charger: g.Unit, target: g.Unit, world: World, plan: SearchPlan,
                  max_length: float = math.inf) -> ChargeMove | None:
    """The legal move with the shortest path, whatever the models in contact: with several
    chargers, a charger that goes straight in may leave the others what it would have
    taken (multiple charges, RULES.md 8: the shortest paths break ties of models); in tow,
    the shortest paid path gives the roll needed (tow 1.3). Only end positions clear of
    everything (the plan's end footprints) count."""
    ends_clear = world.footprints(plan.end_corners, ignore_target=True) == CLEAR
    rows = np.flatnonzero(ends_clear[plan.at] & (plan.big.length <= max_length + 1e-6))
    order = rows[np.lexsort(plan.big.rank_keys(rows))]
    return _first_legal(charger, target, world, plan, order, [])


def legal_move_exists(charger: g.Unit, target: g.Unit, facing: g.FacingName,
                      world: World, memo: SearchMemo | None = None) -> bool:
    """Whether any legal charge move without turning the target exists (RULES.md 5 asks only
    this of the units in the way): the first legal path found ends the search, with no
    refinement of which one is best."""
    moves, _ = search_moves(charger, target, facing, world, None, False, 1, refine=False,
                            memo=memo, count=False)
    return bool(moves)


def search_moves(charger: g.Unit, target: g.Unit, facing: g.FacingName, world: World,
                 target_world: TargetWorld = None, allow_target_turn: bool = True,
                 k: int = 1, refine: bool = True, memo: SearchMemo | None = None,
                 count: bool = True, exclude: frozenset[tuple[int, int]] = frozenset(),
                 rules: MoveRules = T9A_MOVES, max_length: float = math.inf
                 ) -> tuple[list[ChargeMove], list[Rejected]]:
    """Up to ``k`` legal charge moves, best first, each putting a different set of models in
    contact (alternatives for multiple charges, RULES.md 8). Target models in ``exclude``
    (already touched by another charger) do not count towards a move's rank, as a model
    counts once however many enemies it touches (RULES.md 4). ``memo`` skips the rows an earlier
    search found blocked for good and records this search's (SearchMemo). ``count=False``
    leaves the models in contact uncounted (zero), for callers that only ask whether a move
    exists.

    The groups of end positions are searched best first, each in its own row order (module
    doc, step 3). Their candidates are built as one table and tested as one sequence (the
    groups' rows one after another), in growing chunks: a search that ends early tests few
    rows, and one that proves no move exists makes a few large vectorised calls instead of
    many small ones. Row verdicts do not depend on the chunking, so neither does the ruling."""
    form, start = charger.formation, charger.pose
    tbody = target.body
    plan = memo.plan_for(charger, target, facing, exclude, rules) if memo is not None else \
        SearchPlan.of(charger, target, facing, exclude, rules)
    frame, groups, big, offs_gid, at, row_gid, members = plan.frame, plan.groups, plan.big, \
        plan.offs_gid, plan.at, plan.row_gid, plan.members
    rejected: list[Rejected] = []
    found: list[ChargeMove] = []
    # What blocks each end position: the first group's now, the others' only if the search
    # goes past the first row of the first group (below).
    n0 = len(groups[0].offsets) if groups else 0
    ends_by = np.full(len(plan.end_corners), CLEAR, dtype=int)
    ends_by[:n0] = world.footprints(plan.end_corners[:n0], ignore_target=True)
    known_bad = np.zeros(len(big), dtype=bool)  # the row's path is certainly blocked
    known_ok = np.zeros(len(big), dtype=bool)  # the row's path passed every first-pass stage
    fixed = np.zeros(len(big), dtype=bool)  # blocked in every world lacking only enemies
    # The memo's codes of this world's obstacles, and each row's known blocker in those codes.
    here = memo.codes([o.id for o in world.obstacles]) if memo is not None else \
        np.zeros(0, dtype=int)
    memo_by = np.full(len(big), -1, dtype=int)
    if memo is not None:
        for j, grp in enumerate(groups):
            key = (grp.charger_models, grp.target_models)
            prior = memo.fixed_dead.get(key)
            if prior is not None and len(prior) == len(members[j]):
                fixed[members[j]] = prior
                memo_by[members[j]] = memo.blocked_by[key]
    # Rows blocked in an earlier search by something still here are blocked here too.
    still = (memo_by >= 0) & np.isin(memo_by, here)
    reasons: list[Counter] = [Counter() for _ in groups]

    # A path longer than ``max_length`` is out of range (tow compares the roll with it).
    fits = big.length <= max_length + 1e-6 if math.isfinite(max_length) else \
        np.ones(len(big), dtype=bool)
    if not fits.all():
        for j, times in zip(*np.unique(row_gid[~fits], return_counts=True), strict=True):
            reasons[int(j)]["every path there is longer than the charge range"] += int(times)

    def open_rows(rows: np.ndarray) -> np.ndarray:
        """``rows`` whose end position is open, whose path is within range and which no
        earlier search showed blocked."""
        return rows[(ends_by[at[rows]] == CLEAR) & fits[rows] & ~fixed[rows] & ~still[rows]]

    def save_memo() -> None:
        if memo is not None:
            for j, grp in enumerate(groups):
                key = (grp.charger_models, grp.target_models)
                memo.fixed_dead[key] = fixed[members[j]]
                memo.blocked_by[key] = memo_by[members[j]]

    closed = 0

    def close_until(j: int) -> None:
        """Record why each group before ``j`` had no legal path (once nothing was found)."""
        nonlocal closed
        while closed < j:
            grp = groups[closed]
            if not found:
                codes = ends_by[offs_gid == closed]
                ends = Counter(f"the end position is blocked by {world.describe_index(int(i))}"
                               for i in codes[codes != CLEAR])
                rejected.append(Rejected(grp.charger_models, grp.target_models,
                                         _describe_block(reasons[closed] or ends)))
            closed += 1

    def accept(p: int, c: Candidate) -> None:
        """Row ``p`` of the order is legal: refine it (unless asked not to) and take it."""
        j = int(seq_gid[p])
        best = c
        if refine:
            best = _best_refined(form, start, tbody, frame, c, big, order[p + 1:first_of[j + 1]],
                                 world, {f.contact_id for f in found}, plan)
        found.append(_finish(charger, target, frame, best, False, list(rejected), count,
                             int(plan.contact_id[at[order[p]]]) if k > 1 else -1))

    # The search order: group by group, each by CandidateTable.order (SearchPlan.sorted),
    # over the open rows. Most searches end at the first row in order, so it is checked
    # exactly before any first pass, which runs only if it is blocked (the first pass only
    # rejects blocked rows, so the outcome is the same); when it is the first group's, that
    # group's rows are the whole order the refinement needs, and the other groups' end
    # positions are not tested.
    def first_row_legal() -> bool:
        """Row 0 of the order is legal: it is taken (k == 1 searches only)."""
        c = big.row(int(order[0]))
        if not check_candidate(form, start, c, tbody, world).ok:
            return False
        close_until(int(seq_gid[0]))
        accept(0, c)
        save_memo()
        return True

    order = plan.sorted(open_rows(members[0])) if groups else np.zeros(0, dtype=int)
    seq_gid = np.zeros(len(order), dtype=int)
    first_of = np.full(len(groups) + 1, len(order))
    tried_first = k == 1 and len(order) > 0
    if tried_first and first_row_legal():
        return found, rejected
    ends_by[n0:] = world.footprints(plan.end_corners[n0:], ignore_target=True)
    if memo is not None:
        memo.end_blockers = (world, ends_by)
    rows = open_rows(np.arange(len(big)))
    # The first forward move is closed form (first_move): the rows it blocks are set aside at
    # once, and only the others are put in order and go through the chunks below (most rows,
    # when a move is blocked, are set aside here).
    move = first_move(form, start, world)
    far = big.d1[rows] > move.free
    if far.any():
        dead = rows[far]
        known_bad[dead] = True
        fixed[rows[big.d1[rows] > move.fixed]] = True
        if memo is not None and move.code >= 0:
            memo_by[dead] = here[move.code]
        why = f"blocked by {world.describe_index(move.code)}"
        for gj, times in zip(*np.unique(row_gid[dead], return_counts=True), strict=True):
            reasons[int(gj)][why] += int(times)
        rows = rows[~far]
    order = plan.sorted(rows)
    seq_gid = row_gid[order]
    first_of = np.searchsorted(seq_gid, np.arange(len(groups) + 1))  # each group's start
    # (Had the first row in order been one set aside, its exact check would have failed: the
    # first row left is the one to check.)
    if k == 1 and not tried_first and len(order) and first_row_legal():
        return found, rejected
    cands = big.subset(order)
    for lo, hi in _chunks(len(order)):
        part = cands.subset(slice(lo, hi))
        chunk = order[lo:hi]
        bad = np.zeros(len(part), dtype=bool)
        for_good = np.zeros(len(part), dtype=bool)
        over = np.zeros(len(part), dtype=bool)
        who = np.full(len(part), CLEAR, dtype=int)
        alive = path_prefilter(part, form, start, tbody, world, path_blocked=bad,
                               fixed_blocked=for_good, blocker=who, overlaps_target=over)
        known_bad[chunk[bad | over]] = True
        fixed[chunk[for_good | over]] = True
        hit = who != CLEAR
        if memo is not None:
            named = hit & (who >= 0)  # the table edge is in ``fixed`` already
            memo_by[chunk[named]] = here[who[named]]
        # What blocked the paths the first pass rejected, for the explanation.
        pairs = Counter(zip(row_gid[chunk[hit]].tolist(), who[hit].tolist(), strict=True))
        for (gj, code), times in pairs.items():
            reasons[gj][f"blocked by {world.describe_index(code)}"] += times
        known_ok[chunk[alive]] = True
        for pos in np.flatnonzero(alive):
            p = lo + int(pos)
            j = int(seq_gid[p])
            close_until(j)
            if found and any(int(plan.contact_id[at[order[p]]]) == f.contact_id
                             for f in found):
                continue
            c = cands.row(p)
            att = check_candidate(form, start, c, tbody, world)
            if att.ok:
                accept(p, c)
                if len(found) >= k:
                    save_memo()
                    return found, rejected
            else:
                if att.blocked is None or att.blocked.kind != "enemy":
                    fixed[order[p]] = True
                if att.blocked is not None:
                    reasons[j][f"blocked by {att.blocked.describe()}"] += 1
                    if memo is not None and att.blocked.kind != "table":
                        memo_by[order[p]] = memo.codes([att.blocked.obstacle])[0]
    close_until(len(groups))
    save_memo()
    if found or not allow_target_turn or target.state == "engaged" or target_world is None:
        return found, rejected
    if callable(target_world):
        target_world = target_world()
    # Priority 2 fallback: the target turns about the contact point, as little as possible.
    # The rows the first pass has not judged get its stages without the align, all at once
    # (those whose first forward move is blocked are known without them).
    test = np.flatnonzero(~known_bad & ~known_ok & fits)
    test = test[big.d1[test] <= first_move(form, start, world).free]
    clear = path_prefilter(big.subset(test), form, start, tbody, world, with_align=False)
    keep = known_ok.copy()
    keep[test[clear]] = True
    # Smallest turn first, then the priorities (models, path length, wheel); ties keep the
    # groups' order, then the table's.
    idx = np.concatenate([members[j][keep[members[j]]] for j in range(len(groups))]) \
        if groups else np.zeros(0, dtype=int)
    idx = idx[big.family[idx] != 0]
    models = np.asarray([grp.models for grp in groups], dtype=float)
    idx = idx[np.lexsort((np.round(np.abs(big.theta[idx]), 6), np.round(big.length[idx], 6),
                          -models[row_gid[idx]], np.round(np.abs(big.alpha[idx]), 6)))]
    # The target's turned footprint lies in its turn's sweep: where that footprint is blocked
    # (World.footprints, by the same rules), the turn is too, and the row needs no exact test.
    tcorners = np.asarray(boundary_coords(target.formation, target.pose))
    for lo, hi in _chunks(len(idx)):
        part = idx[lo:hi]
        turned = _rotated(tcorners, big.px[part], big.py[part], -big.alpha[part])
        for i in part[target_world.footprints(turned) == CLEAR]:
            c = big.row(int(i))
            cid = int(plan.contact_id[at[i]]) if k > 1 else -1
            if found and any(cid == f.contact_id for f in found):
                continue
            if check_candidate(form, start, c, tbody, world, target_turns=True,
                               target_world=target_world).ok:
                c = _least_turn(form, start, frame, c, tbody, world, target_world)
                found.append(_finish(charger, target, frame, c, True, list(rejected), count,
                                     cid))
                if len(found) >= k:
                    return found, rejected
    return found, rejected


def _rotated(corners: np.ndarray, cx: np.ndarray, cy: np.ndarray, angle_deg: np.ndarray
             ) -> np.ndarray:
    """(n, 4, 2): ``corners`` (4, 2) turned counter-clockwise by each angle about each centre
    (as geometry.rotate_point)."""
    a = np.radians(angle_deg)[:, None]
    c, s = np.cos(a), np.sin(a)
    dx = corners[None, :, 0] - cx[:, None]
    dy = corners[None, :, 1] - cy[:, None]
    return np.stack([cx[:, None] + c * dx - s * dy, cy[:, None] + s * dx + c * dy], axis=2)
