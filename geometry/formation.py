"""A unit's formation and the polygons it occupies (RULES.md 1).

This module is the only place where unit polygons are built: the boundary rectangle, every
model base, the four facings and the corners. Everything takes a :class:`Formation` (what the
unit is) and a :class:`~geometry.pose.Pose` (where it stands) and returns new geometry; nothing
is mutated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Literal

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from .pose import Point, Pose

if TYPE_CHECKING:
    from .contact import ConvexSet

FacingName = Literal["front", "right", "rear", "left"]
FACINGS: tuple[FacingName, ...] = ("front", "right", "rear", "left")
CornerName = Literal["front_left", "front_right", "rear_right", "rear_left"]


def rear_rank_files(files: int, rear_models: int, placement: str | list[int]) -> tuple[int, ...]:
    """File indexes (0 = leftmost) occupied in the rear rank.

    A short rear rank keeps its models in line with the files (rules-notes 9). ``centre``
    starts at file ``(files - n) // 2``, so an odd gap leaves the extra empty file on the right.
    """
    if isinstance(placement, list):
        return tuple(sorted(placement))
    if placement == "left":
        return tuple(range(rear_models))
    if placement == "right":
        return tuple(range(files - rear_models, files))
    start = (files - rear_models) // 2
    return tuple(range(start, start + rear_models))


@dataclass(frozen=True, slots=True)
class Formation:
    """Base size, files, ranks and the occupied files of the rear rank."""

    base_w: float
    base_d: float
    files: int
    ranks: int
    rear_files: tuple[int, ...]

    @classmethod
    def full(cls, base: tuple[float, float], files: int, ranks: int) -> Formation:
        return cls(float(base[0]), float(base[1]), files, ranks, tuple(range(files)))

    @property
    def width(self) -> float:
        return self.files * self.base_w

    @property
    def depth(self) -> float:
        return self.ranks * self.base_d

    @property
    def models(self) -> int:
        return self.files * (self.ranks - 1) + len(self.rear_files)

    def occupied(self, rank: int, file: int) -> bool:
        return rank < self.ranks - 1 or file in self.rear_files

    def model_slots(self) -> list[tuple[int, int]]:
        """(rank, file) of every model, front rank first, left to right."""
        return [
            (r, f) for r in range(self.ranks) for f in range(self.files) if self.occupied(r, f)
        ]

    def base_local(self, rank: int, file: int) -> tuple[float, float, float, float]:
        """Local box (u0, u1, v0, v1) of the base at (rank, file)."""
        u0 = -self.width / 2 + file * self.base_w
        v1 = self.depth / 2 - rank * self.base_d
        return (u0, u0 + self.base_w, v1 - self.base_d, v1)


def polygon_of(ring: list[Point]) -> Polygon:
    """The polygon of a ring of points (not closed): the same polygon as ``Polygon(ring)``,
    built from an array, which is faster for the many sweeps the charge search tests."""
    return shapely.polygons(np.asarray(ring, dtype=float))


def box_coords(pose: Pose, u0: float, u1: float, v0: float, v1: float) -> list[Point]:
    """Counter-clockwise world corners of a local box (Pose.to_world of each, with the
    facing's cosine and sine computed once: the same arithmetic, so the same numbers)."""
    a = math.radians(pose.facing)
    fx, fy = math.cos(a), math.sin(a)
    rx, ry = fy, -fx  # Pose.right
    x, y = pose.x, pose.y
    return [(x + u0 * rx + v0 * fx, y + u0 * ry + v0 * fy),
            (x + u1 * rx + v0 * fx, y + u1 * ry + v0 * fy),
            (x + u1 * rx + v1 * fx, y + u1 * ry + v1 * fy),
            (x + u0 * rx + v1 * fx, y + u0 * ry + v1 * fy)]


def corners(form: Formation, pose: Pose) -> dict[CornerName, Point]:
    w, d = form.width / 2, form.depth / 2
    rl, rr, fr, fl = box_coords(pose, -w, w, -d, d)
    return {"front_left": fl, "front_right": fr, "rear_right": rr, "rear_left": rl}


def boundary_coords(form: Formation, pose: Pose) -> list[Point]:
    """Counter-clockwise corners of the unit boundary (RULES.md 1: the full rectangle)."""
    w, d = form.width / 2, form.depth / 2
    return box_coords(pose, -w, w, -d, d)


def boundary(form: Formation, pose: Pose) -> Polygon:
    return polygon_of(boundary_coords(form, pose))


def facing_segments(form: Formation, pose: Pose) -> dict[FacingName, tuple[Point, Point]]:
    """The four facings as segments, each running clockwise round the boundary."""
    c = corners(form, pose)
    return {
        "front": (c["front_left"], c["front_right"]),
        "right": (c["front_right"], c["rear_right"]),
        "rear": (c["rear_right"], c["rear_left"]),
        "left": (c["rear_left"], c["front_left"]),
    }


def facing_normal(pose: Pose, name: FacingName) -> Point:
    """Outward unit normal of a facing."""
    fx, fy = pose.forward
    rx, ry = pose.right
    return {"front": (fx, fy), "rear": (-fx, -fy), "right": (rx, ry), "left": (-rx, -ry)}[name]


def base_polygon(form: Formation, pose: Pose, rank: int, file: int) -> Polygon:
    return polygon_of(box_coords(pose, *form.base_local(rank, file)))


def model_bases(form: Formation, pose: Pose) -> list[tuple[int, int, Polygon]]:
    """Every model base as its own rectangle: (rank, file, polygon)."""
    return [(r, f, base_polygon(form, pose, r, f)) for r, f in form.model_slots()]


def front_files(form: Formation) -> list[tuple[int, int]]:
    """(0, file) of every front-rank model: every file, but for a unit of one short rank."""
    return [(0, f) for f in range(form.files) if form.occupied(0, f)]


def presented_models(form: Formation, name: FacingName) -> list[tuple[int, int]]:
    """The models a facing presents to an enemy flush against it (RULES.md 4).

    Front: the whole front rank (a unit of one rank: its actual models, that rank being its
    rear rank too). Rear: the rear rank's actual models. A flank: one model per rank, the one
    at that end of the rank (a short rear rank presents none there when that end is empty,
    which is what a count over the model rectangles gives).
    """
    if name == "front":
        return front_files(form)
    if name == "rear":
        last = form.ranks - 1
        return [(last, f) for f in range(form.files) if form.occupied(last, f)]
    end = 0 if name == "left" else form.files - 1
    return [(r, end) for r in range(form.ranks) if form.occupied(r, end)]


@dataclass(frozen=True)
class Body:
    """A formation standing at a pose, with its polygons computed once."""

    form: Formation
    pose: Pose

    @cached_property
    def polygon(self) -> Polygon:
        return boundary(self.form, self.pose)

    @cached_property
    def bases(self) -> BaseGeometry:
        """The models' bases, for distances: the tray's boundary, but for a short rank, whose
        empty places are not part of the unit where distances are measured base to base
        (RULES-editions.md 1.1 [D], 2.3: never to the tray). Then the full ranks as one box
        and the short rank's bases each (a collection: a distance needs no union)."""
        form = self.form
        slots = form.model_slots()
        if len(slots) == form.files * form.ranks:
            return self.polygon
        short = form.ranks - 1 if form.ranks > 1 else 0
        boxes = [polygon_of(box_coords(self.pose, *form.base_local(r, f)))
                 for r, f in slots if r == short]
        if short:
            u0, _, _, v1 = form.base_local(0, 0)
            _, u1, v0, _ = form.base_local(short - 1, form.files - 1)
            boxes.append(polygon_of(box_coords(self.pose, u0, u1, v0, v1)))
        return shapely.GeometryCollection(boxes)

    @cached_property
    def corners(self) -> dict[CornerName, Point]:
        return corners(self.form, self.pose)

    @cached_property
    def facings(self) -> dict[FacingName, tuple[Point, Point]]:
        return facing_segments(self.form, self.pose)

    @cached_property
    def arcs(self) -> dict[FacingName, Polygon]:
        """The four arcs (RULES.md 1), built once per body: a charge map asks for them once
        per pair of units."""
        from .arcs import arc_polygons

        return arc_polygons(self.form, self.pose)

    @cached_property
    def convex(self) -> ConvexSet:
        """The boundary prepared for separating-axis tests, built once per body: a search
        tests thousands of arrivals against its target in several calls."""
        from .contact import ConvexSet

        return ConvexSet.of(np.asarray(boundary_coords(self.form, self.pose)))

    def at(self, pose: Pose) -> Body:
        return Body(self.form, pose)
