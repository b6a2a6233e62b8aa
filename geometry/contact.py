"""Contact between units and models (RULES.md 4, DESIGN.md Conventions: one tolerance).

Closer than ``EPS_MM`` is touching; touching is contact; overlapping by more than ``EPS_MM`` is
overlap. Models in contact are counted by projecting the bases that a facing presents onto the
contact line (corner contact counts).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .constants import EPS_MM
from .formation import (
    FACINGS,
    Body,
    FacingName,
    base_polygon,
    box_coords,
    presented_models,
)
from .pose import Point


def touching(a: BaseGeometry, b: BaseGeometry, eps: float = EPS_MM) -> bool:
    """Within ``eps`` of each other (contact, or overlap)."""
    return bool(shapely.dwithin(a, b, eps))


def convex_pieces(poly: BaseGeometry) -> list[np.ndarray]:
    """Convex pieces (vertex arrays) whose union is ``poly`` (a polygon or several): each
    convex part itself, the others cut into constrained Delaunay triangles. What the
    vectorised separating-axis tests need, which hold for convex shapes only."""
    out: list[np.ndarray] = []
    for piece in getattr(poly, "geoms", [poly]):
        if piece.is_empty:
            continue
        if piece.equals(piece.convex_hull):
            out.append(np.asarray(piece.exterior.coords[:-1]))
        else:
            tris = shapely.constrained_delaunay_triangles(piece)
            out.extend(np.asarray(t.exterior.coords[:-1]) for t in tris.geoms)
    return out


def shrunk(poly: BaseGeometry, eps: float = EPS_MM) -> BaseGeometry:
    """``poly`` with its boundary pulled in by ``eps``: what another shape must reach into to
    overlap it."""
    return poly.buffer(-eps, join_style="mitre")


def overlapping(a: BaseGeometry, b: BaseGeometry, eps: float = EPS_MM) -> bool:
    """Some point of ``a`` lies deeper than ``eps`` inside ``b``."""
    return bool(shapely.intersects(a, shrunk(b, eps)))


def penetration_mm(a: BaseGeometry, b: BaseGeometry) -> float:
    """Overlap depth of two convex polygons by separating axes (0 when apart)."""
    pa = np.asarray(a.exterior.coords[:-1])  # type: ignore[attr-defined]
    pb = np.asarray(b.exterior.coords[:-1])  # type: ignore[attr-defined]
    depth = math.inf
    for pts in (pa, pb):
        edges = np.roll(pts, -1, axis=0) - pts
        normals = np.stack([-edges[:, 1], edges[:, 0]], axis=1)
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        for n in normals:
            ra, rb = pa @ n, pb @ n
            overlap = min(ra.max(), rb.max()) - max(ra.min(), rb.min())
            if overlap <= 0:
                return 0.0
            depth = min(depth, overlap)
    return float(depth)


def rect_overlap_depth(a: Sequence[Point], b: Sequence[Point]) -> float:
    """Overlap depth of two rectangles given by their corners (separating axes; 0 when apart),
    in plain Python: for one pair it is several times faster than :func:`penetration_mm` or
    the vectorised :func:`rect_penetrations`."""
    depth = math.inf
    for poly in (a, b):
        for k in (0, 1):
            ex, ey = poly[k + 1][0] - poly[k][0], poly[k + 1][1] - poly[k][1]
            norm = math.hypot(ex, ey)
            nx, ny = -ey / norm, ex / norm
            pa = [p[0] * nx + p[1] * ny for p in a]
            pb = [p[0] * nx + p[1] * ny for p in b]
            overlap = min(max(pa), max(pb)) - max(min(pa), min(pb))
            if overlap <= 0:
                return 0.0
            depth = min(depth, overlap)
    return depth


def bodies_overlap(a: Body, b: Body, eps: float = EPS_MM) -> bool:
    return penetration_mm(a.polygon, b.polygon) > eps


@dataclass(frozen=True, slots=True)
class FlushContact:
    """Two facings lying on one line and sharing a stretch of it."""

    facing_a: FacingName
    facing_b: FacingName
    segment: tuple[Point, Point]


def _seg_param(p: Point, q0: Point, q1: Point) -> tuple[float, float]:
    """(position along q0->q1 in mm, signed distance from the line) of p."""
    dx, dy = q1[0] - q0[0], q1[1] - q0[1]
    length = math.hypot(dx, dy)
    ux, uy = dx / length, dy / length
    px, py = p[0] - q0[0], p[1] - q0[1]
    return (px * ux + py * uy, px * uy - py * ux)


def flush_contact(a: Body, b: Body, eps: float = EPS_MM) -> FlushContact | None:
    """The facings of ``a`` and ``b`` that lie flush (antiparallel, on one line, sharing a
    stretch or a point), with the shared segment; ``None`` when no facings are flush."""
    for fa in FACINGS:
        qa0, qa1 = a.facings[fa]
        for fb in FACINGS:
            qb0, qb1 = b.facings[fb]
            s0, d0 = _seg_param(qb0, qa0, qa1)
            s1, d1 = _seg_param(qb1, qa0, qa1)
            if abs(d0) > eps or abs(d1) > eps:
                continue
            length = math.dist(qa0, qa1)
            lo, hi = max(0.0, min(s0, s1)), min(length, max(s0, s1))
            if hi < lo - eps:
                continue
            # The two units must lie on opposite sides of the shared line.
            ca = _seg_param(a.pose.centre, qa0, qa1)[1]
            cb = _seg_param(b.pose.centre, qa0, qa1)[1]
            if ca * cb >= 0:
                continue
            ux, uy = (qa1[0] - qa0[0]) / length, (qa1[1] - qa0[1]) / length
            hi = max(hi, lo)
            seg = ((qa0[0] + lo * ux, qa0[1] + lo * uy), (qa0[0] + hi * ux, qa0[1] + hi * uy))
            return FlushContact(fa, fb, seg)
    return None


def _presented_intervals(body: Body, facing: FacingName, line: tuple[Point, Point]
                         ) -> list[tuple[tuple[int, int], float, float]]:
    """Intervals along ``line`` of the models ``body`` presents on ``facing``."""
    out = []
    for rank, file in presented_models(body.form, facing):
        ts = [_seg_param(p, *line)[0]
              for p in box_coords(body.pose, *body.form.base_local(rank, file))]
        out.append(((rank, file), min(ts), max(ts)))
    return out


@dataclass(frozen=True, slots=True)
class ModelContacts:
    """Models in base contact across one contact line (RULES.md 4)."""

    a_models: frozenset[tuple[int, int]]
    b_models: frozenset[tuple[int, int]]

    @property
    def total(self) -> int:
        return len(self.a_models) + len(self.b_models)


def models_in_contact(a: Body, b: Body, eps: float = EPS_MM) -> ModelContacts:
    """Models of ``a`` and ``b`` touching an enemy model, for two units in flush contact.

    Each facing presents its models (front rank; flank one per rank; rear the rear rank's
    actual models); two opposing models touch when their intervals along the contact line
    overlap or meet at an end point. Units touching only at a corner are handled the same way
    through the facings that meet there. Returns empty sets when the units do not touch.
    """
    fc = flush_contact(a, b, eps)
    if fc is None:
        return _corner_models(a, b, eps)
    line = a.facings[fc.facing_a]
    ia = _presented_intervals(a, fc.facing_a, line)
    ib = _presented_intervals(b, fc.facing_b, line)
    am, bm = set(), set()
    for ka, a0, a1 in ia:
        for kb, b0, b1 in ib:
            if a0 <= b1 + eps and b0 <= a1 + eps:
                am.add(ka)
                bm.add(kb)
    return ModelContacts(frozenset(am), frozenset(bm))


def _corner_models(a: Body, b: Body, eps: float) -> ModelContacts:
    """Units touching at a point, not along a line: the models whose bases hold that point."""
    if not touching(a.polygon, b.polygon, eps):
        return ModelContacts(frozenset(), frozenset())
    am = {(r, f) for r, f in a.form.model_slots()
          if touching(base_polygon(a.form, a.pose, r, f), b.polygon, eps)}
    bm = {(r, f) for r, f in b.form.model_slots()
          if touching(base_polygon(b.form, b.pose, r, f), a.polygon, eps)}
    am = {k for k in am if any(touching(base_polygon(a.form, a.pose, *k),
                                        base_polygon(b.form, b.pose, *j), eps) for j in bm)}
    bm = {k for k in bm if any(touching(base_polygon(b.form, b.pose, *k),
                                        base_polygon(a.form, a.pose, *j), eps) for j in am)}
    return ModelContacts(frozenset(am), frozenset(bm))


def _fold(op: np.ufunc, x: np.ndarray, axis: int) -> np.ndarray:
    """``op.reduce(x, axis)`` for a short ``axis`` (a shape's corners or axes), the same
    values: one elementwise ``op`` per entry instead of a reduction, whose inner loop numpy
    runs once per handful of numbers (most of the cost of the vectorised tests)."""
    lead = (slice(None),) * (axis % x.ndim)  # the entries along ``axis`` as views
    out = x[(*lead, 0)]
    for i in range(1, x.shape[axis]):
        out = op(out, x[(*lead, i)])
    return out


def least(x: np.ndarray, axis: int) -> np.ndarray:
    """``x.min(axis)`` for a short ``axis`` (:func:`_fold`)."""
    return _fold(np.minimum, x, axis)


def greatest(x: np.ndarray, axis: int) -> np.ndarray:
    """``x.max(axis)`` for a short ``axis`` (:func:`_fold`)."""
    return _fold(np.maximum, x, axis)


def _unit_rows(v: np.ndarray) -> np.ndarray:
    """``v`` (..., 2) divided by its length, as ``v / np.linalg.norm(v, axis=-1)`` gives it,
    without a reduction over pairs."""
    x, y = v[..., 0], v[..., 1]
    return v / np.sqrt(x * x + y * y)[..., None]


def _rect_frames(rects: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centres (n, 2) and half-edge vectors (n, 2) x 2 of rectangles given by their corners."""
    centre = (rects[:, 0] + rects[:, 2]) * 0.5
    return centre, (rects[:, 1] - rects[:, 0]) * 0.5, (rects[:, 3] - rects[:, 0]) * 0.5


@dataclass(frozen=True)
class ConvexSet:
    """Convex polygons prepared for many separating-axis tests: ``corners`` (P, K, 2), padded
    to a common K by repeating a vertex; ``normals`` (P, A, 2), each polygon's unit edge
    normals, one of each direction, padded by repeating a real one (a repeated axis
    changes no minimum); ``lo``, ``hi`` (P, A), each polygon's extent on its own normals.
    Computed once, so a test against a polygon projects only the moving shape onto the
    polygon's normals."""

    corners: np.ndarray
    normals: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    @classmethod
    def of(cls, corners: np.ndarray) -> ConvexSet:
        """From corners (P, K, 2) or one polygon (K, 2), padded as above."""
        corners = np.asarray(corners, dtype=float)
        if corners.ndim == 2:
            corners = corners[None]
        edges = np.roll(corners, -1, axis=1) - corners
        axes = np.stack([-edges[..., 1], edges[..., 0]], axis=2)
        norm = np.hypot(axes[..., 0], axes[..., 1])
        null = norm < 1e-12
        axes = axes / np.where(null, 1.0, norm)[..., None]
        if null.any():
            first = np.argmax(~null, axis=1)  # a real edge of each polygon
            rows = np.nonzero(null)[0]
            axes[null] = axes[rows, first[rows]]
        # Opposite edges of a rectangle (or of any polygon with parallel sides) give one axis
        # twice, reversed, and padding repeats one: the overlap along each copy is the same,
        # so an axis goes when an earlier one is parallel or reverse to it (a unit's four
        # edges make two axes). Polygons are padded again to a common count.
        dots = np.matmul(axes, axes.transpose(0, 2, 1))  # (P, K, K)
        drop = np.tril(np.abs(dots) > 1 - 1e-12, -1).any(axis=2)
        if len(axes) and drop.any():
            order = np.argsort(drop, axis=1, kind="stable")  # kept axes first, in order
            count = (~drop).sum(axis=1)
            width = int(count.max())
            pick = order[:, :width]
            pick = np.where(np.arange(width)[None, :] < count[:, None], pick, pick[:, :1])
            axes = np.take_along_axis(axes, pick[:, :, None], axis=1)
        proj = np.matmul(axes, corners.transpose(0, 2, 1))  # (P, A, K)
        return cls(corners, axes, proj.min(axis=2), proj.max(axis=2))

    def __len__(self) -> int:
        return len(self.corners)


def _sat_depth(ca: np.ndarray, cb: np.ndarray | None, hu: np.ndarray, hv: np.ndarray,
               own_axes: np.ndarray, polys: ConvexSet, which: np.ndarray,
               signed: bool = False) -> np.ndarray:
    """Separating-axis depth of rectangles centred at ``ca`` (n, 2) with half-edges ``hu``,
    ``hv`` or, with ``cb``, of the hull of each and its translate centred at ``cb``, each
    against the polygon ``polys[which]``. A rectangle's extent on an axis is its centre's
    projection plus or minus its half-edges' projections, and the hull's is the union of both
    extents, so no corner is projected. ``own_axes`` (n, A, 2) are the shapes' unit axes, onto
    which the polygons' corners are projected; the polygons' own axes and extents are
    precomputed (ConvexSet). ``signed``: apart shapes get minus their widest gap along an
    axis (a lower bound of their distance) instead of 0."""

    def extents(ax: np.ndarray, ay: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r = np.abs(hu[:, :1] * ax + hu[:, 1:] * ay) + np.abs(hv[:, :1] * ax + hv[:, 1:] * ay)
        pa = ca[:, :1] * ax + ca[:, 1:] * ay
        if cb is None:
            return pa - r, pa + r
        pb = cb[:, :1] * ax + cb[:, 1:] * ay
        return np.minimum(pa, pb) - r, np.maximum(pa, pb) + r

    other = polys.corners[which]
    lo, hi = extents(own_axes[..., 0], own_axes[..., 1])
    # Each corner of the other polygon on each own axis (n, A, m), as two products: a stack of
    # 2 x 2 matrix products costs a BLAS call per shape.
    po = own_axes[..., 0][:, :, None] * other[:, None, :, 0] + \
        own_axes[..., 1][:, :, None] * other[:, None, :, 1]
    depth = least(np.minimum(hi, greatest(po, 2)) - np.maximum(lo, least(po, 2)), 1)
    normals = polys.normals[which]
    lo, hi = extents(normals[..., 0], normals[..., 1])
    depth = np.minimum(depth, least(np.minimum(hi, polys.hi[which]) -
                                    np.maximum(lo, polys.lo[which]), 1))
    return depth if signed else np.maximum(depth, 0.0)


def _polys(other: np.ndarray | ConvexSet, n: int) -> tuple[ConvexSet, np.ndarray]:
    """One polygon (m, 2), one per shape (n, m, 2), or a prepared set with one per shape."""
    if isinstance(other, ConvexSet):
        return other, np.arange(n)
    other = np.asarray(other, dtype=float)
    if other.ndim == 2:
        return ConvexSet.of(other), np.zeros(n, dtype=int)
    return ConvexSet.of(other), np.arange(n)


def rect_penetrations(rects: np.ndarray, other: np.ndarray | ConvexSet,
                      which: np.ndarray | None = None, signed: bool = False) -> np.ndarray:
    """Overlap depth of many rectangles ``rects`` (n, 4, 2) with one convex polygon ``other``
    (m, 2), or each with its own (n, m, 2), or each with ``other[which]`` of a prepared set,
    by separating axes, vectorised: the cheap first test of a search. Polygons may be padded
    to a common size by repeating a vertex. ``signed``: shapes apart get minus their widest
    gap along a separating axis, a lower bound of their distance (a projection never
    lengthens a segment)."""
    rects = np.asarray(rects, dtype=float)
    if len(rects) == 0:
        return np.zeros(0)
    polys, idx = _polys(other, len(rects))
    c, hu, hv = _rect_frames(rects)
    own = np.stack([hu, hv], axis=1)
    own = _unit_rows(own)
    return _sat_depth(c, None, hu, hv, own, polys, idx if which is None else which, signed)


def rect_corners(cx: np.ndarray, cy: np.ndarray, facing_deg: np.ndarray, width: float,
                 depth: float) -> np.ndarray:
    """Counter-clockwise corners (n, 4, 2) of many boundaries, as ``boundary_coords`` gives
    them one at a time."""
    a = np.radians(facing_deg)
    fx, fy = np.cos(a), np.sin(a)
    rx, ry = np.sin(a), -np.cos(a)
    out = np.empty((len(cx), 4, 2))
    for k, (u, v) in enumerate(((-width / 2, -depth / 2), (width / 2, -depth / 2),
                                (width / 2, depth / 2), (-width / 2, depth / 2))):
        out[:, k, 0] = cx + u * rx + v * fx
        out[:, k, 1] = cy + u * ry + v * fy
    return out


def sweep_penetrations(a: np.ndarray, b: np.ndarray, other: np.ndarray | ConvexSet,
                       which: np.ndarray | None = None) -> np.ndarray:
    """Overlap depth with the convex polygon ``other`` (m, 2), or each with its own (n, m, 2),
    or each with ``other[which]`` of a prepared set, of the area swept by rectangles moving
    straight from ``a`` to ``b`` (both (n, 4, 2), same orientation), vectorised.

    The swept area is the convex hull of the two rectangles, whose edges are parallel to the
    rectangle's edges or to the motion, so separating axes over those directions and the
    other polygon's edges give the exact depth (0 when apart)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if len(a) == 0:
        return np.zeros(0)
    polys, idx = _polys(other, len(a))
    ca, hu, hv = _rect_frames(a)
    cb = (b[:, 0] + b[:, 2]) * 0.5
    motion = cb - ca
    normal = np.stack([-motion[:, 1], motion[:, 0]], axis=1)
    still = np.hypot(normal[:, 0], normal[:, 1]) < 1e-12
    normal[still] = hu[still]  # any rectangle axis when not moving
    own = np.stack([hu, hv, normal], axis=1)
    own = _unit_rows(own)
    return _sat_depth(ca, cb, hu, hv, own, polys, idx if which is None else which)


def forward_reach(rect: np.ndarray, direction: tuple[float, float], polys: ConvexSet,
                  limit: np.ndarray) -> np.ndarray:
    """For each polygon of ``polys``, how far the rectangle ``rect`` (4, 2) may move straight
    along the unit vector ``direction`` before the swept area overlaps it by more than
    ``limit`` (P,): the move of length ``d`` is blocked by polygon p exactly when ``d >
    reach[p]`` (-inf: already at the start; inf: never).

    Closed form of :func:`sweep_penetrations` for one rectangle and every length at once: on
    each separating axis the sweep's extent grows linearly with ``d`` on the side the motion
    points to, so its overlap with the polygon passes ``limit`` at one length (or never, or
    from the start); the depth is the least overlap over the axes, so the move is blocked past
    the greatest of those lengths."""
    rect = np.asarray(rect, dtype=float)
    if len(polys) == 0:
        return np.zeros(0)
    c = (rect[0] + rect[2]) * 0.5
    hu, hv = (rect[1] - rect[0]) * 0.5, (rect[3] - rect[0]) * 0.5
    own = np.stack([hu / np.hypot(*hu), hv / np.hypot(*hv)])  # (2, 2)
    po = np.einsum("ad,pkd->pak", own, polys.corners)  # (P, 2, K)
    axes = np.concatenate([np.broadcast_to(own, (len(polys), 2, 2)), polys.normals], axis=1)
    qa = np.concatenate([po.min(axis=2), polys.lo], axis=1)  # (P, A)
    qb = np.concatenate([po.max(axis=2), polys.hi], axis=1)
    ax, ay = axes[..., 0], axes[..., 1]
    r = np.abs(hu[0] * ax + hu[1] * ay) + np.abs(hv[0] * ax + hv[1] * ay)
    pc = c[0] * ax + c[1] * ay
    a, b = pc - r, pc + r
    s = direction[0] * ax + direction[1] * ay
    lim = np.asarray(limit, dtype=float)[:, None]
    fwd = s >= 0
    # Moving towards +axis: the overlap min(b + d s, qb) - max(a, qa) must pass the limit.
    m_pos = np.maximum(a, qa) + lim
    # Moving towards -axis: min(b, qb) - max(a + d s, qa).
    m_neg = np.minimum(b, qb) - lim
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = np.where(fwd, (m_pos - b) / s, (m_neg - a) / s)
    never = np.where(fwd, qb <= m_pos, qa >= m_neg)
    at_once = np.where(fwd, b > m_pos, a < m_neg)
    t = np.where(at_once, -np.inf, np.where(np.abs(s) < 1e-15, np.inf, t))
    t = np.where(never, np.inf, t)
    return t.max(axis=1)
