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
from .grid_edges import edge_paths
from .plan import SearchMemo, SearchPlan
from .refine import _best_refined, _least_turn
from .turn_edges import _rotated, least_edge_turn
from .world import CLEAR, World

#: What the target may not hit when it turns (priority 2 fallback): a world, or a function
#: that builds it (most searches never need it), or None when the target may not turn.
TargetWorld = World | Callable[[], World] | None

#: Why a group of end positions has no path within the range (tow compares the roll with the
#: paid path), as the explanation quotes it.
LONGER = "every path there is longer than the charge range"


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
            if check_candidate(form, start, c, tbody, world, end_form=plan.end_form).ok:
                return _finish(charger, target, plan.frame, c, False, rejected, True,
                               int(plan.contact_id[plan.at[i]]))
    return None


def moves_aside(charger: g.Unit, target: g.Unit, move: ChargeMove, world: World,
                plan: SearchPlan) -> list[ChargeMove]:
    """The legal moves putting the same models in contact as ``move`` at the two extreme end
    offsets that allow it (as far to each side of the facing as that contact allows): they
    leave the most room for another charger on the other side (multiple charges, RULES.md 8);
    and the one nearest the middle of those offsets, which leaves room on both sides (three
    chargers against a narrow target: one in the middle, one at each corner). Each side's
    rows are tried from the extreme inwards, the middle's outwards."""
    big = plan.big
    rows = np.flatnonzero(plan.contact_id[plan.at] == move.contact_id)
    if move.target_final is not None or not len(rows):
        return []
    mid = (big.s[rows].min() + big.s[rows].max()) / 2
    out: list[ChargeMove] = []
    for key in (big.s[rows], -big.s[rows], np.abs(big.s[rows] - mid)):
        order = rows[np.lexsort((big.length[rows], np.round(key, 6)))]
        found = _first_legal(charger, target, world, plan, order, move.rejected, move.s)
        if found is not None and all(abs(found.s - o.s) > 1e-6 for o in out):
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
                      world: World, memo: SearchMemo | None = None,
                      rules: MoveRules = T9A_MOVES) -> bool:
    """Whether any legal charge move without turning the target exists (RULES.md 5 asks only
    this of the units in the way): the first legal path found ends the search, with no
    refinement of which one is best. ``rules``: the ruleset's (MoveRules), as the charge's
    own search used them, so that a shared ``memo`` keeps its plan."""
    moves, _ = search_moves(charger, target, facing, world, None, False, 1, refine=False,
                            memo=memo, count=False, rules=rules)
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
    counts once however many enemies it touches (RULES.md 4). ``memo`` skips the rows an
    earlier search found blocked for good and records this search's (SearchMemo).
    ``count=False`` leaves the models in contact uncounted (zero), for callers that only ask
    whether a move exists. ``rules``: the ruleset's (MoveRules); ``max_length``: the longest
    path allowed (tow compares the roll with the path). The steps are :class:`MoveSearch`'s."""
    return MoveSearch(charger, target, facing, world, target_world, allow_target_turn, k,
                      refine, memo, count, exclude, rules, max_length).run()


