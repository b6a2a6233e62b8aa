"""The shortest path to a group of end positions, measured rather than sampled (RULES.md 4:
"a tie-break on path length is resolved to within 0.1 mm"; Choosing the move, tie-breaks).

The grid search finds the first legal path on a 1-degree wheel grid at sampled end offsets.
The true shortest path of the same kind may end elsewhere in the same interval of end offsets
(where the models in contact do not change) and wheel a fraction of a degree differently. This
module finds it without sampling blindly:

- for one wheel angle ``theta`` both forward distances, and so the path length, are *affine*
  in the end offset ``s`` (the align pivot and the end pose slide along the facing line), so
  over an interval of ``s`` the shortest path lies at an end of the interval cut by the two
  half-lines ``d1 >= 0`` and ``d2 >= 0``: closed form;
- what remains is a function of ``theta`` alone, minimised on nested grids: 1 degree over
  the whole range, then 0.01 degree within a degree of the best, which finds the shortest to
  a few hundredths of a millimetre, inside the 0.1 mm the tie-break is resolved to (checked
  against a brute-force scan in tests/charges/test_refine.py).

The result need not be legal (something may stand in the way): the caller checks it, and if
it is blocked, bisects between the legal grid path and it (:func:`towards`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import geometry as g

#: Family slot of a path (as search.candidate_table numbers them): 0 flush (no align), 1 align
#: about the charger's front-left corner, 2 about its front-right corner, 3 about the facing's
#: low end, 4 about its high end.
FLUSH, CHARGER_LEFT, CHARGER_RIGHT, FACING_LOW, FACING_HIGH = range(5)
#: The align's sign per slot: about a left corner (or the low end) it turns counter-clockwise.
_ALIGN_SIGN = {CHARGER_LEFT: 1, CHARGER_RIGHT: -1, FACING_LOW: 1, FACING_HIGH: -1}
#: An open interval of end offsets is entered this far (mm): its ends belong to other groups
#: (a corner contact is made or lost there); twice EPS_MM, so the contact is certainly lost,
#: and a path ending there differs from one ending at the very end by a few hundredths of a
#: millimetre.
OPEN_INSET_MM = 0.02
_GRIDS_DEG = (1.0, 0.01)


@dataclass(frozen=True)
class Shortest:
    """The shortest path of one kind into one interval of end offsets."""

    slot: int
    s: float
    theta: float
    d1: float
    d2: float
    length: float


def slot_of(family: str, align_point: tuple[float, float] | None, frame: object) -> int:
    """The family slot of a candidate (its align pivot tells the facing's two ends apart)."""
    if family == "flush" or align_point is None:
        return FLUSH
    if family == "charger_left":
        return CHARGER_LEFT
    if family == "charger_right":
        return CHARGER_RIGHT
    t = frame.t_of(align_point)  # type: ignore[attr-defined]
    return FACING_LOW if abs(t) < abs(t - frame.length) else FACING_HIGH  # type: ignore[attr-defined]


def slots_of(frame: object, family: np.ndarray, px: np.ndarray, py: np.ndarray
             ) -> np.ndarray:
    """:func:`slot_of` of candidate-table rows (family indexes, align pivots)."""
    t = (px - frame.o[0]) * frame.r[0] + (py - frame.o[1]) * frame.r[1]  # type: ignore[attr-defined]
    far = np.abs(t - frame.length) < np.abs(t)  # type: ignore[attr-defined]
    return np.where(family == 3, np.where(far, FACING_HIGH, FACING_LOW), family)


def pivot_t(slot: np.ndarray | int, s: np.ndarray, width: float, length: float) -> np.ndarray:
    """Where along the facing the align pivots, for end offsets ``s`` (slot by slot)."""
    slot = np.asarray(slot)
    return np.where(slot == FACING_LOW, 0.0, np.where(slot == FACING_HIGH, length,
                                                      s + width * (slot == CHARGER_RIGHT)))


def slot_offsets(slot: int, width: float, length: float) -> tuple[float, float]:
    """The end offsets a slot can reach: a charger corner must land on the facing, a facing's
    end must lie on the charger's front."""
    eps = g.EPS_MM
    return {FLUSH: (-width, length), CHARGER_LEFT: (-eps, length + eps),
            CHARGER_RIGHT: (-width - eps, length - width + eps),
            FACING_LOW: (-width - eps, eps), FACING_HIGH: (length - width - eps,
                                                           length + eps)}[slot]


def distances(form: g.Formation, start: g.Pose, frame: object, slot: int, s: np.ndarray,
              theta: np.ndarray, clip: bool = True
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """d1, d2 and whether the path exists (both >= 0, wheel within 90 degrees, the align on
    its own side) for end offsets ``s`` and wheels ``theta`` (broadcast together), by the same
    closed form as the candidate table (search._path_distances). ``clip=False``: d1 and d2
    as solved, negative where the path does not exist (affine in ``s`` for one wheel)."""
    from .candidates import _forward_solution, _path_distances, _wrap
    from .facing_frame import _flush_centres

    s, theta = np.broadcast_arrays(np.asarray(s, dtype=float), np.asarray(theta, dtype=float))
    shape = s.shape
    s, theta = s.ravel(), theta.ravel()
    base = g.normalize_deg(frame.facing_deg - start.facing)  # type: ignore[attr-defined]
    fx, fy = _flush_centres(frame, form, s)  # type: ignore[arg-type]
    if slot == FLUSH:
        th = np.full_like(s, base)
        al = np.zeros_like(s)
        px, py = fx, fy
    else:
        th = theta
        al = _wrap(base - th)
        t = pivot_t(slot, s, form.width, frame.length)  # type: ignore[attr-defined]
        px = frame.o[0] + t * frame.r[0]  # type: ignore[attr-defined]
        py = frame.o[1] + t * frame.r[1]  # type: ignore[attr-defined]
    c0 = g.corners(form, start)
    d1, d2, det, rx, ry, *_ = _path_distances(c0["front_left"], c0["front_right"], start, px, py,
                                              fx, fy, al, th)
    d1, d2, ok = _forward_solution(start, d1, d2, det, rx, ry)
    ok &= np.abs(th) <= 90 + 1e-9
    if slot != FLUSH:
        ok &= (al * _ALIGN_SIGN[slot] > 1e-6) & (np.abs(al) < 180 - 1e-6)
    if not clip:
        return d1.reshape(shape), d2.reshape(shape), ok.reshape(shape)
    return (np.maximum(d1, 0.0).reshape(shape), np.maximum(d2, 0.0).reshape(shape),
            ok.reshape(shape))


def nearest_reachable(form: g.Formation, start: g.Pose, frame: object, slot: int, s: float,
                      theta: float) -> float | None:
    """The end offset nearest ``s`` that a path of family ``slot`` wheeling ``theta`` reaches
    (both forward moves >= 0, within the slot's offsets), or None. For one wheel the
    distances are affine in the offset (the final centre and the pivot slide along the
    facing), so the reachable offsets are an interval, solved from its two ends."""
    if slot == FLUSH:
        return None
    lo, hi = slot_offsets(slot, form.width, frame.length)  # type: ignore[attr-defined]
    d1, d2, ok = distances(form, start, frame, slot, np.array([lo, hi]),
                           np.array([theta, theta]), clip=False)
    if not ok.any() and (min(d1) < 0 or min(d2) < 0) and \
            (max(d1) < 0 or max(d2) < 0):
        return None
    a, b = lo, hi
    for v0, v1 in ((d1[0], d1[1]), (d2[0], d2[1])):
        if not (math.isfinite(v0) and math.isfinite(v1)):
            return None
        if abs(v1 - v0) <= 1e-12:
            if v0 < 0:
                return None
            continue
        root = lo + (hi - lo) * (0.0 - v0) / (v1 - v0)
        if v1 > v0:
            a = max(a, root)
        else:
            b = min(b, root)
    if a > b:
        return None
    return min(max(s, a), b)


def _length(form: g.Formation, d1: np.ndarray, d2: np.ndarray, theta: np.ndarray
            ) -> np.ndarray:
    return d1 + d2 + form.width * np.radians(np.abs(theta))


def _best_offsets(form: g.Formation, start: g.Pose, frame: object, slot: np.ndarray,
                  lo: np.ndarray, hi: np.ndarray, theta: np.ndarray
                  ) -> tuple[np.ndarray, ...]:
    """For each (slot, [lo, hi], wheel angle) element, the end offset giving the shortest
    existing path, that length (inf where none exists) and its two forward distances: for
    one angle d1 and d2 are affine in ``s`` (two probes give them exactly), so the best offset
    is an end of [lo, hi] cut by d1 >= 0 and d2 >= 0. Angles with no wheel (a single straight
    move, possible at one offset only) are left to the grid search, which solves them
    exactly (search.straight_offsets)."""
    s0 = lo
    s1 = np.where(hi - lo > 1e-6, hi, lo + 1.0)
    n = len(theta)
    d1, d2, exists = _raw(form, start, frame, np.tile(slot, 2), np.concatenate([s0, s1]),
                          np.tile(theta, 2))
    a1, a2, b1, b2 = d1[:n], d2[:n], d1[n:], d2[n:]
    span = s1 - s0
    lo_s, hi_s = lo.copy(), hi.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        k1, k2 = (b1 - a1) / span, (b2 - a2) / span
        for a, k in ((a1, k1), (a2, k2)):
            root = s0 - a / k  # where this distance is 0
            rising, falling = k > 1e-12, k < -1e-12
            lo_s = np.where(rising, np.maximum(lo_s, root), lo_s)
            hi_s = np.where(falling, np.minimum(hi_s, root), hi_s)
            lo_s = np.where(~rising & ~falling & (a < -1e-6), np.inf, lo_s)
    feasible = exists[:n] & (lo_s <= hi_s + 1e-9) & np.isfinite(a1) & np.isfinite(b1)
    best_s = np.full(n, np.nan)
    best_len = np.full(n, np.inf)
    best_d1 = np.full(n, np.nan)
    best_d2 = np.full(n, np.nan)
    wheel = form.width * np.radians(np.abs(theta))
    with np.errstate(invalid="ignore"):
        for sc in (np.clip(lo_s, lo, hi), np.clip(hi_s, lo, hi)):
            e1, e2 = a1 + k1 * (sc - s0), a2 + k2 * (sc - s0)
            ln = np.where(feasible, e1 + e2 + wheel, np.inf)
            better = ln < best_len
            best_s, best_len = np.where(better, sc, best_s), np.where(better, ln, best_len)
            best_d1, best_d2 = np.where(better, e1, best_d1), np.where(better, e2, best_d2)
    return best_s, best_len, np.maximum(best_d1, 0.0), np.maximum(best_d2, 0.0)


def _raw(form: g.Formation, start: g.Pose, frame: object, slot: np.ndarray, s: np.ndarray,
         theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """d1 and d2 before clipping (affine in ``s`` for a fixed angle), and whether the angle
    can make a path at all (a wheel of at most 90 degrees, the align turning the slot's way,
    a real wheel: with none the system is singular). A flush arrival wheels exactly to the
    final facing, whatever ``theta`` says."""
    from .candidates import _angle_terms, _path_distances, _wrap
    from .facing_frame import _flush_centres

    base = g.normalize_deg(frame.facing_deg - start.facing)  # type: ignore[attr-defined]
    fx, fy = _flush_centres(frame, form, s)  # type: ignore[arg-type]
    flush = slot == FLUSH
    th = np.where(flush, base, theta)
    al = np.where(flush, 0.0, _wrap(base - th))
    t = pivot_t(slot, s, form.width, frame.length)  # type: ignore[attr-defined]
    px = np.where(flush, fx, frame.o[0] + t * frame.r[0])  # type: ignore[attr-defined]
    py = np.where(flush, fy, frame.o[1] + t * frame.r[1])  # type: ignore[attr-defined]
    c0 = g.corners(form, start)
    # The sines and cosines depend on the angles alone: the second half of the elements
    # repeats the first half's angles (two probes per angle), so they are computed once.
    half = len(th) // 2
    if len(th) % 2 == 0 and half and np.array_equal(th[:half], th[half:]) and \
            np.array_equal(al[:half], al[half:]):
        terms = tuple(np.tile(t, 2) for t in _angle_terms(start, al[:half], th[:half]))
    else:
        terms = None
    d1, d2, det, *_ = _path_distances(c0["front_left"], c0["front_right"], start, px, py,
                                      fx, fy, al, th, terms)
    # The align's sign: counter-clockwise about a left corner or the low end (slots 1, 3).
    sign = np.where(flush, 0.0, np.where(slot % 2 == 1, 1.0, -1.0))
    exists = (np.abs(det) > 1e-9) & (np.abs(th) <= 90 + 1e-9) & \
        (flush | ((al * sign > 1e-6) & (np.abs(al) < 180 - 1e-6)))
    return d1, d2, exists


def shortest_many(form: g.Formation, start: g.Pose, frame: object,
                  keys: list[tuple[int, float, float]]) -> list[Shortest | None]:
    """:func:`shortest_in` of several (slot, lo, hi) at once: one vectorised pass per grid."""
    width, length = form.width, frame.length  # type: ignore[attr-defined]
    base = g.normalize_deg(frame.facing_deg - start.facing)  # type: ignore[attr-defined]
    k = len(keys)
    slots = np.array([key[0] for key in keys], dtype=int)
    lims = np.array([slot_offsets(int(sl), width, length) for sl in slots]).reshape(-1, 2)
    lo = np.maximum([key[1] for key in keys], lims[:, 0]) if k else np.zeros(0)
    hi = np.minimum([key[2] for key in keys], lims[:, 1]) if k else np.zeros(0)
    possible = lo <= hi + 1e-9
    hi = np.maximum(hi, lo)
    centre = np.zeros(k)
    half = np.full(k, 90.0)
    best_t = np.full(k, np.nan)
    best_s = np.full(k, np.nan)
    best_l = np.full(k, np.inf)
    best_d1 = np.full(k, np.nan)
    best_d2 = np.full(k, np.nan)
    for step in _GRIDS_DEG:
        m = int(round(2 * half.max() / step)) + 1
        offs = np.linspace(-half.max(), half.max(), m)
        theta = (centre[:, None] + offs[None, :]).ravel()
        who = np.repeat(np.arange(k), m)
        theta = np.where(slots[who] == FLUSH, base, theta)
        s, ln, d1, d2 = _best_offsets(form, start, frame, slots[who], lo[who], hi[who], theta)
        ln = np.where(possible[who] & (np.abs(theta) <= 90 + 1e-9), ln, np.inf).reshape(k, m)
        i = np.argmin(ln, axis=1) if m else np.zeros(k, dtype=int)
        row = np.arange(k)
        cand_l = ln[row, i]
        better = cand_l < best_l
        best_l = np.where(better, cand_l, best_l)
        best_t = np.where(better, theta.reshape(k, m)[row, i], best_t)
        best_s = np.where(better, s.reshape(k, m)[row, i], best_s)
        best_d1 = np.where(better, d1.reshape(k, m)[row, i], best_d1)
        best_d2 = np.where(better, d2.reshape(k, m)[row, i], best_d2)
        centre = np.where(np.isfinite(best_t), best_t, 0.0)
        half = np.full(k, step)
    return [Shortest(int(slots[j]), float(best_s[j]), float(best_t[j]), float(best_d1[j]),
                     float(best_d2[j]), float(best_l[j])) if np.isfinite(best_l[j]) else None
            for j in range(k)]


def shortest_in(form: g.Formation, start: g.Pose, frame: object, slot: int, lo: float,
                hi: float) -> Shortest | None:
    """The shortest existing path of ``slot`` ending at an offset in [lo, hi] (module doc),
    legal or not; None when no such path exists."""
    return shortest_many(form, start, frame, [(slot, lo, hi)])[0]


def towards(a: tuple[float, float], b: tuple[float, float], t: float) -> tuple[float, float]:
    """The point a fraction ``t`` of the way from ``a`` to ``b`` in (offset, wheel) space."""
    return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))


def lower_bound(form: g.Formation, start: g.Pose, frame: object, slot: int, lo: float,
                hi: float) -> float:
    """The shortest path's length (inf when none): no legal path of the kind is shorter."""
    found = shortest_in(form, start, frame, slot, lo, hi)
    return math.inf if found is None else found.length
