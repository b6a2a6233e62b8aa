"""Closest distance between unit boundaries (RULES.md 3: straight line, ignoring what lies
between)."""

from __future__ import annotations

from dataclasses import dataclass

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
