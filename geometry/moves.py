"""Primitive moves: pure functions pose -> pose, each with its swept area (RULES.md 4, 6).

A charge path is a list of steps (DESIGN.md, ``path``): ``forward``, ``wheel``, ``align``,
``turn`` and ``reform``. Each step knows how to apply itself to a pose, how to sweep a
formation along itself, and how to write and read its JSON, so a ruling's path can be replayed
and checked independently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from shapely.geometry import Polygon

from .formation import Formation, boundary, boundary_coords, box_coords, corners, polygon_of
from .pose import Point, Pose, normalize_deg
from .sweep import rotation_bounds, rotation_sweep

Pivot = Literal["left", "right"]


def forward(pose: Pose, distance_mm: float) -> Pose:
    """Move straight along the facing (negative distances move backwards)."""
    fx, fy = pose.forward
    return Pose(pose.x + distance_mm * fx, pose.y + distance_mm * fy, pose.facing)


def wheel_pivot(form: Formation, pose: Pose, pivot: Pivot) -> Point:
    """The front corner a wheel turns about."""
    return corners(form, pose)["front_left" if pivot == "left" else "front_right"]


def wheel(form: Formation, pose: Pose, pivot: Pivot, angle_deg: float) -> Pose:
    """Turn about a front corner; positive is counter-clockwise, so a forward wheel is positive
    about the left corner and negative about the right one."""
    return pose.rotated(wheel_pivot(form, pose, pivot), angle_deg)


def align(pose: Pose, pivot_point: Point, angle_deg: float) -> Pose:
    """Turn about any point (RULES.md 4, align: the contact point)."""
    return pose.rotated(pivot_point, angle_deg)


def turn(pose: Pose, angle_deg: float) -> Pose:
    """Turn about the unit's centre (RULES.md 6, failed charge)."""
    return Pose(pose.x, pose.y, normalize_deg(pose.facing + angle_deg))


@dataclass(frozen=True, slots=True)
class Forward:
    distance_mm: float
    kind: Literal["forward"] = "forward"

    def apply(self, form: Formation, pose: Pose) -> Pose:
        return forward(pose, self.distance_mm)

    def _swept_coords(self, form: Formation, pose: Pose) -> list[Point]:
        # Moving along its own facing, the rectangle sweeps a longer rectangle: the convex
        # hull of the start and end boundaries, built directly.
        w, d, m = form.width / 2, form.depth / 2, self.distance_mm
        return box_coords(pose, -w, w, min(-d, -d + m), max(d, d + m))

    def swept(self, form: Formation, pose: Pose) -> Polygon:
        return polygon_of(self._swept_coords(form, pose))

    def length_mm(self, form: Formation) -> float:
        return abs(self.distance_mm)

    def bounds(self, form: Formation, pose: Pose) -> tuple[float, float, float, float]:
        """Bounding box of the swept area, without building it."""
        pts = self._swept_coords(form, pose)
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        return (min(xs), min(ys), max(xs), max(ys))

    def params(self) -> dict:
        return {"distance_mm": round(self.distance_mm, 4)}


@dataclass(frozen=True, slots=True)
class Wheel:
    pivot: Pivot
    angle_deg: float
    kind: Literal["wheel"] = "wheel"

    def apply(self, form: Formation, pose: Pose) -> Pose:
        return wheel(form, pose, self.pivot, self.angle_deg)

    def swept(self, form: Formation, pose: Pose) -> Polygon:
        return rotation_sweep(boundary_coords(form, pose), wheel_pivot(form, pose, self.pivot),
                              self.angle_deg)

    def bounds(self, form: Formation, pose: Pose) -> tuple[float, float, float, float]:
        """Bounding box of the swept area, without building it."""
        return rotation_bounds(boundary_coords(form, pose),
                               wheel_pivot(form, pose, self.pivot), self.angle_deg)

    def length_mm(self, form: Formation) -> float:
        """Movement a wheel uses: the arc of the outer front corner, W * theta (RULES.md 9)."""
        return form.width * math.radians(abs(self.angle_deg))

    def params(self) -> dict:
        return {"pivot": self.pivot, "angle_deg": round(self.angle_deg, 6)}


