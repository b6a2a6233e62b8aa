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
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np
import shapely

import geometry as g
from geometry.formation import boundary_coords, box_coords

from .world import CLEAR, TABLE, Blocked, World, boxes_meet

EPS = g.EPS_MM
THETA_GRID_DEG = 1.0
#: Points tried inside each open interval of constant models-in-contact, measured in from its
#: ends (mm): close to an end the path is shortest, the middle is the most robust.
INTERIOR_INSET_MM = 0.5

Family = Literal["flush", "charger_left", "charger_right", "target_corner"]


@dataclass(frozen=True)
class FacingFrame:
    """The charged facing seen from a flush charger: origin ``o`` at its end with the least
    coordinate along the charger's right vector ``r``; ``f`` the charger's final forward."""

    name: g.FacingName
    o: tuple[float, float]
    length: float
    f: tuple[float, float]
    r: tuple[float, float]
    facing_deg: float
    intervals: tuple[tuple[tuple[int, int], float, float], ...]  # presented target models

    def point(self, t: float) -> tuple[float, float]:
        return (self.o[0] + t * self.r[0], self.o[1] + t * self.r[1])

    def t_of(self, p: tuple[float, float]) -> float:
        return (p[0] - self.o[0]) * self.r[0] + (p[1] - self.o[1]) * self.r[1]


def facing_frame(target: g.Body, facing: g.FacingName) -> FacingFrame:
    a, b = target.facings[facing]
    n = g.facing_normal(target.pose, facing)
    fdeg = math.degrees(math.atan2(-n[1], -n[0]))
    fr = g.Pose(0, 0, fdeg)
    r = fr.right
    ta = a[0] * r[0] + a[1] * r[1]
    tb = b[0] * r[0] + b[1] * r[1]
    o = a if ta <= tb else b
    frame = FacingFrame(facing, o, abs(tb - ta), fr.forward, r, fdeg, ())
    ivs = []
    for rank, file in g.presented_models(target.form, facing):
        ts = [frame.t_of(p)
              for p in box_coords(target.pose, *target.form.base_local(rank, file))]
        ivs.append(((rank, file), min(ts), max(ts)))
    return FacingFrame(facing, o, frame.length, fr.forward, r, fdeg, tuple(ivs))


def flush_pose(frame: FacingFrame, form: g.Formation, s: float) -> g.Pose:
    """Charger pose flush with the facing, front-left corner at ``s`` along it."""
    fl = frame.point(s)
    cx = fl[0] + form.width / 2 * frame.r[0] - form.depth / 2 * frame.f[0]
    cy = fl[1] + form.width / 2 * frame.r[1] - form.depth / 2 * frame.f[1]
    return g.Pose(cx, cy, frame.facing_deg)


