"""What a search builds before it looks at any obstacle (SearchPlan) and what one search
leaves another (SearchMemo)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

import geometry as g

from .candidates import CandidateTable, candidate_table
from .facing_frame import (
    T9A_MOVES,
    FacingFrame,
    Group,
    MoveRules,
    _flush_corners,
    contact_matrix,
    facing_frame,
    group_offsets,
)
from .world import World


@dataclass
class SearchPlan:
    """What a search of one charger into one facing of one target builds before it looks at
    any obstacle: the groups of end positions, the candidate table of every group (module
    doc, step 2), each row's group, the end footprints, and the keys of the search order
    (group by group, each by CandidateTable.order). A :class:`SearchMemo` keeps it for the
    next search of the same charge."""

    key: tuple
    frame: FacingFrame
    groups: list[Group]
    big: CandidateTable
    offs_gid: np.ndarray  # each offset's group
    at: np.ndarray  # each row's end offset (index)
    row_gid: np.ndarray  # each row's group
    members: list[np.ndarray]  # each group's rows
    end_corners: np.ndarray  # (offsets, 4, 2) footprint at each end offset
    keys: tuple[np.ndarray, ...]  # np.lexsort keys of the search order, for every row
    offsets: np.ndarray  # the end offsets, as ``at`` indexes them
    form: g.Formation  # the charger's
    #: The whole formation when ``form`` is its front-edge strip (MoveRules.end_form): its
    #: footprint must be clear where the charger ends (exact_check.check_candidate).
    end_form: g.Formation | None = None

    def sorted(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` (ascending) in search order: group by group, each by CandidateTable.order
        (stable, so rows that tie keep the table's order; the order of a subset is the
        order of all rows, filtered). Sorting only the rows a search still needs is cheaper
        than sorting every row once."""
        return rows[np.lexsort(tuple(k[rows] for k in self.keys))]

    @staticmethod
    def key_of(charger: g.Unit, target: g.Unit, facing: g.FacingName,
               exclude: frozenset[tuple[int, int]] = frozenset(),
               rules: MoveRules = T9A_MOVES) -> tuple:
        return (charger.formation, charger.pose, target.formation, target.pose, facing,
                exclude, rules)

    @classmethod
    def of(cls, charger: g.Unit, target: g.Unit, facing: g.FacingName,
           exclude: frozenset[tuple[int, int]] = frozenset(),
           rules: MoveRules = T9A_MOVES) -> SearchPlan:
        form, start = charger.formation, charger.pose
        frame = facing_frame(target.body, facing)
        groups = group_offsets(frame, form, start, exclude, rules)
        offsets = [s for grp in groups for s in grp.offsets]
        big = candidate_table(form, start, frame, offsets)
        offs = np.asarray(offsets, dtype=float)
        offs_gid = np.repeat(np.arange(len(groups)), [len(grp.offsets) for grp in groups])
        # Each row's end offset (every offset belongs to exactly one group).
        by_value = np.argsort(offs, kind="stable")
        at = by_value[np.searchsorted(offs[by_value], big.s)] if len(big) else \
            np.zeros(0, dtype=int)
        row_gid = offs_gid[at]
        members = [np.flatnonzero(row_gid == j) for j in range(len(groups))]
        # The end footprints: the whole formation's, when the search moves its front edge.
        return cls(cls.key_of(charger, target, facing, exclude, rules), frame, groups, big,
                   offs_gid, at, row_gid, members,
                   _flush_corners(frame, rules.end_form or form, offs),
                   (*big.rank_keys(), row_gid), offs, form, rules.end_form)

    @cached_property
    def contact_id(self) -> np.ndarray:
        """Which models each end offset puts in contact (charger count, target models), one
        number per distinct contact: alternatives must differ in it (built on first use, by
        the searches that ask for several moves)."""
        ch, tg = contact_matrix(self.frame, self.form, self.offsets)
        contacts = np.concatenate([ch[:, None], tg.astype(int)], axis=1)
        if not len(contacts):
            return np.zeros(0, dtype=int)
        return np.unique(contacts, axis=0, return_inverse=True)[1].ravel()


@dataclass
class SearchMemo:
    """What one search learned that another, in a world with fewer enemy units, can reuse
    (RULES.md 5 asks whether a move would exist without the enemies in the way): per group of
    end positions (keyed by its contact counts), the rows of its candidate table certainly
    blocked by the table edge, the target, a friend or terrain, which stay blocked in every
    such world (``fixed_dead``), and for every blocked row something that blocks it
    (``blocked_by``, a code in ``names``, -1 when unknown): the row stays blocked in any such
    world that still holds that obstacle. Share a memo only between searches of one charger
    into one facing of one target in worlds that differ by enemy units removed."""

    fixed_dead: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    blocked_by: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    names: dict[str, int] = field(default_factory=dict)  # blocked_by's codes
    plan: SearchPlan | None = None
    #: What blocks each end position of the plan (World.footprints codes), in the world the
    #: last search that tested them all ran in: (that world, the codes).
    end_blockers: tuple[World, np.ndarray] | None = None

    def plan_for(self, charger: g.Unit, target: g.Unit, facing: g.FacingName,
                 exclude: frozenset[tuple[int, int]] = frozenset(),
                 rules: MoveRules = T9A_MOVES) -> SearchPlan:
        """The search plan of this charge, built by the first search that asks."""
        key = SearchPlan.key_of(charger, target, facing, exclude, rules)
        if self.plan is None or self.plan.key != key:
            self.plan = SearchPlan.of(charger, target, facing, exclude, rules)
        return self.plan

    def codes(self, ids: list[str]) -> np.ndarray:
        """The memo's code of each obstacle id (new ids get new codes)."""
        return np.asarray([self.names.setdefault(i, len(self.names)) for i in ids], dtype=int)