@dataclass(frozen=True, slots=True)
class Align:
    pivot_point: Point
    angle_deg: float
    kind: Literal["align"] = "align"

    def apply(self, form: Formation, pose: Pose) -> Pose:
        return align(pose, self.pivot_point, self.angle_deg)

    def swept(self, form: Formation, pose: Pose) -> Polygon:
        return rotation_sweep(boundary_coords(form, pose), self.pivot_point, self.angle_deg)

    def bounds(self, form: Formation, pose: Pose) -> tuple[float, float, float, float]:
        """Bounding box of the swept area, without building it."""
        return rotation_bounds(boundary_coords(form, pose), self.pivot_point, self.angle_deg)

    def length_mm(self, form: Formation) -> float:
        return 0.0  # the align is free (RULES.md 4)

    def params(self) -> dict:
        return {"pivot_point": [round(self.pivot_point[0], 4), round(self.pivot_point[1], 4)],
                "angle_deg": round(self.angle_deg, 6)}


@dataclass(frozen=True, slots=True)
class Turn:
    angle_deg: float
    kind: Literal["turn"] = "turn"

    def apply(self, form: Formation, pose: Pose) -> Pose:
        return turn(pose, self.angle_deg)

    def swept(self, form: Formation, pose: Pose) -> Polygon:
        return rotation_sweep(boundary_coords(form, pose), pose.centre, self.angle_deg)

    def bounds(self, form: Formation, pose: Pose) -> tuple[float, float, float, float]:
        """Bounding box of the swept area, without building it."""
        return rotation_bounds(boundary_coords(form, pose), pose.centre, self.angle_deg)

    def length_mm(self, form: Formation) -> float:
        return 0.0  # the failed-charge turn is free (RULES.md 6)

    def params(self) -> dict:
        return {"angle_deg": round(self.angle_deg, 6)}


@dataclass(frozen=True, slots=True)
class Reform:
    """The unit picked up and placed anew (RULES.md 5); ``files``/``ranks`` when changed."""

    pose: Pose
    files: int | None = None
    ranks: int | None = None
    kind: Literal["reform"] = "reform"

    def apply(self, form: Formation, pose: Pose) -> Pose:
        return self.pose

    def swept(self, form: Formation, pose: Pose) -> Polygon:
        # Placed, not moved: only the new footprint matters.
        return boundary(form, self.pose)

    def bounds(self, form: Formation, pose: Pose) -> tuple[float, float, float, float]:
        return boundary(form, self.pose).bounds

    def length_mm(self, form: Formation) -> float:
        return 0.0

    def params(self) -> dict:
        out: dict = {"to": self.pose.to_json()}
        if self.files is not None:
            out["files"] = self.files
        if self.ranks is not None:
            out["ranks"] = self.ranks
        return out


Step = Forward | Wheel | Align | Turn | Reform


def step_to_json(step: Step, pose_after: Pose, unit: str | None = None) -> dict:
    out: dict = {"kind": step.kind, **step.params(), "pose": pose_after.to_json()}
    if unit is not None:
        out["unit"] = unit
    return out


def step_from_json(data: dict) -> Step:
    """Read a path step (DESIGN.md, ``path``)."""
    kind = data.get("kind")
    if kind == "forward":
        return Forward(float(data["distance_mm"]))
    if kind == "wheel":
        if data["pivot"] not in ("left", "right"):
            raise ValueError(f"wheel pivot must be 'left' or 'right', not {data['pivot']!r}")
        return Wheel(data["pivot"], float(data["angle_deg"]))
    if kind == "align":
        px, py = data["pivot_point"]
        return Align((float(px), float(py)), float(data["angle_deg"]))
    if kind == "turn":
        return Turn(float(data["angle_deg"]))
    if kind == "reform":
        to = data.get("to", data.get("pose"))
        return Reform(Pose.from_json(to), data.get("files"), data.get("ranks"))
    raise ValueError(f"unknown path step kind {kind!r}")


def replay(form: Formation, start: Pose, steps: list[Step]) -> list[Pose]:
    """The pose after each step."""
    poses = []
    pose = start
    for step in steps:
        pose = step.apply(form, pose)
        poses.append(pose)
    return poses


def path_length_mm(form: Formation, steps: list[Step]) -> float:
    return sum(step.length_mm(form) for step in steps)