class MoveSearch:
    """One search of a charger into one facing (module doc, step 3), in named steps.

    The groups of end positions are searched best first, each in its own row order. Their
    candidates are built as one table and tested as one sequence (the groups' rows one after
    another), in growing chunks: a search that ends early tests few rows, and one that proves
    no move exists makes a few large vectorised calls instead of many small ones. Row verdicts
    do not depend on the chunking, so neither does the ruling. The steps:

    1. :meth:`first_row`: most searches end at the first row in order, so it is checked exactly
       before any first pass (which only rejects blocked rows, so the outcome is the same);
    2. :meth:`set_aside_first_move`: the rows whose first forward move is blocked (closed form)
       are booked at once;
    3. :meth:`first_pass`: the rest, chunk by chunk, through the vectorised first pass and the
       exact test;
    4. :meth:`target_turns`: when nothing is found, the priority 2 fallback, the target turning
       about the contact point as little as possible.
    """

    def __init__(self, charger: g.Unit, target: g.Unit, facing: g.FacingName, world: World,
                 target_world: TargetWorld, allow_target_turn: bool, k: int, refine: bool,
                 memo: SearchMemo | None, count: bool, exclude: frozenset[tuple[int, int]],
                 rules: MoveRules, max_length: float) -> None:
        self.charger, self.target, self.world = charger, target, world
        self.target_world, self.allow_target_turn = target_world, allow_target_turn
        self.k, self.refine, self.memo, self.count = k, refine, memo, count
        self.form, self.start, self.tbody = charger.formation, charger.pose, target.body
        self.exclude = exclude
        plan = memo.plan_for(charger, target, facing, exclude, rules) if memo is not None \
            else SearchPlan.of(charger, target, facing, exclude, rules)
        self.plan = plan
        big, groups = plan.big, plan.groups
        self.rejected: list[Rejected] = []
        self.found: list[ChargeMove] = []
        self.found_gid: list[int] = []  # the group of each move found on the grid
        # What blocks each end position: the first group's now, the others' only if the
        # search goes past the first row of the first group (first_row).
        self.n0 = len(groups[0].offsets) if groups else 0
        self.ends_by = np.full(len(plan.end_corners), CLEAR, dtype=int)
        self.ends_by[:self.n0] = world.footprints(plan.end_corners[:self.n0],
                                                  ignore_target=True)
        self.known_bad = np.zeros(len(big), dtype=bool)  # the row's path is certainly blocked
        self.known_ok = np.zeros(len(big), dtype=bool)  # it passed every first-pass stage
        self.fixed = np.zeros(len(big), dtype=bool)  # blocked in every world lacking enemies
        # The memo's codes of this world's obstacles, each row's known blocker in those codes.
        self.here = memo.codes([o.id for o in world.obstacles]) if memo is not None else \
            np.zeros(0, dtype=int)
        self.memo_by = np.full(len(big), -1, dtype=int)
        if memo is not None:
            for j, grp in enumerate(groups):
                key = (grp.charger_models, grp.target_models)
                prior = memo.fixed_dead.get(key)
                if prior is not None and len(prior) == len(plan.members[j]):
                    self.fixed[plan.members[j]] = prior
                    self.memo_by[plan.members[j]] = memo.blocked_by[key]
        # Rows blocked in an earlier search by something still here are blocked here too.
        self.still = (self.memo_by >= 0) & np.isin(self.memo_by, self.here)
        self.reasons: list[Counter] = [Counter() for _ in groups]
        # A path longer than ``max_length`` is out of range (tow compares the roll with it).
        self.fits = big.length <= max_length + 1e-6 if math.isfinite(max_length) else \
            np.ones(len(big), dtype=bool)
        if not self.fits.all():
            for j, times in zip(*np.unique(plan.row_gid[~self.fits], return_counts=True),
                                strict=True):
                self.reasons[int(j)][LONGER] += \
                    int(times)
        self.max_length = max_length
        self.unaligned = rules.unaligned
        self.closed = 0
        self.order = np.zeros(0, dtype=int)
        self.seq_gid = np.zeros(0, dtype=int)
        self.first_of = np.zeros(len(groups) + 1, dtype=int)

    # -- bookkeeping ---------------------------------------------------------------------

    def open_rows(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` whose end position is open, whose path is within range and which no
        earlier search showed blocked."""
        at = self.plan.at
        return rows[(self.ends_by[at[rows]] == CLEAR) & self.fits[rows] & ~self.fixed[rows] &
                    ~self.still[rows]]

    def save_memo(self) -> None:
        if self.memo is not None:
            for j, grp in enumerate(self.plan.groups):
                key = (grp.charger_models, grp.target_models)
                self.memo.fixed_dead[key] = self.fixed[self.plan.members[j]]
                self.memo.blocked_by[key] = self.memo_by[self.plan.members[j]]

    def close_until(self, j: int) -> None:
        """Record why each group before ``j`` had no legal path (once nothing was found)."""
        groups = self.plan.groups
        while self.closed < j:
            grp = groups[self.closed]
            if not self.found:
                codes = self.ends_by[self.plan.offs_gid == self.closed]
                ends = Counter(f"the end position is blocked by "
                               f"{self.world.describe_index(int(i))}"
                               for i in codes[codes != CLEAR])
                self.rejected.append(Rejected(grp.charger_models, grp.target_models,
                                              _describe_block(self.reasons[self.closed]
                                                              or ends)))
            self.closed += 1

    def contact_of(self, row: int) -> int:
        """The row's contact (SearchPlan.contact_id) when several moves are wanted."""
        return int(self.plan.contact_id[self.plan.at[row]]) if self.k > 1 else -1

    def taken(self, row: int) -> bool:
        """Whether a move already found puts the same models in contact as ``row``."""
        return bool(self.found) and any(self.contact_of(row) == f.contact_id
                                        for f in self.found)

    def accept(self, p: int, c: Candidate) -> None:
        """Row ``p`` of the order is legal: refine it (unless asked not to) and take it."""
        plan = self.plan
        j = int(self.seq_gid[p])
        best = c
        if self.refine:
            best = _best_refined(self.form, self.start, self.tbody, plan.frame, c, plan.big,
                                 self.order[p + 1:self.first_of[j + 1]], self.world,
                                 {f.contact_id for f in self.found}, plan)
        self.found.append(_finish(self.charger, self.target, plan.frame, best, False,
                                  list(self.rejected), self.count,
                                  self.contact_of(int(self.order[p]))))
        self.found_gid.append(j)

    # -- the steps -----------------------------------------------------------------------

    def first_row(self) -> bool:
        """Row 0 of the order is legal: it is taken (k == 1 searches only)."""
        c = self.plan.big.row(int(self.order[0]))
        # (Its end position is one of the plan's, known clear for the whole formation.)
        if not check_candidate(self.form, self.start, c, self.tbody, self.world).ok:
            return False
        self.close_until(int(self.seq_gid[0]))
        self.accept(0, c)
        self.save_memo()
        return True

    def set_aside_first_move(self, rows: np.ndarray) -> np.ndarray:
        """The first forward move is closed form (first_move): the rows it blocks are set
        aside at once (most rows, when a move is blocked); the others are returned."""
        big = self.plan.big
        move = first_move(self.form, self.start, self.world)
        far = big.d1[rows] > move.free
        if not far.any():
            return rows
        dead = rows[far]
        self.known_bad[dead] = True
        self.fixed[rows[big.d1[rows] > move.fixed]] = True
        if self.memo is not None and move.code >= 0:
            self.memo_by[dead] = self.here[move.code]
        why = f"blocked by {self.world.describe_index(move.code)}"
        for gj, times in zip(*np.unique(self.plan.row_gid[dead], return_counts=True),
                             strict=True):
            self.reasons[int(gj)][why] += int(times)
        return rows[~far]

    def first_pass(self) -> bool:
        """The ordered rows chunk by chunk: the vectorised first pass, then the exact test of
        each survivor; whether ``k`` moves were found."""
        order, plan, memo = self.order, self.plan, self.memo
        cands = plan.big.subset(order)
        for lo, hi in _chunks(len(order)):
            part = cands.subset(slice(lo, hi))
            chunk = order[lo:hi]
            bad = np.zeros(len(part), dtype=bool)
            for_good = np.zeros(len(part), dtype=bool)
            over = np.zeros(len(part), dtype=bool)
            who = np.full(len(part), CLEAR, dtype=int)
            alive = path_prefilter(part, self.form, self.start, self.tbody, self.world,
                                   path_blocked=bad, fixed_blocked=for_good, blocker=who,
                                   overlaps_target=over)
            self.known_bad[chunk[bad | over]] = True
            self.fixed[chunk[for_good | over]] = True
            hit = who != CLEAR
            if memo is not None:
                named = hit & (who >= 0)  # the table edge is in ``fixed`` already
                self.memo_by[chunk[named]] = self.here[who[named]]
            # What blocked the paths the first pass rejected, for the explanation.
            pairs = Counter(zip(plan.row_gid[chunk[hit]].tolist(), who[hit].tolist(),
                                strict=True))
            for (gj, code), times in pairs.items():
                self.reasons[gj][f"blocked by {self.world.describe_index(code)}"] += times
            self.known_ok[chunk[alive]] = True
            for pos in np.flatnonzero(alive):
                p = lo + int(pos)
                j = int(self.seq_gid[p])
                self.close_until(j)
                if self.taken(int(order[p])):
                    continue
                c = cands.row(p)
                att = check_candidate(self.form, self.start, c, self.tbody, self.world)
                if att.ok:
                    self.accept(p, c)
                    if len(self.found) >= self.k:
                        self.save_memo()
                        return True
                else:
                    if att.blocked is None or att.blocked.kind != "enemy":
                        self.fixed[order[p]] = True
                    if att.blocked is not None:
                        self.reasons[j][f"blocked by {att.blocked.describe()}"] += 1
                        if memo is not None and att.blocked.kind != "table":
                            self.memo_by[order[p]] = memo.codes([att.blocked.obstacle])[0]
        return False

    def target_turns(self) -> None:
        """Priority 2 fallback (RULES.md 4): the target turns about the contact point, as
        little as possible. The rows the first pass has not judged get its stages without
        the align, all at once (those whose first forward move is blocked are known without
        them); then smallest turn first, then the priorities (models, path length, wheel),
        ties keeping the groups' order, then the table's."""
        target_world = self.target_world
        if callable(target_world):
            target_world = target_world()
        assert target_world is not None
        plan, big, form, start = self.plan, self.plan.big, self.form, self.start
        test = np.flatnonzero(~self.known_bad & ~self.known_ok & self.fits)
        test = test[big.d1[test] <= first_move(form, start, self.world).free]
        clear = path_prefilter(big.subset(test), form, start, self.tbody, self.world,
                               with_align=False)
        keep = self.known_ok.copy()
        keep[test[clear]] = True
        groups, members = plan.groups, plan.members
        idx = np.concatenate([members[j][keep[members[j]]] for j in range(len(groups))]) \
            if groups else np.zeros(0, dtype=int)
        idx = idx[big.family[idx] != 0]
        models = np.asarray([grp.models for grp in groups], dtype=float)
        idx = idx[np.lexsort((np.round(np.abs(big.theta[idx]), 6),
                              np.round(big.length[idx], 6), -models[plan.row_gid[idx]],
                              np.round(np.abs(big.alpha[idx]), 6)))]
        # The target's turned footprint lies in its turn's sweep: where that footprint is
        # blocked (World.footprints, by the same rules), the turn is too, and the row needs
        # no exact test.
        tcorners = np.asarray(boundary_coords(self.target.formation, self.target.pose))
        for lo, hi in _chunks(len(idx)):
            part = idx[lo:hi]
            turned = _rotated(tcorners, big.px[part], big.py[part], -big.alpha[part])
            for i in part[target_world.footprints(turned) == CLEAR]:
                c = big.row(int(i))
                if self.taken(int(i)):
                    continue
                if check_candidate(form, start, c, self.tbody, self.world, target_turns=True,
                                   target_world=target_world, end_form=plan.end_form).ok:
                    c = _least_turn(form, start, plan.frame, c, self.tbody, self.world,
                                    target_world, self.max_length, plan.end_form)
                    self.found.append(_finish(self.charger, self.target, plan.frame, c, True,
                                              list(self.rejected), self.count,
                                              self.contact_of(int(i))))
                    if len(self.found) >= self.k:
                        return

    def turn_edges(self) -> None:
        """The target turned less than :meth:`target_turns` found, by a path at an end of a
        wheel's interval of reachable end offsets (charges/turn_edges.py). Replaces the move
        found when it turns the target less."""
        target_world = self.target_world
        if callable(target_world):
            target_world = target_world()
        assert target_world is not None
        best = abs(self.found[0].target_turn_deg)
        c = least_edge_turn(self.form, self.start, self.plan, self.target, self.world,
                            target_world, best, self.max_length, self.exclude)
        if c is not None:
            self.found = [_finish(self.charger, self.target, self.plan.frame, c, True,
                                  list(self.rejected), self.count)]

    def run(self) -> tuple[list[ChargeMove], list[Rejected]]:
        plan, groups = self.plan, self.plan.groups
        self.order = plan.sorted(self.open_rows(plan.members[0])) if groups else \
            np.zeros(0, dtype=int)
        self.seq_gid = np.zeros(len(self.order), dtype=int)
        self.first_of = np.full(len(groups) + 1, len(self.order))
        tried_first = self.k == 1 and len(self.order) > 0
        if tried_first and self.first_row():
            return self.finish()
        self.ends_by[self.n0:] = self.world.footprints(plan.end_corners[self.n0:],
                                                       ignore_target=True)
        if self.memo is not None:
            self.memo.end_blockers = (self.world, self.ends_by)
        rows = self.set_aside_first_move(self.open_rows(np.arange(len(plan.big))))
        self.order = plan.sorted(rows)
        self.seq_gid = plan.row_gid[self.order]
        self.first_of = np.searchsorted(self.seq_gid, np.arange(len(groups) + 1))
        # (Had the first row in order been one set aside, its exact check would have failed:
        # the first row left is the one to check.)
        if self.k == 1 and not tried_first and len(self.order) and self.first_row():
            return self.finish()
        if self.first_pass():
            return self.finish()
        self.close_until(len(groups))
        self.save_memo()
        if self.k == 1 and self.edge_rescue(len(groups)):
            return self.found, self.rejected
        if not self.found and self.allow_target_turn and self.target.state != "engaged" and \
                self.target_world is not None:
            self.target_turns()
            if self.k == 1 and self.found:
                # Only to turn it less: most charges with no aligned move have no move at
                # all, and the edges' table would cost them a tenth more.
                self.turn_edges()
        if not self.found and self.unaligned:
            self.unaligned_contact()
        return self.found, self.rejected

    def finish(self) -> tuple[list[ChargeMove], list[Rejected]]:
        """The moves found on the grid, unless a better group has a legal path between
        grid angles (:meth:`edge_rescue`)."""
        if self.k == 1 and self.found_gid and self.found_gid[0] > 0:
            self.edge_rescue(self.found_gid[0])
        return self.found, self.rejected

    def edge_rescue(self, until: int) -> bool:
        """No grid row of the groups before ``until`` is legal: the paths at the edges of
        their runs of wheel angles (grid_edges: X5's legal window is narrower than the
        grid) are tried, best group first, then shortest; the first legal one is the move
        (k == 1 searches), and the groups before its own stay rejected."""
        plan, big = self.plan, self.plan.big
        rows = np.flatnonzero((plan.row_gid < until) & (self.ends_by[plan.at] == CLEAR))
        table, src = edge_paths(self.form, self.start, plan.frame, big, rows)
        if not len(table):
            return False
        fits = table.length <= self.max_length + 1e-6
        idx = np.flatnonzero(fits)
        idx = idx[path_prefilter(table.subset(idx), self.form, self.start, self.tbody,
                                 self.world)]
        gid = plan.row_gid[src[idx]]
        idx = idx[np.lexsort((*table.rank_keys(idx), gid))]
        for i in idx.tolist():
            c = table.row(i)
            if check_candidate(self.form, self.start, c, self.tbody, self.world).ok:
                j = int(plan.row_gid[src[i]])
                self.rejected = self.rejected[:j]
                self.found = [_finish(self.charger, self.target, plan.frame, c, False,
                                      list(self.rejected), self.count)]
                self.found_gid = [j]
                return True
        return False

    def unaligned_contact(self) -> None:
        """Nobody can align (tow 1.5, whfb8 2.5): the best path to first contact, by the
        ruleset's ranking of contact and then path length, ends there. Its contact is
        counted where it stands."""
        plan, big = self.plan, self.plan.big
        rows = np.flatnonzero(self.fits & ~self.known_bad)
        rows = rows[big.d1[rows] <= first_move(self.form, self.start, self.world).free]
        alive = rows[path_prefilter(big.subset(rows), self.form, self.start, self.tbody,
                                    self.world, with_align=False)]
        for i in plan.sorted(alive):
            c = big.row(int(i))
            if check_candidate(self.form, self.start, c, self.tbody, self.world,
                               align=False, end_form=plan.end_form).ok:
                self.found.append(_finish(self.charger, self.target, plan.frame, c, False,
                                          list(self.rejected), self.count,
                                          self.contact_of(int(i)), aligned=False))
                return
