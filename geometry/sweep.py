"""Swept areas of the primitive moves (RULES.md 4: the whole boundary, swept along the path).

Translation: the convex hull of the start and end rectangles, which is exact.

Rotation of a rectangle about a point ``O``: split the rectangle by the two lines through ``O``
parallel to its edges. Each piece is a rectangle with ``O`` at a corner; seen from ``O`` every
circle meets such a piece in one arc, so the piece sweeps exactly the region bounded by its
trailing half-boundary at the start, the arc of its far corner, and its leading half-boundary
at the end. The only approximation is that arc, drawn as a circumscribed polygon: the swept
polygon contains the true swept region and exceeds it by at most ``SWEEP_TOL_MM``. When ``O``
lies outside the rectangle, each edge is cut where its distance to ``O`` is least and each
radius-monotone piece sweeps a band closed by an outer (circumscribed) and an inner (chord)
arc; both errors lie outside the true region and within the same bound.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry import MultiPoint, Polygon

from .constants import OVERLAY_GRID_MM, SWEEP_TOL_MM
from .formation import polygon_of
from .pose import Point, rotate_point


def translation_sweep(start: Sequence[Point], end: Sequence[Point]) -> Polygon:
    """Exact swept area of a convex polygon translated from ``start`` to ``end``."""
    return MultiPoint(list(start) + list(end)).convex_hull  # type: ignore[return-value]


def _arc_step(radius: float, tol: float) -> float:
    """Largest angle step (rad) whose circumscribed polygon strays at most ``tol`` outside a
    circle of ``radius``: radius * (1 / cos(step / 2) - 1) <= tol."""
    if radius <= tol:
        return math.pi / 2
    return 2 * math.acos(radius / (radius + tol))


def arc_points(centre: Point, radius: float, a0: float, a1: float, outer: bool = True,
               tol: float = SWEEP_TOL_MM) -> list[Point]:
    """Interior points of a polygonal arc from angle ``a0`` to ``a1`` (radians, either way).

    ``outer``: circumscribed (vertices outside the circle, the polygon covers the disc side);
    otherwise the chord polygon, whose points lie on the circle.
    """
    span = a1 - a0
    if radius <= 0 or abs(span) < 1e-12:
        return []
    n = max(1, math.ceil(abs(span) / _arc_step(radius, tol)))
    step = span / n
    if outer:
        r = radius / math.cos(step / 2)
        angles = a0 + (np.arange(n) + 0.5) * step
    else:
        r = radius
        angles = a0 + np.arange(1, n) * step
    xs = centre[0] + r * np.cos(angles)
    ys = centre[1] + r * np.sin(angles)
    return list(zip(xs.tolist(), ys.tolist(), strict=True))


def _corner_sweep(o: Point, a: Point, b: Point, c: Point, theta: float) -> Polygon:
    """Sweep of the rectangle O, A, B, C (counter-clockwise, O a corner, B the far corner)
    rotating by ``theta`` radians about O."""
    deg = math.degrees(theta)
    if theta < 0:
        # Rotating back is sweeping forward from the end position.
        a, b, c = (rotate_point(p, o, deg) for p in (a, b, c))
        theta = -theta
        deg = -deg
    radius = math.hypot(b[0] - o[0], b[1] - o[1])
    start = math.atan2(b[1] - o[1], b[0] - o[0])
    b_end = rotate_point(b, o, deg)
    c_end = rotate_point(c, o, deg)
    ring = [o, a, b, *arc_points(o, radius, start, start + theta), b_end, c_end]
    return polygon_of(ring)


def _rect_frame(rect: Sequence[Point]) -> tuple[Point, Point, Point, float, float]:
    """Origin, unit edge directions and edge lengths of a rectangle."""
    p0, p1, p3 = rect[0], rect[1], rect[3]
    lx = math.hypot(p1[0] - p0[0], p1[1] - p0[1])
    ly = math.hypot(p3[0] - p0[0], p3[1] - p0[1])
    ex = ((p1[0] - p0[0]) / lx, (p1[1] - p0[1]) / lx)
    ey = ((p3[0] - p0[0]) / ly, (p3[1] - p0[1]) / ly)
    return p0, ex, ey, lx, ly


def _split_at(rect: Sequence[Point], o: Point) -> list[tuple[Point, Point, Point, Point]]:
    """Split a rectangle (counter-clockwise corners) into the pieces having ``o`` (inside or on
    it) as a corner, each returned counter-clockwise starting at ``o``."""
    p0, ex, ey, lx, ly = _rect_frame(rect)
    s = (o[0] - p0[0]) * ex[0] + (o[1] - p0[1]) * ex[1]
    t = (o[0] - p0[0]) * ey[0] + (o[1] - p0[1]) * ey[1]
    s, t = min(max(s, 0.0), lx), min(max(t, 0.0), ly)
    s = 0.0 if s <= 1e-9 else lx if s >= lx - 1e-9 else s
    t = 0.0 if t <= 1e-9 else ly if t >= ly - 1e-9 else t

    # Points that coincide with o or a corner are returned exactly as given: a vertex rebuilt
    # from the frame differs by ~1e-14 mm, and GEOS overlays of the sweep against the start
    # rectangle can fail outright on such near-duplicate vertices.
    exact = {(0.0, 0.0): rect[0], (lx, 0.0): rect[1], (lx, ly): rect[2], (0.0, ly): rect[3]}
    exact.setdefault((s, t), o)

    def at(a: float, b: float) -> Point:
        if (a, b) in exact:
            return tuple(exact[(a, b)])  # type: ignore[return-value]
        return (p0[0] + a * ex[0] + b * ey[0], p0[1] + a * ex[1] + b * ey[1])

    pieces = []
    # Each quadrant around o as a counter-clockwise ring starting at o.
    for (s1, t1) in ((lx, ly), (0.0, ly), (0.0, 0.0), (lx, 0.0)):
        if abs(s1 - s) <= 1e-9 or abs(t1 - t) <= 1e-9:
            continue
        ring = [(s, t), (s1, t), (s1, t1), (s, t1)]
        if (s1 - s) * (t1 - t) < 0:  # mirrored quadrant: reverse to stay counter-clockwise
            ring = [ring[0], ring[3], ring[2], ring[1]]
        pieces.append(tuple(at(a, b) for a, b in ring))
    return pieces  # type: ignore[return-value]


def _inside(rect: Sequence[Point], o: Point, tol: float = 1e-9) -> bool:
    p0, ex, ey, lx, ly = _rect_frame(rect)
    s = (o[0] - p0[0]) * ex[0] + (o[1] - p0[1]) * ex[1]
    t = (o[0] - p0[0]) * ey[0] + (o[1] - p0[1]) * ey[1]
    return -tol <= s <= lx + tol and -tol <= t <= ly + tol


def _band_sweep(p_near: Point, p_far: Point, o: Point, theta: float) -> Polygon:
    """Sweep of a radius-monotone segment rotating about an outside point."""
    deg = math.degrees(theta)
    rn = math.hypot(p_near[0] - o[0], p_near[1] - o[1])
    rf = math.hypot(p_far[0] - o[0], p_far[1] - o[1])
    an = math.atan2(p_near[1] - o[1], p_near[0] - o[0])
    af = math.atan2(p_far[1] - o[1], p_far[0] - o[0])
    ring = [p_near, p_far, *arc_points(o, rf, af, af + theta),
            rotate_point(p_far, o, deg), rotate_point(p_near, o, deg),
            *arc_points(o, rn, an + theta, an, outer=False)]
    poly = polygon_of(ring)
    return poly if poly.is_valid else poly.buffer(0)


def rotation_sweep(rect: Sequence[Point], centre: Point, angle_deg: float) -> Polygon:
    """Swept area of a rectangle (counter-clockwise corners) rotating about ``centre``.

    Contains the true swept region and exceeds it by at most ``SWEEP_TOL_MM`` (module doc).
    """
    parts = rotation_sweep_parts(rect, centre, angle_deg)
    if len(parts) == 1:
        return parts[0]
    merged = shapely.union_all(parts)
    if merged.geom_type != "Polygon" or merged.area < max(p.area for p in parts) - 1e-6:
        # The pieces share their vertices exactly, so the floating overlay holds; should GEOS
        # still lose a piece (see OVERLAY_GRID_MM), snap rounding is robust.
        merged = shapely.union_all(parts, grid_size=OVERLAY_GRID_MM)
    return merged  # type: ignore[return-value]


def rotation_sweep_parts(rect: Sequence[Point], centre: Point, angle_deg: float
                         ) -> list[Polygon]:
    """The pieces whose union is :func:`rotation_sweep`: what overlaps or comes near the sweep
    overlaps or comes near one of them, so a test of "is it clear?" can skip the union."""
    if abs(angle_deg) < 1e-12:
        return [polygon_of(list(rect))]
    theta = math.radians(angle_deg)
    if _inside(rect, centre):
        parts = [_corner_sweep(*piece, theta) for piece in _split_at(rect, centre)]
    else:
        parts = [polygon_of(list(rect))]
        n = len(rect)
        for i in range(n):
            a, b = np.asarray(rect[i]), np.asarray(rect[(i + 1) % n])
            d = b - a
            t = float(np.clip((np.asarray(centre) - a) @ d / (d @ d), 0.0, 1.0))
            # A foot at an end is that corner exactly (see _split_at on near-duplicates).
            foot = rect[i] if t <= 1e-12 else rect[(i + 1) % n] if t >= 1 - 1e-12 else \
                tuple(map(float, a + t * d))
            for far in (tuple(map(float, a)), tuple(map(float, b))):
                if math.dist(far, foot) > 1e-9:
                    parts.append(_band_sweep(foot, far, centre, theta))  # type: ignore[arg-type]
    return parts


def rotation_bounds(rect: Sequence[Point], centre: Point, angle_deg: float
                    ) -> tuple[float, float, float, float]:
    """Exact bounding box (x0, y0, x1, y1) of the region a polygon sweeps rotating about
    ``centre``: at every angle the extremes are corners, so it is the box of every corner's
    arc, that is of its two ends and of the circle's axis points the arc passes. Plain Python:
    a handful of corners, called once per exact candidate check."""
    cx, cy = centre
    th = math.radians(angle_deg)
    cos_t, sin_t = math.cos(th), math.sin(th)
    x0 = y0 = math.inf
    x1 = y1 = -math.inf
    two_pi = 2 * math.pi
    for px, py in rect:
        dx, dy = px - cx, py - cy
        ex, ey = dx * cos_t - dy * sin_t, dx * sin_t + dy * cos_t
        x0, x1 = min(x0, dx, ex), max(x1, dx, ex)
        y0, y1 = min(y0, dy, ey), max(y1, dy, ey)
        r = math.hypot(dx, dy)
        a0 = math.atan2(dy, dx)
        lo, hi = (a0, a0 + th) if th >= 0 else (a0 + th, a0)
        # An axis direction k * 90 degrees lies on the arc when some 2 pi n + k pi / 2 falls
        # in [lo, hi].
        for k in range(4):
            base = k * math.pi / 2
            if math.floor((hi - base) / two_pi) >= math.ceil((lo - base) / two_pi):
                if k == 0:
                    x1 = max(x1, r)
                elif k == 1:
                    y1 = max(y1, r)
                elif k == 2:
                    x0 = min(x0, -r)
                else:
                    y0 = min(y0, -r)
    return (cx + x0, cy + y0, cx + x1, cy + y1)
