"""Poses: the centre of a unit boundary plus its facing (DESIGN.md, Conventions).

Angles are degrees, counter-clockwise from +x. A unit's local frame has ``u`` to the unit's
right and ``v`` forward, with the origin at the boundary centre.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Point = tuple[float, float]


def normalize_deg(angle: float) -> float:
    """Angle in (-180, 180]."""
    a = math.fmod(angle, 360.0)
    if a <= -180.0:
        a += 360.0
    elif a > 180.0:
        a -= 360.0
    return a


def rotate_point(p: Point, centre: Point, angle_deg: float) -> Point:
    """Rotate ``p`` counter-clockwise about ``centre``."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    dx, dy = p[0] - centre[0], p[1] - centre[1]
    return (centre[0] + c * dx - s * dy, centre[1] + s * dx + c * dy)


@dataclass(frozen=True, slots=True)
class Pose:
    """Centre of the unit boundary (mm, table frame) and facing (degrees)."""

    x: float
    y: float
    facing: float

    @property
    def centre(self) -> Point:
        return (self.x, self.y)

    @property
    def forward(self) -> Point:
        a = math.radians(self.facing)
        return (math.cos(a), math.sin(a))

    @property
    def right(self) -> Point:
        a = math.radians(self.facing)
        return (math.sin(a), -math.cos(a))

    def to_world(self, u: float, v: float) -> Point:
        """Local (right, forward) coordinates to table coordinates."""
        fx, fy = self.forward
        rx, ry = self.right
        return (self.x + u * rx + v * fx, self.y + u * ry + v * fy)

    def to_local(self, p: Point) -> Point:
        """Table coordinates to local (right, forward) coordinates."""
        fx, fy = self.forward
        rx, ry = self.right
        dx, dy = p[0] - self.x, p[1] - self.y
        return (dx * rx + dy * ry, dx * fx + dy * fy)

    def moved(self, dx: float, dy: float) -> Pose:
        return Pose(self.x + dx, self.y + dy, self.facing)

    def rotated(self, centre: Point, angle_deg: float) -> Pose:
        """This pose rotated rigidly about ``centre`` (facing turns by the same angle)."""
        x, y = rotate_point(self.centre, centre, angle_deg)
        return Pose(x, y, normalize_deg(self.facing + angle_deg))

    def to_json(self) -> dict[str, float]:
        # (+ 0.0: a facing of -1e-12 rounds to -0.0, which JSON would print as "-0.0".)
        return {"x": round(self.x, 4) + 0.0, "y": round(self.y, 4) + 0.0,
                "facing": round(self.facing, 5) + 0.0}

    @classmethod
    def from_json(cls, data: dict) -> Pose:
        return cls(float(data["x"]), float(data["y"]), float(data["facing"]))

    def close_to(self, other: Pose, tol_mm: float = 0.01, tol_deg: float = 0.001) -> bool:
        return (
            math.hypot(self.x - other.x, self.y - other.y) <= tol_mm
            and abs(normalize_deg(self.facing - other.facing)) <= tol_deg
        )
