"""Units and the one tolerance (DESIGN.md, Conventions)."""

from __future__ import annotations

#: Every geometric test uses this one tolerance: closer than this is touching, touching is
#: contact, and overlapping by more than this is overlap (DESIGN.md, Conventions).
EPS_MM = 0.01

#: Rule distances are inches at the interface; inside, everything is millimetres.
MM_PER_INCH = 25.4

#: Swept areas of rotations are polygons that contain the true swept region and exceed it by at
#: most this much (half the tolerance, so a sweep that misses an obstacle by EPS_MM truly misses).
SWEEP_TOL_MM = EPS_MM / 2

#: Snap-rounding grid for area overlays (intersection/union areas). GEOS's floating overlay can
#: silently return a wrong result when two inputs carry vertices ~1e-14 mm apart (a corner
#: rebuilt from a pose next to the same corner rotated); snap rounding on this grid is robust
#: and moves nothing by a measurable amount.
OVERLAY_GRID_MM = 1e-9

#: Length of the arc rays (RULES.md 1): longer than any table diagonal, so an arc polygon
#: clipped at this distance behaves as the infinite wedge on the table.
ARC_RAY_MM = 100_000.0


def mm_to_in(mm: float) -> float:
    return mm / MM_PER_INCH


def in_to_mm(inches: float) -> float:
    return inches * MM_PER_INCH
