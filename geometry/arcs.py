"""Arcs of a unit (RULES.md 1).

From each corner of the boundary a ray points away from the unit at 45 degrees to both edges
meeting there; the four rays cut the plane into the front, right, rear and left arcs, each
bounded by its facing. They are not the extended diagonals (those agree only for squares).
"""

from __future__ import annotations

import math

import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from .constants import ARC_RAY_MM, EPS_MM, OVERLAY_GRID_MM
from .formation import FACINGS, FacingName, Formation, corners
from .pose import Point, Pose

_S = 1 / math.sqrt(2)


def _ray_dirs(pose: Pose) -> dict[str, Point]:
    fx, fy = pose.forward
    rx, ry = pose.right
    return {
        "front_left": ((fx - rx) * _S, (fy - ry) * _S),
        "front_right": ((fx + rx) * _S, (fy + ry) * _S),
        "rear_right": ((-fx + rx) * _S, (-fy + ry) * _S),
        "rear_left": ((-fx - rx) * _S, (-fy - ry) * _S),
    }


_ARC_CORNERS: dict[FacingName, tuple[str, str]] = {
    "front": ("front_left", "front_right"),
    "right": ("front_right", "rear_right"),
    "rear": ("rear_right", "rear_left"),
    "left": ("rear_left", "front_left"),
}


def arc_ring(form: Formation, pose: Pose, facing: FacingName, reach: float = ARC_RAY_MM,
             c: dict | None = None, d: dict | None = None) -> list[Point]:
    """The corners of one arc, clipped where its rays reach ``reach`` mm (a convex
    quadrilateral), without building a polygon."""
    c = corners(form, pose) if c is None else c
    d = _ray_dirs(pose) if d is None else d
    a, b = _ARC_CORNERS[facing]
    pa, pb = c[a], c[b]  # type: ignore[index]
    da, db = d[a], d[b]
    return [pa, pb, (pb[0] + reach * db[0], pb[1] + reach * db[1]),
            (pa[0] + reach * da[0], pa[1] + reach * da[1])]


def arc_polygons(form: Formation, pose: Pose, reach: float = ARC_RAY_MM) -> dict[FacingName,
                                                                                 Polygon]:
    """The four arcs as polygons, each clipped where its rays reach ``reach`` mm."""
    c = corners(form, pose)
    d = _ray_dirs(pose)
    rings = [arc_ring(form, pose, facing, reach, c, d) for facing in _ARC_CORNERS]  # type: ignore[arg-type]
    # The four polygons in one call: a charge map and every ruling build many.
    return dict(zip(_ARC_CORNERS, shapely.polygons(rings).tolist(), strict=True))


def arc_shares(form: Formation, pose: Pose, geom: BaseGeometry,
               arcs: dict[FacingName, Polygon] | None = None) -> dict[FacingName, float]:
    """Share of ``geom``'s area lying in each arc (RULES.md 1, seed figure 4); ``arcs`` when the
    caller already has them (``Body.arcs``)."""
    area = geom.area
    if area <= 0:
        raise ValueError("arc shares need a geometry with area")
    arcs = arcs if arcs is not None else arc_polygons(form, pose)
    cut = shapely.area(shapely.intersection([arcs[name] for name in FACINGS], geom,
                                            grid_size=OVERLAY_GRID_MM)).tolist()
    return {name: a / area for name, a in zip(FACINGS, cut, strict=True)}


def arcs_of_point(form: Formation, pose: Pose, p: Point, tol: float = EPS_MM) -> set[FacingName]:
    """The arcs holding a point, closed form. A point on a ray is in both arcs; a point
    inside the boundary is in none."""
    u, v = pose.to_local(p)
    w, d = form.width / 2, form.depth / 2
    out: set[FacingName] = set()
    if v >= d - tol and v - d >= abs(u) - w - tol:
        out.add("front")
    if v <= -d + tol and -v - d >= abs(u) - w - tol:
        out.add("rear")
    if u >= w - tol and u - w >= abs(v) - d - tol:
        out.add("right")
    if u <= -w + tol and -u - w >= abs(v) - d - tol:
        out.add("left")
    return out


def in_front_arc(form: Formation, pose: Pose, geom: BaseGeometry) -> bool:
    """Whether ``geom`` lies at least partly inside the front arc (RULES.md 2)."""
    return arc_polygons(form, pose)["front"].intersects(geom)
