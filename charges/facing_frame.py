"""The charged facing as the search sees it (RULES.md 4): the frame along the facing, the
flush end positions as one offset, the models in contact as a step function of it, and the
end offsets grouped by contact, ranked by the ruleset's key (MoveRules)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import geometry as g
from geometry.formation import box_coords

EPS = g.EPS_MM


THETA_GRID_DEG = 1.0


#: Points tried inside each open interval of constant models-in-contact, measured in from its
#: ends (mm): close to an end the path is shortest, the middle is the most robust.
INTERIOR_INSET_MM = 0.5


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
class Group:
    charger_models: int
    target_models: int
    offsets: list[float]

    @property
    def models(self) -> int:
        return self.charger_models + self.target_models


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
    # The charger's front-rank models (a unit of one short rank has gaps in its front).
    files = np.asarray([f for _, f in g.front_files(form)], dtype=float)
    lo = s[:, None] + files[None, :] * form.base_w  # (n, files)
    hi = lo + form.base_w
    meet = (lo[..., None] <= b + EPS) & (a <= hi[..., None] + EPS)  # (n, files, models)
    ch = meet.any(axis=2).sum(axis=1)
    if len(files) == form.files:  # a full front: one interval, the whole width
        tg = (s[:, None] <= b + EPS) & (a <= s[:, None] + form.width + EPS)
    else:
        tg = meet.any(axis=1)
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
    by models (``group_key``: the ruleset's priority key for contact, best first), for a
    search of a charger's front edge alone (tow's swept shape) the whole formation whose end
    footprint must be clear (``end_form``), and whether a contact nobody can align is offered
    (``unaligned``)."""

    group_key: Callable[[int, int], tuple] = _default_group_key
    end_form: g.Formation | None = None
    #: When neither the charger nor the target can align, offer the move that ends at first
    #: contact (tow 1.5, whfb8 2.5); the ruleset decides what it means.
    unaligned: bool = False


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
