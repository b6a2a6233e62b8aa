"""Candidate paths in closed form (RULES.md 4; search.py's module doc, step 2): forward, one
wheel, forward, then the align, solved for every wheel angle of a grid and every end offset at
once (CandidateTable), or one at a time (candidate_at)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

import geometry as g

from .facing_frame import EPS, THETA_GRID_DEG, FacingFrame, _flush_centres, flush_pose

Family = Literal["flush", "charger_left", "charger_right", "target_corner"]


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
