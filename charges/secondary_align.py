"""Other enemies the charge touches must align to the charger (tow 1.5, Several targets:
"enemies the charger cannot align to must align to it, and the charge counts as disordered
against those units only"; whfb8 2.5 handles several targets as tow 1.5).

The charger aligns to its target (charges/search.py); a secondary target it touches at an
angle turns instead, about the contact point and as little as possible (the [D] of tow 1.5 for
a target that aligns), until one of its sides lies flush on the side of the charger it touches.
The whole turn is swept, as the target's own turn is (charges/exact_check.py): if something
blocks it, the unit stays where it is and the gap is left. An engaged unit is never a secondary
target (charges/secondary.py), so none here moves out of a fight.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import geometry as g
from geometry.formation import boundary_coords
from geometry.pose import Point

from .world import World

#: A secondary whose side is within this of flush needs no turn (degrees).
FLUSH_DEG = 1e-4


@dataclass(frozen=True)
class SecondaryAlign:
    """How one secondary target, touched at an angle, aligns to the charger."""

    unit: str
    pivot: tuple[float, float]
    #: The least turn that lays it flush (degrees, counter-clockwise positive).
    turn_deg: float
    #: Where it ends; None when something blocks the turn (then it stays, the gap is left).
    final: g.Pose | None
    blocked: str | None = None


def _sides(corners: list[Point]) -> list[tuple[Point, Point]]:
    return [(corners[i], corners[(i + 1) % len(corners)]) for i in range(len(corners))]


def _on_segment(p: Point, a: Point, b: Point) -> bool:
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)))
    return math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1]) <= g.EPS_MM


def _normal_deg(a: Point, b: Point) -> float:
    """The outward normal of side a -> b of a counter-clockwise ring, as an angle."""
    return math.degrees(math.atan2(-(b[0] - a[0]), b[1] - a[1]))


def least_flush_turn(charger: list[Point], other: list[Point]
                     ) -> tuple[Point, float] | None:
    """The contact point and the least turn of ``other`` about it (degrees, counter-clockwise)
    that lays a side of ``other`` through that point on a side of ``charger`` through it,
    facing it (outward normals opposed); None when the two do not touch. Both are
    counter-clockwise corner rings. A contact point is a corner of one lying on a side of the
    other: only there can either turn about it and stay in contact."""
    best: tuple[float, Point, float] | None = None
    for p in [*other, *charger]:
        mine = [_normal_deg(a, b) for a, b in _sides(charger) if _on_segment(p, a, b)]
        theirs = [_normal_deg(a, b) for a, b in _sides(other) if _on_segment(p, a, b)]
        for m in mine:
            for n in theirs:
                turn = g.normalize_deg(m + 180.0 - n)
                if best is None or abs(turn) < best[0] - 1e-12:
                    best = (abs(turn), p, turn)
    return None if best is None else (best[1], best[2])


def align_secondary(scene: g.Scene, charger: g.Unit, unit: g.Unit) -> SecondaryAlign | None:
    """How ``unit``, touched by ``charger`` where it ended, aligns to it (module doc); None
    when it is already flush, or not touched at all. ``scene`` holds every unit where the
    charge leaves it (the charger and a turned target at their final poses)."""
    cc = boundary_coords(charger.formation, charger.pose)
    uc = boundary_coords(unit.formation, unit.pose)
    found = least_flush_turn(cc, uc)
    if found is None or abs(found[1]) <= FLUSH_DEG:
        return None
    pivot, turn = found
    final = unit.pose.rotated(pivot, turn)
    world = World.for_unit(scene, unit, ignore=frozenset({charger.id}))
    blk = world.blocked(g.rotation_sweep(uc, pivot, turn))
    if blk is not None:
        return SecondaryAlign(unit.id, pivot, turn, None, blk.describe())
    if g.contact.rect_overlap_depth(cc, boundary_coords(unit.formation, final)) > g.EPS_MM:
        return SecondaryAlign(unit.id, pivot, turn, None, f"{charger.id} itself")
    return SecondaryAlign(unit.id, pivot, turn, final)


def align_secondaries(scene: g.Scene, charger: g.Unit, ids: tuple[str, ...]
                      ) -> list[SecondaryAlign]:
    """Each secondary target touched at an angle, aligned in turn (sorted by id, as listed):
    each sees where the ones before it ended."""
    units = {u.id: u for u in scene.units}
    out = []
    for sid in ids:
        a = align_secondary(g.Scene.model_construct(table=scene.table, terrain=scene.terrain,
                                                    units=list(units.values())),
                            charger, units[sid])
        if a is None:
            continue
        out.append(a)
        if a.final is not None:
            units[sid] = units[sid].placed(a.final)
    return out