def _flush_centres(frame: FacingFrame, form: g.Formation, offsets: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Centres of the flush poses at ``offsets``, as flush_pose gives them one at a time."""
    flx, fly = frame.o[0] + offsets * frame.r[0], frame.o[1] + offsets * frame.r[1]
    return (flx + form.width / 2 * frame.r[0] - form.depth / 2 * frame.f[0],
            fly + form.width / 2 * frame.r[1] - form.depth / 2 * frame.f[1])


def _flush_corners(frame: FacingFrame, form: g.Formation, offsets: np.ndarray) -> np.ndarray:
    """Corners (n, 4, 2) of the flush poses at ``offsets``, as boundary_coords gives them."""
    cx, cy = _flush_centres(frame, form, offsets)
    return g.contact.rect_corners(cx, cy, np.full(len(offsets), frame.facing_deg), form.width,
                                  form.depth)


def contact_counts(frame: FacingFrame, form: g.Formation, s: float) -> tuple[int, int]:
    """(charger models, target models) in contact at offset ``s`` (RULES.md 4)."""
    ch, tg = contact_counts_many(frame, form, np.array([s], dtype=float))
    return int(ch[0]), int(tg[0])


def straight_offsets(frame: FacingFrame, form: g.Formation, start: g.Pose) -> list[float]:
    """Offsets reached by moving straight ahead without a wheel: flush if the charger already
    faces the final direction, else arriving at an angle and aligning about a charger front
    corner or a target corner. Each is where the contact pose lies dead ahead of the charger,
    a single point of the offset line that a sampled search would miss."""
    base = g.normalize_deg(frame.facing_deg - start.facing)
    f0 = start.forward
    r = frame.r

    def cross(a: tuple[float, float], b: tuple[float, float]) -> float:
        return a[0] * b[1] - a[1] * b[0]

    out: list[float] = []
    if abs(base) < 1e-9:
        out.append((start.x - frame.o[0]) * r[0] + (start.y - frame.o[1]) * r[1]
                   - form.width / 2)
        return out
    if abs(base) >= 180 - 1e-9:
        return out
    final0 = flush_pose(frame, form, 0.0)
    fc0 = (final0.x, final0.y)

    def rot(v: tuple[float, float]) -> tuple[float, float]:
        return g.rotate_point(v, (0.0, 0.0), -base)

    # Charger corners: the contact point moves with s, the pose relative to it is fixed.
    for corner_t in (0.0, form.width):
        c0 = frame.point(corner_t)
        k = rot((fc0[0] - c0[0], fc0[1] - c0[1]))
        p0 = (c0[0] + k[0] - start.x, c0[1] + k[1] - start.y)
        denom = cross(f0, r)
        if abs(denom) > 1e-12:
            out.append(-cross(f0, p0) / denom)
    # Target corners: the contact point is fixed, the pose turns about it.
    for t in (0.0, frame.length):
        c = frame.point(t)
        k = rot((fc0[0] - c[0], fc0[1] - c[1]))
        p0 = (c[0] + k[0] - start.x, c[1] + k[1] - start.y)
        denom = cross(f0, rot(r))
        if abs(denom) > 1e-12:
            out.append(-cross(f0, p0) / denom)
    return out


def offset_breakpoints(frame: FacingFrame, form: g.Formation) -> list[float]:
    """Every breakpoint of the models-in-contact step function along the facing (where a
    charger base edge meets a presented target base edge or a facing end), ascending: between
    two of them the models in contact do not change."""
    lo, hi = -form.width, frame.length
    edges = [i * form.base_w for i in range(form.files + 1)]
    taus = {v for _, a, b in frame.intervals for v in (a, b)} | {0.0, frame.length}
    pts = {lo, hi}
    for tau in taus:
        for e in edges:
            s = tau - e
            if lo - 1e-9 <= s <= hi + 1e-9:
                pts.add(min(max(s, lo), hi))
    ordered = sorted(pts)
    uniq: list[float] = []
    for s in ordered:
        if not uniq or s - uniq[-1] > 1e-7:
            uniq.append(s)
    return uniq


def offset_interval(breaks: list[float], s: float) -> tuple[float, float]:
    """The end offsets sharing ``s``'s models in contact with no breakpoint between: ``s``
    alone at a breakpoint (a knife-edge corner contact), else the open interval between the
    two breakpoints round it, entered by ``OPEN_INSET_MM`` (its ends belong to other
    groups)."""
    from .shortest import OPEN_INSET_MM

    i = int(np.searchsorted(breaks, s))
    if i < len(breaks) and abs(breaks[i] - s) <= 1e-7:
        return s, s
    if i > 0 and abs(breaks[i - 1] - s) <= 1e-7:
        return s, s
    a = breaks[i - 1] if i > 0 else s
    b = breaks[i] if i < len(breaks) else s
    inset = min(OPEN_INSET_MM, (b - a) / 4)
    return min(a + inset, s), max(b - inset, s)


def offset_candidates(frame: FacingFrame, form: g.Formation,
                      extra: tuple[float, ...] = ()) -> list[float]:
    """Every breakpoint of the models-in-contact step function, plus points inside each open
    interval between breakpoints (and any ``extra`` offsets in range)."""
    lo, hi = -form.width, frame.length
    uniq = offset_breakpoints(frame, form)
    out = list(uniq)
    for a, b in zip(uniq, uniq[1:], strict=False):
        gap = b - a
        inset = min(INTERIOR_INSET_MM, gap / 4)
        out.extend([a + inset, (a + b) / 2, b - inset])
    out.extend(x for x in extra if lo <= x <= hi)
    return sorted(set(out))


@dataclass
class Candidate:
    """One way to end at offset ``s``: the charger's steps and where the align pivots."""

    s: float
    family: Family
    d1: float
    wheel_deg: float
    pivot: g.moves.Pivot | None
    d2: float
    align_point: tuple[float, float] | None
    align_deg: float
    pre_align: g.Pose
    final: g.Pose
    length: float
    start_gap: float  # distance of the final centre from the start centre

    def steps(self) -> list[g.Step]:
        out: list[g.Step] = []
        if self.d1 > 1e-6:
            out.append(g.Forward(self.d1))
        if self.pivot is not None and abs(self.wheel_deg) > 1e-9:
            out.append(g.Wheel(self.pivot, self.wheel_deg))
        if self.d2 > 1e-6:
            out.append(g.Forward(self.d2))
        return out

    def key(self) -> tuple[float, float, float]:
        return (round(self.length, 6), round(abs(self.wheel_deg), 6), round(self.start_gap, 6))


def _solve_forward_wheel_forward(form: g.Formation, start: g.Pose, end: g.Pose
                                 ) -> tuple[float, float, float, g.moves.Pivot | None] | None:
    """(d1, wheel, d2, pivot) taking ``start`` to ``end`` by forward, one forward wheel,
    forward; None when no such path exists (a negative distance or a wheel over 90)."""
    theta = g.normalize_deg(end.facing - start.facing)
    if abs(theta) > 90 + 1e-9:
        return None
    f0 = start.forward
    if abs(theta) < 1e-9:
        dx, dy = end.x - start.x, end.y - start.y
        lateral = dx * f0[1] - dy * f0[0]
        d = dx * f0[0] + dy * f0[1]
        if abs(lateral) > 1e-6 or d < -1e-6:
            return None
        return (max(d, 0.0), 0.0, 0.0, None)
    pivot: g.moves.Pivot = "left" if theta > 0 else "right"
    wheeled = g.wheel(form, start, pivot, theta)
    ft = wheeled.forward
    rx, ry = end.x - wheeled.x, end.y - wheeled.y
    det = f0[0] * ft[1] - f0[1] * ft[0]
    d1 = (rx * ft[1] - ry * ft[0]) / det
    d2 = (f0[0] * ry - f0[1] * rx) / det
    if d1 < -1e-6 or d2 < -1e-6:
        return None
    return (max(d1, 0.0), theta, max(d2, 0.0), pivot)


FAMILIES: tuple[Family, ...] = ("flush", "charger_left", "charger_right", "target_corner")


@dataclass
class CandidateTable:
    """Candidates as columns (numpy), so thousands are built and ranked at once; a row becomes
    a :class:`Candidate` only when it is checked."""

    s: np.ndarray
    family: np.ndarray  # index into FAMILIES
    px: np.ndarray  # align pivot (nan for flush)
    py: np.ndarray
    alpha: np.ndarray
    theta: np.ndarray
    d1: np.ndarray
    d2: np.ndarray
    pre: np.ndarray  # (n, 3) x, y, facing
    final: np.ndarray  # (n, 3)
    length: np.ndarray
    gap: np.ndarray

    def __len__(self) -> int:
        return len(self.s)

    def rank_keys(self, rows: np.ndarray | slice = slice(None)) -> tuple[np.ndarray, ...]:
        """np.lexsort keys of ``rows`` (least significant first): path length, then smaller
        wheel, then end nearer the start (RULES.md 4, tie-breaks)."""
        return (np.round(self.gap[rows], 6), np.round(np.abs(self.theta[rows]), 6),
                np.round(self.length[rows], 6))

    def order(self) -> np.ndarray:
        """Row order by :meth:`rank_keys` (stable: ties keep the table's order)."""
        return np.lexsort(self.rank_keys())

    def row(self, i: int) -> Candidate:
        fam = FAMILIES[int(self.family[i])]
        theta = float(self.theta[i])
        pivot: g.moves.Pivot | None = None
        if abs(theta) > 1e-12:
            pivot = "left" if theta > 0 else "right"
        point = None if fam == "flush" else (float(self.px[i]), float(self.py[i]))
        pre = g.Pose(*map(float, self.pre[i]))
        fin = g.Pose(*map(float, self.final[i]))
        return Candidate(float(self.s[i]), fam, float(self.d1[i]), theta, pivot,
                         float(self.d2[i]), point, float(self.alpha[i]), pre, fin,
                         float(self.length[i]), float(self.gap[i]))

    def subset(self, mask: np.ndarray | slice) -> CandidateTable:
        return CandidateTable(*(getattr(self, f)[mask] for f in _COLUMNS))

    @classmethod
    def concat(cls, tables: list[CandidateTable]) -> CandidateTable:
        if not tables:
            e = np.zeros(0)
            return cls(e, e.astype(int), e, e, e, e, e, e, np.zeros((0, 3)), np.zeros((0, 3)),
                       e, e)
        if len(tables) == 1:
            return tables[0]
        return cls(*(np.concatenate([getattr(t, f) for t in tables]) for f in _COLUMNS))


_COLUMNS = ("s", "family", "px", "py", "alpha", "theta", "d1", "d2", "pre", "final", "length",
            "gap")


def _wrap(a: np.ndarray) -> np.ndarray:
    return (a + 180.0) % 360.0 - 180.0


def _angle_terms(start: g.Pose, al: np.ndarray, th: np.ndarray) -> tuple[np.ndarray, ...]:
    """The sines and cosines :func:`_path_distances` needs for aligns ``al`` and wheels ``th``:
    they depend on the angles alone, so a table computes them once per angle and gathers."""
    ar = np.radians(-al)
    thr = np.radians(th)
    a = np.radians(start.facing) + thr
    return np.cos(ar), np.sin(ar), np.cos(thr), np.sin(thr), np.cos(a), np.sin(a)


def _path_distances(fl0: tuple[float, float], fr0: tuple[float, float], start: g.Pose,
                    px: np.ndarray, py: np.ndarray, fx: np.ndarray, fy: np.ndarray,
                    al: np.ndarray, th: np.ndarray,
                    terms: tuple[np.ndarray, ...] | None = None) -> tuple[np.ndarray, ...]:
    """d1, d2, the determinant, the vector from the wheel's end to the contact position, and
    the contact (pre-align) centre, of the paths from ``start`` (front corners ``fl0``,
    ``fr0``) ending at final centre (fx, fy) after an align of ``al`` about (px, py), with a
    wheel of ``th`` about the front corner on the side it turns to (module doc, step 2).
    ``terms``: :func:`_angle_terms` of ``al`` and ``th``, when the caller has them."""
    f0x, f0y = start.forward
    cs, sn, ct, st, ftx, fty = _angle_terms(start, al, th) if terms is None else terms
    dx, dy = fx - px, fy - py
    qx, qy = px + cs * dx - sn * dy, py + sn * dx + cs * dy
    cx = np.where(th > 0, fl0[0], fr0[0])
    cy = np.where(th > 0, fl0[1], fr0[1])
    ddx, ddy = start.x - cx, start.y - cy
    vx = qx - (cx + ct * ddx - st * ddy)
    vy = qy - (cy + st * ddx + ct * ddy)
    det = f0x * fty - f0y * ftx
    with np.errstate(divide="ignore", invalid="ignore"):
        return (vx * fty - vy * ftx) / det, (f0x * vy - f0y * vx) / det, det, vx, vy, qx, qy


def _forward_solution(start: g.Pose, d1: np.ndarray, d2: np.ndarray, det: np.ndarray,
                      rx: np.ndarray, ry: np.ndarray) -> tuple[np.ndarray, ...]:
    """d1, d2 and whether the path exists, from :func:`_path_distances`: with no wheel (a
    null determinant) a single straight move, possible only if the contact pose (``rx``,
    ``ry`` from the wheel's end) lies dead ahead; otherwise both distances must be >= 0."""
    f0x, f0y = start.forward
    straight = np.abs(det) <= 1e-12
    d1 = np.where(straight, rx * f0x + ry * f0y, d1)
    d2 = np.where(straight, 0.0, d2)
    ok = np.where(straight, np.abs(rx * f0y - ry * f0x) <= 1e-6, True) & (d1 >= -1e-6) & \
        (d2 >= -1e-6)
    return d1, d2, ok


_SLOT_FAMILY = np.array([0, 1, 2, 3, 3])  # family of each slot (see candidate_table)


def candidate_table(form: g.Formation, start: g.Pose, frame: FacingFrame,
                    offsets: float | list[float], theta_step: float = THETA_GRID_DEG,
                    thetas: np.ndarray | None = None,
                    only: tuple[int, tuple[float, float]] | None = None,
                    select_rows: bool = True) -> CandidateTable:
    """Every path family ending flush at each offset, solved in closed form for a grid of
    wheel angles (module doc, step 2), all offsets at once. ``select_rows=False`` solves every
    (offset, angle) pair instead of only those whose forward distances can be >= 0 (the same
    table, slower: for tests)."""
    offs = [offsets] if isinstance(offsets, float | int) else list(offsets)
    corners0 = g.corners(form, start)
    fl0, fr0 = corners0["front_left"], corners0["front_right"]
    base = g.normalize_deg(frame.facing_deg - start.facing)
    if thetas is None:
        thetas = np.arange(-90.0, 90.0 + 1e-9, theta_step)
    alphas = _wrap(base - thetas)
    keep = (np.abs(alphas) > 1e-6) & (np.abs(alphas) < 180 - 1e-6)
    extra: list[CandidateTable] = []
    s_arr = np.asarray(offs, dtype=float)
    n_off = len(s_arr)
    ox, oy = frame.o
    rx, ry = frame.r
    fxs, fys = _flush_centres(frame, form, s_arr)  # final (flush) centre of every offset
    # Rows are chosen slot by slot in a mask (offset, slot, angle) whose C order is the order
    # of a loop over offsets, then family slot (flush, charger left, charger right, facing
    # low end, facing high end), then wheel angle: the order of the ties the ranking keeps
    # (CandidateTable.order is stable). Their columns are then gathered once, in that order.
    # Angle index len(thetas) stands for the flush arrival's (wheel ``base``, no align).
    chosen = np.zeros((n_off, 5, len(thetas) + 1), dtype=bool)  # the rows, as a mask
    slot_px = np.full((5, n_off), math.nan)  # each slot's align pivot per offset
    slot_py = np.full((5, n_off), math.nan)

    def add_rows(slot: int, rows: np.ndarray, px: np.ndarray, py: np.ndarray,
                 sel: np.ndarray) -> None:
        """The (offset, angle) pairs where ``rows`` (n_off, len(th)) holds become rows."""
        chosen[:, slot, sel] = rows
        slot_px[slot], slot_py[slot] = px, py

    eps = EPS
    nan = np.full(n_off, math.nan)
    if only is None and abs(base) <= 90 + 1e-9:
        if abs(base) < 1e-9:
            for s in offs:
                final = flush_pose(frame, form, s)
                sol = _solve_forward_wheel_forward(form, start, final)
                if sol is not None:
                    d1, _, d2, _ = sol
                    fin = np.array([[final.x, final.y, final.facing]])
                    extra.append(CandidateTable(
                        np.array([s]), np.array([0]), np.array([np.nan]), np.array([np.nan]),
                        np.zeros(1), np.zeros(1), np.array([d1]), np.array([d2]), fin, fin,
                        np.array([d1 + d2]),
                        np.array([math.hypot(final.x - start.x, final.y - start.y)])))
        else:
            add_rows(0, np.ones((n_off, 1), dtype=bool), nan, nan, np.full(1, len(thetas)))
    # Angled arrivals. The part of the charger's front beside the pivot must come down onto
    # the facing, not swing into the target: about its left corner (or the facing's low end)
    # the align turns counter-clockwise (alpha > 0), about its right corner (or the facing's
    # high end) clockwise. A charger corner must land on the facing itself.
    L, w = frame.length, form.width
    pivots = [
        (1, 1, (-eps <= s_arr) & (s_arr <= L + eps), s_arr, 1),
        (2, 2, (-eps <= s_arr + w) & (s_arr + w <= L + eps), s_arr + w, -1),
        (3, 3, (s_arr - eps <= 0.0) & (0.0 <= s_arr + w + eps), np.zeros(n_off), 1),
        (4, 3, (s_arr - eps <= L) & (L <= s_arr + w + eps), np.full(n_off, L), -1),
    ]
    fdx, fdy = form.width / 2 * rx - form.depth / 2 * frame.f[0], \
        form.width / 2 * ry - form.depth / 2 * frame.f[1]

    by_sign = {sign: np.flatnonzero(keep & ((alphas * sign) > 0)) for sign in (1, -1)}
    probing: list[tuple] = []  # the slots whose rows the probes select
    for slot, fam, valid, t, sign in pivots:
        if only is not None and fam != only[0]:
            continue
        px, py = ox + t * rx, oy + t * ry
        if only is not None:
            valid = valid & (np.hypot(px - only[1][0], py - only[1][1]) < 1e-6)
        sel = by_sign[sign]
        al, th = alphas[sel], thetas[sel]
        if not valid.any() or len(th) == 0:
            continue
        if only is not None:  # one offset and pivot: nothing worth selecting
            add_rows(slot, np.broadcast_to(valid[:, None], (n_off, len(th))), px, py, sel)
            continue
        probing.append((slot, valid, px, py, sel, al, th))
    # For one wheel angle both forward distances are affine in the offset (the pivot and the
    # end pose move along the facing line), so two probes (offsets 0 and 1) give every
    # offset's signs: only the (offset, angle) pairs that can have both distances >= 0 become
    # rows, with a margin far above rounding; the exact test below decides. Every slot's
    # probes are solved in one call.
    if probing:
        ins: list[list[np.ndarray]] = [[] for _ in range(6)]
        for slot, _, _, _, _, al, th in probing:
            nt = len(th)
            tps = [{1: s0, 2: s0 + w, 3: 0.0, 4: L}[slot] for s0 in (0.0, 1.0)]
            for k, col in enumerate((
                    np.repeat([ox + tp * rx for tp in tps], nt),
                    np.repeat([oy + tp * ry for tp in tps], nt),
                    np.repeat([ox + fdx, ox + rx + fdx], nt),
                    np.repeat([oy + fdy, oy + ry + fdy], nt), np.tile(al, 2), np.tile(th, 2))):
                ins[k].append(col)
        p1, p2, pdet, *_ = _path_distances(fl0, fr0, start,
                                             *(np.concatenate(col) for col in ins))
        at = 0
        sv = s_arr[:, None]
        for slot, valid, px, py, sel, _, th in probing:
            nt = len(th)
            a1, a2, det = p1[at:at + nt], p2[at:at + nt], pdet[at:at + nt]
            e1, e2 = p1[at + nt:at + 2 * nt], p2[at + nt:at + 2 * nt]
            at += 2 * nt
            with np.errstate(invalid="ignore"):
                possible = valid[:, None] & (a1 + (e1 - a1) * sv >= -1e-3) & \
                    (a2 + (e2 - a2) * sv >= -1e-3)
            straight = ~(np.abs(det) > 1e-9)  # also nan: leave those to the exact test
            possible[:, straight | (not select_rows)] = valid[:, None]
            add_rows(slot, possible, px, py, sel)
    tables = extra
    # In the order above: offset, then slot, then angle (one flat pass is the cheapest).
    oi, rest = np.divmod(np.flatnonzero(chosen), chosen.shape[1] * chosen.shape[2])
    slot, ti = np.divmod(rest, chosen.shape[2])
    if len(oi):
        all_al = np.append(alphas, 0.0)
        all_th = np.append(thetas, base)
        c = {"s": s_arr[oi], "fam": _SLOT_FAMILY[slot], "px": slot_px[slot, oi],
             "py": slot_py[slot, oi], "al": all_al[ti], "th": all_th[ti], "fx": fxs[oi],
             "fy": fys[oi]}
        flush = c["fam"] == 0
        # The pre-align pose turns the final one back by alpha about the contact point (the
        # flush family has alpha = 0 and no pivot).
        th = c["th"]
        terms = tuple(t[ti] for t in _angle_terms(start, all_al, all_th))
        d1, d2, det, rx, ry, prex, prey = _path_distances(
            fl0, fr0, start, np.where(flush, c["fx"], c["px"]),
            np.where(flush, c["fy"], c["py"]), c["fx"], c["fy"], c["al"], th, terms)
        # No wheel: a single straight move, possible only if the contact pose lies dead ahead.
        d1, d2, ok = _forward_solution(start, d1, d2, det, rx, ry)
        if ok.any():
            d1, d2 = np.maximum(d1[ok], 0.0), np.maximum(d2[ok], 0.0)
            th = th[ok]
            n = len(th)
            pre = np.stack([prex[ok], prey[ok], _wrap(start.facing + th)], axis=1)
            fin = np.stack([c["fx"][ok], c["fy"][ok], np.full(n, frame.facing_deg)], axis=1)
            length = d1 + d2 + form.width * np.radians(np.abs(th))
            gap = np.hypot(fin[:, 0] - start.x, fin[:, 1] - start.y)
            tables.append(CandidateTable(c["s"][ok], c["fam"][ok].astype(int), c["px"][ok],
                                         c["py"][ok], c["al"][ok], th, d1, d2, pre, fin,
                                         length, gap))
    return CandidateTable.concat(tables)


def candidates_at(form: g.Formation, start: g.Pose, target: g.Body, frame: FacingFrame,
                  s: float, theta_step: float = THETA_GRID_DEG) -> list[Candidate]:
    """Every path family ending flush at offset ``s``, as candidates."""
    table = candidate_table(form, start, frame, s, theta_step)
    return [table.row(int(i)) for i in table.order()]


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


def _table_reach(rect: np.ndarray, direction: tuple[float, float],
                 bounds: tuple[float, float, float, float]) -> float:
    """How far ``rect`` (4, 2) may move along ``direction`` with every corner inside the box
    ``bounds`` (-inf when it starts outside)."""
    x0, y0, x1, y1 = bounds
    if rect[:, 0].min() < x0 or rect[:, 0].max() > x1 or rect[:, 1].min() < y0 or \
            rect[:, 1].max() > y1:
        return -math.inf
    out = math.inf
    for k, (lo, hi) in enumerate(((x0, x1), (y0, y1))):
        v = direction[k]
        if v > 0:
            out = min(out, float(((hi - rect[:, k]) / v).min()))
        elif v < 0:
            out = min(out, float(((lo - rect[:, k]) / v).min()))
    return out


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
    stages: list = [(pre, 1, False, False),  # the contact position alone: a small box
                    (lambda i: (wheel_at(i, (1.0,)), pre(i)), 1, True, False),
                    (lambda i: wheel_at(i, WHEEL_SAMPLES), len(WHEEL_SAMPLES), False, False)]
    if with_align:
        stages.append((lambda i: align_at(i, ALIGN_SAMPLES), len(ALIGN_SAMPLES), False, True))
    for make, reps, is_sweep, is_align in stages:
        idx = np.flatnonzero(ok)
        if len(idx) == 0:
            break
        shapes = make(idx)
        pts = np.concatenate(shapes, axis=1) if is_sweep else shapes
        lo, hi = g.contact.least(pts, 1), g.contact.greatest(pts, 1)
        inside = world.on_table(lo, hi)
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
    closed form: how far the charger may go before leaving the table or overlapping each
    obstacle piece beyond its limit; a row is blocked when its d1 is longer. Kept on the world
    (the same for every chunk and search from this start)."""
    key = (start.x, start.y, start.facing, form.width, form.depth)
    hit = world.reach_memo.get(key)
    if hit is not None:
        return hit
    parts = world.parts
    a0 = np.asarray(boundary_coords(form, start))
    e = EPS
    x0, y0, x1, y1 = world.table_bounds
    reach = g.contact.forward_reach(a0, start.forward, parts.convex, parts.limit)
    table_reach = _table_reach(a0, start.forward, (x0 - e, y0 - e, x1 + e, y1 + e))
    free = min(table_reach, float(reach.min(initial=math.inf)))
    fixed = min(table_reach, float(reach[parts.limit > 0].min(initial=math.inf)))
    code = TABLE if table_reach <= free else int(parts.owner[np.argmin(reach)])
    world.reach_memo[key] = out = FirstMove(free, fixed, code)
    return out


#: Families whose align can never overlap the target (|align| <= 90): the pivot is a charger
#: front corner on the facing, and the charger turns down onto the facing from outside it, so
#: every point of the swept area stays on the outer side of the facing line (with u along the
#: front from the pivot and v back from it, the depth into the target is -u sin(phi) -
#: v cos(phi) <= 0 for every angle phi passed, given the align's sign). Their align needs only
#: the rest of the world, and a bounding box clear of it spares the exact sweep (test:
#: test_search_geometry).
ALIGN_OUTSIDE_TARGET = ("charger_left", "charger_right")


@dataclass
class Attempt:
    """The outcome of checking one candidate."""

    ok: bool
    blocked: Blocked | None = None
    stage: str = ""


def check_candidate(form: g.Formation, start: g.Pose, cand: Candidate, target: g.Body,
                    world: World, target_turns: bool = False,
                    target_world: World | None = None) -> Attempt:
    """Sweep the candidate's path and the align; cheap tests first."""
    pre_coords = boundary_coords(form, cand.pre_align)
    tgt_coords = boundary_coords(target.form, target.pose)
    # First contact must be a touch, not an overlap, and must actually touch.
    if g.contact.rect_overlap_depth(pre_coords, tgt_coords) > EPS:
        return Attempt(False, None, "overlaps the target on arrival")
    pre_poly = g.polygon_of(pre_coords)
    if not shapely.dwithin(pre_poly, target.polygon, EPS):
        return Attempt(False, None, "does not reach the target")
    # Boxes first: an area whose bounding box clears every obstacle needs no exact test. The
    # final and contact positions lie outside the target by construction (flush with, or
    # just touching, its facing; the arrival overlap was tested above), so for them the
    # target may be left out of the box test.
    final_poly = g.boundary(form, cand.final) if not target_turns else pre_poly
    if not world.box_clear(final_poly.bounds, ignore_target=True):
        blk = world.blocked(final_poly)
        if blk:
            return Attempt(False, blk, "final position")
    if not world.box_clear(pre_poly.bounds, ignore_target=True):
        blk = world.blocked(pre_poly)
        if blk:
            return Attempt(False, blk, "contact position")
    pose = start
    for step in cand.steps():
        if not world.box_clear(step.bounds(form, pose)):
            blk = world.blocked(step.swept(form, pose))
            if blk:
                return Attempt(False, blk, step.kind)
        pose = step.apply(form, pose)
    if cand.align_point is not None and abs(cand.align_deg) > 1e-9:
        if target_turns:
            assert target_world is not None
            sweep = g.rotation_sweep(tgt_coords, cand.align_point, -cand.align_deg)
            blk = target_world.blocked(sweep)
            if blk:
                return Attempt(False, blk, "target turn")
            moved = [g.rotate_point(p, cand.align_point, -cand.align_deg) for p in tgt_coords]
            if g.contact.rect_overlap_depth(pre_coords, moved) > EPS:
                return Attempt(False, None, "target turn overlaps the charger")
        elif not (cand.family in ALIGN_OUTSIDE_TARGET and abs(cand.align_deg) <= 90 and
                  world.box_clear(g.rotation_bounds(pre_coords, cand.align_point,
                                                    cand.align_deg), ignore_target=True)):
            sweep = g.rotation_sweep(pre_coords, cand.align_point, cand.align_deg)
            blk = world.blocked(sweep)
            if blk:
                return Attempt(False, blk, "align")
    return Attempt(True)


@dataclass
class Group:
    charger_models: int
    target_models: int
    offsets: list[float]

    @property
    def models(self) -> int:
        return self.charger_models + self.target_models


@dataclass
class Rejected:
    """A better group of end positions that no legal path reaches, and why."""

    charger_models: int
    target_models: int
    reason: str

    @property
    def models(self) -> int:
        return self.charger_models + self.target_models


@dataclass
class ChargeMove:
    """A chosen charge move (RULES.md 4)."""

    charger: str
    target: str
    facing: g.FacingName
    start: g.Pose
    steps: list[g.Step]
    final: g.Pose
    align_point: tuple[float, float] | None
    align_deg: float
    target_turn_deg: float
    target_final: g.Pose | None
    charger_models: int
    target_models: int
    charger_slots: frozenset[tuple[int, int]]
    target_slots: frozenset[tuple[int, int]]
    length_mm: float
    wheel_deg: float
    s: float
    family: Family
    rejected: list[Rejected] = field(default_factory=list)
    target_pivot: tuple[float, float] | None = None  # where the target turned, if it did
    #: Which models it puts in contact, as numbered in its search's plan (SearchPlan).
    contact_id: int = -1
    #: The path as the search built it, for a later refinement (polish_move).
    candidate: Candidate | None = None

    @property
    def models(self) -> int:
        return self.charger_models + self.target_models

    def key(self) -> tuple:
        """Priority tuple for ranking moves of one charger (smaller is better)."""
        return (round(abs(self.target_turn_deg), 6), -self.models, round(self.length_mm, 6),
                round(abs(self.wheel_deg), 6),
                round(math.hypot(self.final.x - self.start.x, self.final.y - self.start.y), 6))


def contact_matrix(frame: FacingFrame, form: g.Formation, offsets: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Charger models in contact at each offset, and which presented target models are
    (n, models), RULES.md 4: a charger file and a presented target model touch when their
    intervals along the facing overlap or meet (corner contact counts)."""
    s = np.asarray(offsets, dtype=float)
    if not frame.intervals:
        return np.zeros(len(s), dtype=int), np.zeros((len(s), 0), dtype=bool)
    a = np.asarray([iv[1] for iv in frame.intervals])
    b = np.asarray([iv[2] for iv in frame.intervals])
    lo = s[:, None] + np.arange(form.files)[None, :] * form.base_w  # (n, files)
    hi = lo + form.base_w
    meet = (lo[..., None] <= b + EPS) & (a <= hi[..., None] + EPS)  # (n, files, models)
    ch = meet.any(axis=2).sum(axis=1)
    tg = (s[:, None] <= b + EPS) & (a <= s[:, None] + form.width + EPS)
    return ch, tg


def contact_counts_many(frame: FacingFrame, form: g.Formation, offsets: np.ndarray,
                        exclude: frozenset[tuple[int, int]] = frozenset()
                        ) -> tuple[np.ndarray, np.ndarray]:
    """(charger models, target models) in contact at each offset (:func:`contact_matrix`);
    target models in ``exclude`` (already in contact with another charger of a multiple
    charge: "a model counts once however many enemies it touches", RULES.md 4) are not
    counted."""
    ch, tg = contact_matrix(frame, form, offsets)
    if exclude:
        keep = np.asarray([iv[0] not in exclude for iv in frame.intervals], dtype=bool)
        tg = tg[:, keep]
    return ch, tg.sum(axis=1)


def _default_group_key(charger_models: int, target_models: int) -> tuple[int, int]:
    return (-(charger_models + target_models), -target_models)


@dataclass(frozen=True)
class MoveRules:
    """What a ruleset changes in the search (RULES-editions.md 6): the ranking of end positions
    by models (``group_key``: the ruleset's priority key for contact, best first) and, for a
    search of a charger's front edge alone (tow's swept shape), the whole formation whose end
    footprint must be clear (``end_form``)."""

    group_key: Callable[[int, int], tuple] = _default_group_key
    end_form: g.Formation | None = None


T9A_MOVES = MoveRules()


def group_offsets(frame: FacingFrame, form: g.Formation, start: g.Pose,
                  exclude: frozenset[tuple[int, int]] = frozenset(),
                  rules: MoveRules = T9A_MOVES) -> list[Group]:
    """The end offsets grouped by the models they put in contact (those in ``exclude`` not
    counted: see contact_counts_many), best group first by the ruleset's key."""
    groups: dict[tuple[int, int], list[float]] = {}
    offs = offset_candidates(frame, form, tuple(straight_offsets(frame, form, start)))
    chs, tgs = contact_counts_many(frame, form, np.asarray(offs), exclude)
    for s, cm, tm in zip(offs, chs.tolist(), tgs.tolist(), strict=True):
        if cm == 0:
            continue  # no contact at all
        groups.setdefault((cm, tm), []).append(s)
    out = [Group(cm, tm, offs) for (cm, tm), offs in groups.items()]
    out.sort(key=lambda gr: rules.group_key(gr.charger_models, gr.target_models))
    return out


def _describe_block(counter: Counter) -> str:
    if not counter:
        return "no path with at most one wheel of 90 degrees ends there"
    (what, _), = counter.most_common(1)
    return what


def _finish(charger: g.Unit, target: g.Unit, frame: FacingFrame, cand: Candidate,
            target_turns: bool, rejected: list[Rejected], count: bool = True,
            contact_id: int = -1) -> ChargeMove:
    steps = cand.steps()
    tf: g.Pose | None = None
    align_point = cand.align_point if abs(cand.align_deg) > 1e-9 else None
    target_pivot = None
    if target_turns:
        target_pivot, align_point = align_point, None
        final = cand.pre_align
        tf = target.pose.rotated(cand.align_point, -cand.align_deg)  # type: ignore[arg-type]
        turn = -cand.align_deg
    else:
        final = cand.final
        turn = 0.0
        if align_point is not None:
            steps.append(g.Align(align_point, cand.align_deg))
    cbody = g.Body(charger.formation, final)
    tbody = g.Body(target.formation, tf or target.pose)
    mc = g.models_in_contact(cbody, tbody) if count else \
        g.contact.ModelContacts(frozenset(), frozenset())
    return ChargeMove(charger.id, target.id, frame.name, charger.pose, steps, final, align_point,
                      0.0 if target_turns else cand.align_deg, turn, tf, len(mc.a_models),
                      len(mc.b_models), mc.a_models, mc.b_models, cand.length, cand.wheel_deg,
                      cand.s, cand.family, rejected, target_pivot, contact_id, cand)


#: What the target may not hit when it turns (priority 2 fallback): a world, or a function
#: that builds it (most searches never need it), or None when the target may not turn.
TargetWorld = World | Callable[[], World] | None


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
                   (*big.rank_keys(), row_gid), offs, form)

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


def polish_move(charger: g.Unit, target: g.Unit, move: ChargeMove, world: World) -> ChargeMove:
    """``move`` (found without refinement) made the shortest legal path of its kind in
    ``world`` (RULES.md 4, tie-breaks measured): multiple charges choose their moves on the
    grid, then refine the chosen ones with every other charger in its final place."""
    from .shortest import shortest_in, slot_of

    c = move.candidate
    if c is None or move.target_final is not None:
        return move
    form, start = charger.formation, charger.pose
    frame = facing_frame(target.body, move.facing)
    lo, hi = offset_interval(offset_breakpoints(frame, form), c.s)
    low = shortest_in(form, start, frame, slot_of(c.family, c.align_point, frame), lo, hi)
    best = _polish(form, start, target.body, frame, c, low, world)
    if best is c:
        return move
    return _finish(charger, target, frame, best, False, move.rejected, True, move.contact_id)


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


#: The target's turn is measured to this (degrees): RULES.md 4 asks for the smallest angle
#: that clears "to within 0.01 degrees".
TURN_RESOLUTION_DEG = 0.005


def _least_turn(form: g.Formation, start: g.Pose, frame: FacingFrame, cand: Candidate,
                tbody: g.Body, world: World, target_world: World) -> Candidate:
    """The smallest target turn for ``cand``'s end position and family (RULES.md 4, priority
    2: "as little as possible", measured): the target turns by the charger's arrival angle,
    which a wheel closer to the final facing makes smaller. The grid gave the first legal
    turn in 1-degree steps; bisection between it and one grid step less finds where the turn
    stops clearing."""
    from .shortest import slot_of

    slot = slot_of(cand.family, cand.align_point, frame)
    alpha = cand.align_deg
    step = math.copysign(min(THETA_GRID_DEG, abs(alpha)), alpha)
    good, lo, hi = cand, 0.0, step  # wheel changes: lo legal, hi not known to be
    while abs(hi - lo) > TURN_RESOLUTION_DEG:
        mid = (lo + hi) / 2
        c = candidate_at(form, start, frame, slot, cand.s, cand.wheel_deg + mid)
        if c is not None and abs(c.align_deg) < abs(good.align_deg) and check_candidate(
                form, start, c, tbody, world, target_turns=True, target_world=target_world).ok:
            good, lo = c, mid
        else:
            hi = mid
    return good


def _rotated(corners: np.ndarray, cx: np.ndarray, cy: np.ndarray, angle_deg: np.ndarray
             ) -> np.ndarray:
    """(n, 4, 2): ``corners`` (4, 2) turned counter-clockwise by each angle about each centre
    (as geometry.rotate_point)."""
    a = np.radians(angle_deg)[:, None]
    c, s = np.cos(a), np.sin(a)
    dx = corners[None, :, 0] - cx[:, None]
    dy = corners[None, :, 1] - cy[:, None]
    return np.stack([cx[:, None] + c * dx - s * dy, cy[:, None] + s * dx + c * dy], axis=2)


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
    t = (px - frame.o[0]) * frame.r[0] + (py - frame.o[1]) * frame.r[1]
    slot = np.where(family == 3, np.where(np.abs(t - frame.length) < np.abs(t), 4, 3), family)
    return interval * 5 + slot


def candidate_at(form: g.Formation, start: g.Pose, frame: FacingFrame, slot: int, s: float,
                 theta: float) -> Candidate | None:
    """The path of family ``slot`` (shortest.py numbering) ending flush at offset ``s`` after
    a wheel of ``theta`` (a flush arrival wheels to the final facing whatever ``theta``), or
    None when it does not exist. The same path as the candidate table's row (the pre-align
    pose is the final one turned back by the align about its pivot), built directly."""
    from .shortest import FLUSH, distances, pivot_t

    d1, d2, ok = distances(form, start, frame, slot, np.array([s]), np.array([theta]))
    if not ok[0]:
        return None
    final = flush_pose(frame, form, s)
    base = g.normalize_deg(frame.facing_deg - start.facing)
    if slot == FLUSH:
        th, alpha, point, pre = base, 0.0, None, final
    else:
        th = theta
        alpha = float(_wrap(np.array(base - th)))
        t = float(pivot_t(slot, np.array([s]), form.width, frame.length)[0])
        point = frame.point(t)
        pre = final.rotated(point, -alpha)
    pivot: g.moves.Pivot | None = None
    if abs(th) > 1e-12:
        pivot = "left" if th > 0 else "right"
    length = float(d1[0] + d2[0]) + form.width * math.radians(abs(th))
    gap = math.hypot(final.x - start.x, final.y - start.y)
    return Candidate(s, FAMILIES[int(_SLOT_FAMILY[slot])], float(d1[0]), th, pivot,
                     float(d2[0]), point, alpha, pre, final, length, gap)


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
    best = _polish(form, start, tbody, frame, first, bounds[0], world)
    order = sorted(range(1, len(keys)),
                   key=lambda j: bounds[j].length if bounds[j] is not None else math.inf)
    for j in order:
        low = bounds[j]
        if low is None or low.length >= best.length - POLISH_TOL_MM:
            continue
        c = cands.row(picked[j - 1])
        if not check_candidate(form, start, c, tbody, world).ok:
            continue
        r = _polish(form, start, tbody, frame, c, low, world, beat=best)
        if r.key() < best.key():
            best = r
    return best


def _polish(form: g.Formation, start: g.Pose, tbody: g.Body, frame: FacingFrame,
            cand: Candidate, shortest: object, world: World,
            beat: Candidate | None = None) -> Candidate:
    """The shortest legal path of ``cand``'s kind, from the legal ``cand`` and the shortest
    path of that kind (``shortest``, a shortest.Shortest, legal or not): that one when legal;
    else the last legal point of a bisection between the two in (end offset, wheel) space,
    which stops at whatever blocks the shorter path. With ``beat``, paths not ranked before
    it are not worth checking."""
    from .shortest import towards

    limit = cand if beat is None or cand.key() < beat.key() else beat
    if shortest is None or \
            shortest.length >= limit.length - POLISH_TOL_MM:  # type: ignore[attr-defined]
        return cand
    slot, s1, th1 = shortest.slot, shortest.s, shortest.theta  # type: ignore[attr-defined]
    c = candidate_at(form, start, frame, slot, s1, th1)
    if c is not None and c.key() < limit.key() and \
            check_candidate(form, start, c, tbody, world).ok:
        return c
    good, lo_t, hi_t = cand, 0.0, 1.0
    a, b = (cand.s, cand.wheel_deg), (s1, th1)
    for _ in range(BISECT_STEPS):
        t = (lo_t + hi_t) / 2
        c = candidate_at(form, start, frame, slot, *towards(a, b, t))
        if c is not None and check_candidate(form, start, c, tbody, world).ok:
            lo_t = t
            if c.key() < good.key():
                good = c
        else:
            hi_t = t
    return good
