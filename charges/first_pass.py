"""The vectorised first pass over candidate paths (search.py's module doc, step 3): the
arrival test, the closed-form first forward move, and separating-axis tests of the straight
sweeps and of positions sampled along each wheel and align; a path it rejects is illegal."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import geometry as g
from geometry.formation import boundary_coords

from .candidates import CandidateTable
from .facing_frame import EPS
from .world import TABLE, World, boxes_meet


def arrival_clear(table: CandidateTable, form: g.Formation, target: g.Body,
                  rows: np.ndarray | None = None) -> np.ndarray:
    """Whether each of ``rows`` (every row by default) has its charger, at first contact, not
    overlapping the target (vectorised; the rest of the way is :func:`path_prefilter`'s).
    Flush arrivals lie outside the target by construction, and so does every arrival turned
    at most 90 degrees from the facing: its charger lies behind its front line, which passes
    through the pivot on the facing tilted away from the target (about a charger corner the
    align comes down onto the facing, ALIGN_OUTSIDE_TARGET; about the facing's end the part
    of the front over the facing comes down onto it), and that half-plane meets the target
    only on the facing line. Only the arrivals turned further are tested (test:
    test_search_geometry)."""
    if rows is None:
        rows = np.arange(len(table))
    out = np.ones(len(rows), dtype=bool)
    if len(rows) == 0:
        return out
    at = np.flatnonzero(np.abs(table.alpha[rows]) > 90)
    if len(at):
        pre = table.pre[rows[at]]
        rects = g.contact.rect_corners(pre[:, 0], pre[:, 1], pre[:, 2], form.width, form.depth)
        out[at] = g.contact.rect_penetrations(rects, target.convex,
                                              np.zeros(len(at), dtype=int)) <= EPS
    return out


#: Candidates passed to the vectorised first pass at a time, shortest first: a small first chunk
#: (the shortest paths are usually legal when any is), growing fourfold up to the largest.
PREFILTER_CHUNKS = (64, 256, 1024, 4096)


def _chunks(n: int) -> list[tuple[int, int]]:
    out, lo, i = [], 0, 0
    while lo < n:
        size = PREFILTER_CHUNKS[min(i, len(PREFILTER_CHUNKS) - 1)]
        out.append((lo, min(n, lo + size)))
        lo, i = lo + size, i + 1
    return out


#: Wheel and align positions sampled by the vectorised first pass (fractions of the turn),
#: the middle first: a row is credited to the first sample that is blocked.
WHEEL_SAMPLES = (0.5, 0.25, 0.75, 1.0)


ALIGN_SAMPLES = (0.5, 0.25, 0.75)


def path_prefilter(table: CandidateTable, form: g.Formation, start: g.Pose, target: g.Body,
                   world: World, with_align: bool = True,
                   path_blocked: np.ndarray | None = None,
                   fixed_blocked: np.ndarray | None = None,
                   blocker: np.ndarray | None = None,
                   overlaps_target: np.ndarray | None = None) -> np.ndarray:
    """Vectorised first pass over every candidate path: False where the path is certainly
    blocked. Straight sweeps are tested exactly (separating axes on the swept hull); the wheel
    and the align through positions sampled along them, which lie inside the true swept area,
    so a candidate rejected here is truly illegal. Survivors get the exact sweep test.

    The stages run from the most to the least discriminating, each only on the rows still
    alive, so a blocked table costs little more than its first stage. ``path_blocked``, when
    given, is set True for the rows a stage of the path itself (not the align) rejected: the
    target-turn fallback, which has no align, need not test those again. ``fixed_blocked``,
    when given, is set True for the rows rejected by the table edge or by something other than
    an enemy unit: they stay blocked in any world that only lacks some enemies (SearchMemo).
    ``blocker``, when given, receives for each rejected row what blocked it: TABLE or the
    index of an obstacle of ``world`` (for the first forward move, the first one met).
    The arrival test (:func:`arrival_clear`) runs right after the first forward move, on the
    rows still alive (the cheap closed form rejects most rows first); ``overlaps_target``,
    when given, is set True for the rows it rejects: blocked in every world."""
    n = len(table)
    ok = np.ones(n, dtype=bool)
    if n == 0:
        return ok
    w, d = form.width, form.depth
    f0x, f0y = start.forward
    c0 = g.corners(form, start)
    fl, fr = np.asarray(c0["front_left"]), np.asarray(c0["front_right"])
    e = EPS
    parts = world.parts

    def turned(centre: np.ndarray, pivot: np.ndarray, base_deg: np.ndarray,
               ang: np.ndarray) -> np.ndarray:
        rad = np.radians(ang)
        c, sn = np.cos(rad), np.sin(rad)
        dx, dy = centre[:, 0] - pivot[:, 0], centre[:, 1] - pivot[:, 1]
        cx, cy = pivot[:, 0] + c * dx - sn * dy, pivot[:, 1] + sn * dx + c * dy
        return g.contact.rect_corners(cx, cy, base_deg + ang, w, d)

    def wheel_at(i: np.ndarray, ks: tuple[float, ...]) -> np.ndarray:
        """The rows' charger at each fraction ``ks`` of its wheel, fraction by fraction."""
        i, k = np.tile(i, len(ks)), np.repeat(ks, len(i))
        shift = np.stack([table.d1[i] * f0x, table.d1[i] * f0y], axis=1)
        piv = np.where((table.theta[i] > 0)[:, None], fl, fr) + shift
        c1 = np.stack([start.x + shift[:, 0], start.y + shift[:, 1]], axis=1)
        return turned(c1, piv, np.full(len(i), start.facing), table.theta[i] * k)

    def pre(i: np.ndarray) -> np.ndarray:
        return g.contact.rect_corners(table.pre[i, 0], table.pre[i, 1], table.pre[i, 2], w, d)

    def align_at(i: np.ndarray, ks: tuple[float, ...]) -> np.ndarray:
        """The rows' charger at each fraction ``ks`` of its align, fraction by fraction."""
        i, k = np.tile(i, len(ks)), np.repeat(ks, len(i))
        has = table.family[i] != 0
        pp = np.stack([np.where(has, table.px[i], table.pre[i, 0]),
                       np.where(has, table.py[i], table.pre[i, 1])], axis=1)
        return turned(table.pre[i, :2], pp, table.pre[i, 2], table.alpha[i] * k)

    move = first_move(form, start, world)
    ok = table.d1 <= move.free
    if blocker is not None and not ok.all():
        blocker[~ok] = move.code
    if fixed_blocked is not None:  # the table edge, or something other than an enemy
        fixed_blocked[table.d1 > move.fixed] = True
    if path_blocked is not None:
        path_blocked[~ok] = True
    live = np.flatnonzero(ok)
    over = live[~arrival_clear(table, form, target, live)]
    ok[over] = False
    if overlaps_target is not None:
        overlaps_target[over] = True
    # Each further stage: (make the shapes for rows i, how many shapes per row, is it a
    # straight sweep?, is it the align?). A stage of samples makes every sample of every row
    # at once, sample by sample (one large call). Measured on crowded tables: the straight
    # moves reject nearly every blocked path and the wheel and align samples only the few
    # left, so the second forward move goes next, after its end (the contact position)
    # alone, whose small bounding box meets few obstacle pieces.
    # Only the contact position is a place where the unit stands: the others are part way
    # through a step, which may cross the table edge (World.blocked, ``sweep``).
    stages: list = [(pre, 1, False, False),  # the contact position alone: a small box
                    (lambda i: (wheel_at(i, (1.0,)), pre(i)), 1, True, False),
                    (lambda i: wheel_at(i, WHEEL_SAMPLES), len(WHEEL_SAMPLES), False, False)]
    if with_align:
        stages.append((lambda i: align_at(i, ALIGN_SAMPLES), len(ALIGN_SAMPLES), False, True))
    for k, (make, reps, is_sweep, is_align) in enumerate(stages):
        idx = np.flatnonzero(ok)
        if len(idx) == 0:
            break
        shapes = make(idx)
        pts = np.concatenate(shapes, axis=1) if is_sweep else shapes
        lo, hi = g.contact.least(pts, 1), g.contact.greatest(pts, 1)
        inside = world.on_table(lo, hi) if k == 0 else np.ones(len(lo), dtype=bool)
        row = np.tile(np.arange(len(idx)), reps)  # each shape's row in idx
        # Every (shape, obstacle piece) pair whose boxes meet, tested in one vectorised pass.
        near = boxes_meet(lo, hi, parts.bounds, e) & inside[:, None]
        ii, pp = np.nonzero(near)
        off = np.zeros(len(idx), dtype=bool)  # a shape leaves the table
        off[row[~inside]] = True
        alive = ~off
        if fixed_blocked is not None:
            fixed_blocked[idx[off]] = True  # the table edge
        if blocker is not None:
            blocker[idx[off]] = TABLE
        if len(ii):
            if is_sweep:
                depth = g.contact.sweep_penetrations(shapes[0][ii], shapes[1][ii],
                                                     parts.convex, pp)
            else:
                depth = g.contact.rect_penetrations(shapes[ii], parts.convex, pp)
            hit = depth > parts.limit[pp]
            hit_rows = row[ii[hit]]
            if blocker is not None and hit.any():
                # The first piece met by each row's first blocked shape (pairs run shape by
                # shape, so sample by sample); a row off the table keeps TABLE.
                rows, first = np.unique(hit_rows, return_index=True)
                keep = alive[rows]
                blocker[idx[rows[keep]]] = parts.owner[pp[hit][first[keep]]]
            alive[hit_rows] = False
            if fixed_blocked is not None:
                fixed_blocked[idx[row[ii[hit & (parts.limit[pp] > 0)]]]] = True  # not an enemy
        ok[idx[~alive]] = False
        if path_blocked is not None and not is_align:
            path_blocked[idx[~alive]] = True
    return ok


@dataclass(frozen=True)
class FirstMove:
    """How far the charger may go straight ahead from its start before anything blocks it
    (``free``), before the table edge or something other than an enemy does (``fixed``: a
    row whose first move is longer stays blocked in any world lacking only enemies), and what
    blocks it first (``code``: TABLE or an obstacle's index)."""

    free: float
    fixed: float
    code: int


def first_move(form: g.Formation, start: g.Pose, world: World) -> FirstMove:
    """The first forward move starts from the same place for every candidate, so its test is
    closed form: how far the charger may go before overlapping each obstacle piece beyond
    its limit; a row is blocked when its d1 is longer. Kept on the world
    (the same for every chunk and search from this start)."""
    key = (start.x, start.y, start.facing, form.width, form.depth)
    hit = world.reach_memo.get(key)
    if hit is not None:
        return hit
    parts = world.parts
    a0 = np.asarray(boundary_coords(form, start))
    # The table edge does not stop it: the move may cross it if the unit ends on the table
    # (World.blocked, ``sweep``); where it stands is tested with its end positions.
    reach = g.contact.forward_reach(a0, start.forward, parts.convex, parts.limit)
    free = float(reach.min(initial=math.inf))
    fixed = float(reach[parts.limit > 0].min(initial=math.inf))
    code = int(parts.owner[np.argmin(reach)]) if len(reach) else TABLE
    world.reach_memo[key] = out = FirstMove(free, fixed, code)
    return out
