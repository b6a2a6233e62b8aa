"""Tray poses from tray markers: from a marker's corners to the unit's pose.

1. The marker's four corners are mapped to the table at the marker's height (parallax
   corrected). A quad must then be the printed size and square, else it is another thing that
   happened to decode as that id (a whole tray with a white sticker can): it is rejected.
2. Centre = diagonal intersection; facing = the mean direction of the marker's two side edges
   and of its top and bottom edges turned by 90 degrees (its top edge points to the unit's
   front); the unit centre is the marker centre minus ``marker_offset_mm`` in the unit frame.

The tray's outline (:mod:`vision.outline`) may then refine the pose, and
:mod:`vision.uncertainty` says how far either can be off.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geometry import Pose, normalize_deg

from .markers import UnitMarker
from .table import TableView

SIZE_TOL = 0.12  # relative tolerance on the marker's printed size
SQUARE_TOL_DEG = 8.0  # tolerance on the marker's corner angles


@dataclass
class MarkerFix:
    """A tray marker measured on the table."""

    centre: np.ndarray
    facing: float
    side_mm: float
    corners_mm: np.ndarray
    px_per_mm: float
    problem: str | None = None


def measure_marker(raw: np.ndarray, view: TableView, unit: UnitMarker) -> MarkerFix:
    """Marker corners (raw pixels, ArUco order) to its pose on the table at its height, with a
    ``problem`` when the quad is not the printed square."""
    return measure_markers([raw], view, [unit])[0]


def measure_markers(raws: list[np.ndarray], view: TableView,
                    units: list[UnitMarker]) -> list[MarkerFix]:
    """:func:`measure_marker` for every tray marker of a photo in one set of array operations
    (one table projection for all corners; a call per marker cost ~0.6 ms of numpy
    overhead)."""
    if not raws:
        return []
    raw = np.asarray(raws, np.float64).reshape(-1, 4, 2)
    z = np.repeat([u.height_mm for u in units], 4)
    q = view.to_table(raw.reshape(-1, 2), z).reshape(-1, 4, 2)
    sides = np.linalg.norm(q - np.roll(q, -1, axis=1), axis=2)
    side = sides.mean(axis=1)
    px_side = np.linalg.norm(raw - np.roll(raw, -1, axis=1), axis=2).mean(axis=1)
    # Corner angles: corner k between the edges to corners k-1 and k+1.
    va, vb = np.roll(q, 1, axis=1) - q, np.roll(q, -1, axis=1) - q
    cos = np.einsum("mkj,mkj->mk", va, vb) / (np.linalg.norm(va, axis=2)
                                             * np.linalg.norm(vb, axis=2))
    ang = np.degrees(np.arccos(np.clip(cos, -1, 1)))
    centre, facing_rad = quad_poses(q)
    facing = np.degrees(facing_rad)
    out = []
    for i, unit in enumerate(units):
        size = unit.marker_size_mm
        problem = None
        if (abs(side[i] - size) > SIZE_TOL * size
                or np.any(np.abs(sides[i] - size) > 1.5 * SIZE_TOL * size)):
            problem = (f"marker {unit.marker} ('{unit.id}') measures {side[i]:.1f} mm on the "
                       f"table, not {size:g} mm: " + _size_cause(side[i] / size, size)
                       + ", rejected")
        else:
            off = np.flatnonzero(np.abs(ang[i] - 90) > SQUARE_TOL_DEG)
            if off.size:
                problem = (f"marker {unit.marker} ('{unit.id}') is not square on the table "
                           f"(a corner of {ang[i, off[0]]:.0f} degrees): rejected")
        out.append(MarkerFix(centre[i], float(facing[i]), float(side[i]), q[i],
                             float(px_side[i] / side[i]), problem))
    return out


def _size_cause(ratio: float, size: float) -> str:
    """Why a marker measures ``ratio`` times its printed size, in words. Larger by up to 40%:
    its corners may have been found on the white margin round it (nested squares, the tray
    dark outside the margin: both decode as the marker), which a wider margin cures, or it is
    printed at another scale (outside testing round 4, F3)."""
    if 1 < ratio <= 1.4:
        margin = max(3.0, size / 6)
        return (f"its corners were found on the white margin round it (cut it with a wider "
                f"margin, {margin:.0f} mm or more) or it is printed larger than markers.json "
                "says, or it is not that tray's marker")
    return "not that tray's marker (or printed at another scale)"


def quad_poses(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centres (M, 2) and facings (M,, radians) of marker quads (M, 4, 2) on the table, corners
    in ArUco order: the centre is where the diagonals cross (a perspective-true centre even
    before the lift to the marker's height), the facing the mean direction of the two side
    edges and of the top and bottom edges turned by 90 degrees (the top edge points to the
    unit's front)."""
    # Diagonal intersection: q0 + s (q2 - q0) = q1 + u (q3 - q1).
    d1, d2, rhs = q[:, 2] - q[:, 0], q[:, 3] - q[:, 1], q[:, 1] - q[:, 0]
    det = d2[:, 0] * d1[:, 1] - d1[:, 0] * d2[:, 1]
    ok = np.abs(det) > 1e-12
    s = (d2[:, 0] * rhs[:, 1] - rhs[:, 0] * d2[:, 1]) / np.where(ok, det, 1.0)
    centre = np.where(ok[:, None], q[:, 0] + s[:, None] * d1, q.mean(axis=1))

    # Top edge towards the unit's front: TL-BL and TR-BR point forward, TL->TR is "right".
    def unit_vec(v: np.ndarray) -> np.ndarray:
        return v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-12)

    def turn_left(v: np.ndarray) -> np.ndarray:
        return np.stack([-v[:, 1], v[:, 0]], axis=1)

    fwd = (unit_vec(q[:, 0] - q[:, 3]) + unit_vec(q[:, 1] - q[:, 2])
           + turn_left(unit_vec(q[:, 1] - q[:, 0])) + turn_left(unit_vec(q[:, 2] - q[:, 3])))
    return centre, np.arctan2(fwd[:, 1], fwd[:, 0])


def unit_centres(centre: np.ndarray, facing_rad: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Unit boundary centres (M, 2): marker centres minus their offsets (x right, y forward)
    in each unit's frame."""
    c, s = np.cos(facing_rad), np.sin(facing_rad)
    ox, oy = offsets[:, 0], offsets[:, 1]
    return centre - np.stack([ox * s + oy * c, -ox * c + oy * s], axis=1)


def pose_from_marker(fix: MarkerFix, unit: UnitMarker) -> Pose:
    """The unit boundary centre: the marker centre minus its offset in the unit frame."""
    ox, oy = unit.marker_offset_mm
    p = Pose(0.0, 0.0, fix.facing)
    dx, dy = p.to_world(ox, oy)
    return Pose(float(fix.centre[0] - dx), float(fix.centre[1] - dy), normalize_deg(fix.facing))
