"""Closest distance between unit boundaries (RULES.md 3: straight line, ignoring what lies
between)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .constants import mm_to_in
from .pose import Point


@dataclass(frozen=True, slots=True)
class Closest:
    distance_mm: float
    a: Point
    b: Point

    @property
    def distance_in(self) -> float:
        return mm_to_in(self.distance_mm)


def closest(a: BaseGeometry, b: BaseGeometry) -> Closest:
    """Closest distance between two geometries with the two closest points (on ``a``, on
    ``b``). Overlapping geometries are at distance 0."""
    d = float(shapely.distance(a, b))
    line = shapely.shortest_line(a, b)
    (ax, ay), (bx, by) = line.coords
    return Closest(d, (ax, ay), (bx, by))


def _ray_params(origins: np.ndarray, direction: tuple[float, float], edges_a: np.ndarray,
                edges_b: np.ndarray) -> np.ndarray:
    """(origins, edges): the least t >= 0 with origin + t * direction on the segment
    (a_j, b_j); inf where the ray misses it."""
    dx, dy = direction
    ex = edges_b[:, 0] - edges_a[:, 0]
    ey = edges_b[:, 1] - edges_a[:, 1]
    denom = dx * ey - dy * ex  # cross(direction, edge)
    ox = edges_a[None, :, 0] - origins[:, None, 0]
    oy = edges_a[None, :, 1] - origins[:, None, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (ox * ey - oy * ex) / denom  # distance along the ray
        u = (ox * dy - oy * dx) / denom  # position along the edge
    ok = (np.abs(denom) > 1e-12) & (t >= -1e-9) & (u >= -1e-9) & (u <= 1 + 1e-9)
    return np.where(ok, np.maximum(t, 0.0), np.inf)


def _ray_hits(origins: np.ndarray, direction: tuple[float, float], edges_a: np.ndarray,
              edges_b: np.ndarray) -> np.ndarray:
    """For each origin, the least t >= 0 with origin + t * direction on one of the segments
    (a_i, b_i); inf where none."""
    t = _ray_params(origins, direction, edges_a, edges_b)
    return t.min(axis=1) if t.size else np.full(len(origins), np.inf)


def contact_distances(moving: list[Point], direction: tuple[float, float],
                      obstacles: list[np.ndarray]) -> np.ndarray:
    """:func:`contact_distance` of ``moving`` against each of ``obstacles`` (corner arrays),
    in one vectorised pass: every vertex is cast against every edge of the other side at
    once, then each obstacle keeps its own least distance (the same figures)."""
    if not obstacles:
        return np.zeros(0)
    a = np.asarray(moving, dtype=float)
    b = np.concatenate([np.asarray(o, dtype=float) for o in obstacles])
    sizes = np.asarray([len(o) for o in obstacles])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    nxt = np.arange(len(b)) + 1  # each obstacle edge runs from a vertex to the next
    nxt[starts + sizes - 1] = starts
    t1 = _ray_params(a, direction, b, b[nxt]).min(axis=0)  # per obstacle edge
    t2 = _ray_params(b, (-direction[0], -direction[1]), a, np.roll(a, -1, axis=0)).min(axis=1)
    return np.minimum.reduceat(np.minimum(t1, t2), starts)


def contact_distance(moving: list[Point], direction: tuple[float, float],
                     obstacle: list[Point]) -> float:
    """How far ``moving`` (a polygon's corners) can translate along the unit vector
    ``direction`` before its boundary meets ``obstacle``'s boundary (RULES.md 5, 6: straight
    moves that stop at the first thing touched). Exact: every vertex of each polygon is cast
    as a ray against the other's edges. ``inf`` when they never meet."""
    a = np.asarray(moving, dtype=float)
    b = np.asarray(obstacle, dtype=float)
    ea, eb = a, np.roll(a, -1, axis=0)
    fa, fb = b, np.roll(b, -1, axis=0)
    t1 = _ray_hits(a, direction, fa, fb)
    t2 = _ray_hits(b, (-direction[0], -direction[1]), ea, eb)
    return float(min(t1.min(initial=np.inf), t2.min(initial=np.inf)))
