"""Accidental contact with a fleeing enemy in the charge's path (tow 1.5, Accidental Contact
During a Charge, Halting a Charge, Continuing Ahead; RULES-editions.md 6, special_charge's
"accidental contact: halt / continue").

A unit that fled earlier in the phase may stand across a charger's path. The charger first
wheels to avoid it and still complete the charge, if it can: that is the ordinary search, in
which such a unit is an obstacle like any other (and never a second target, for it was not
charged). Only when no legal move reaches the target for the roll made, but one would were the
fleeing unit not there, does accidental contact apply. The charger then moves along that move
(the best by 1.4 with the fleeing units lifted off the table) until it meets the first of them,
and by the request's ``on_accidental_contact``:

- ``halt`` (the default, [D]): it stops 1" from that unit (the first point of the move at
  which any part of it would come nearer); this is not a failed charge;
- ``continue``: it moves on into contact, aligns to the side it met (the free wheel of
  Aligning to the Enemy, about the contact point, if its front edge may sweep there) and runs
  the fleeing unit down: that unit is destroyed, and the charger cannot reform.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import shapely
import shapely.ops

import geometry as g

from .charge_move import ChargeMove
from .front_edge import strip_of
from .world import World

Choice = Literal["halt", "continue"]
CHOICES: tuple[Choice, ...] = ("halt", "continue")
#: tow 1.5: a halted charger stops 1" from the unit it met.
HALT_GAP_MM = 25.4
#: Bisection halvings of a step's fraction (under 1e-7 of a step).
HALVINGS = 24


@dataclass
class Accidental:
    """A charge met by a fleeing enemy: the move it was making and what became of it."""

    blocker: str
    choice: Choice
    #: The move the charger was making, through where the fleeing unit stands.
    through: ChargeMove
    steps: list[g.Step]
    final: g.Pose
    #: Moved (mm of paid path) before it stopped or met the unit.
    moved_mm: float
    #: ``continue`` only: whether the charger could align to the unit it ran down.
    aligned: bool = False

    def to_json(self) -> dict:
        return {"unit": self.blocker, "choice": self.choice,
                "moved_mm": round(self.moved_mm, 3),
                "moved_in": round(g.mm_to_in(self.moved_mm), 3),
                "through_path_mm": round(self.through.length_mm, 3),
                "through_path_in": round(g.mm_to_in(self.through.length_mm), 3),
                **({"aligned": self.aligned} if self.choice == "continue" else {})}


def fleeing_blockers(scene: g.Scene, world: World, target: str) -> set[str]:
    """The fleeing enemies in the charger's world (other than its target)."""
    ids = {o.id for o in world.obstacles if o.kind == "enemy" and o.id != target}
    return {u.id for u in scene.units if u.id in ids and u.state == "fleeing"}


def _partial(step: g.Step, frac: float) -> g.Step:
    if isinstance(step, g.Forward):
        return g.Forward(step.distance_mm * frac)
    if isinstance(step, g.Wheel):
        return g.Wheel(step.pivot, step.angle_deg * frac)
    if isinstance(step, g.Align):
        return g.Align(step.pivot_point, step.angle_deg * frac)
    return step


def _meets(area: shapely.Geometry, polys: dict[str, shapely.Geometry], gap: float) -> str | None:
    for uid, poly in polys.items():
        if shapely.dwithin(area, poly, gap):
            return uid
    return None


def _cut(form: g.Formation, start: g.Pose, steps: list[g.Step],
         polys: dict[str, shapely.Geometry], gap: float
         ) -> tuple[list[g.Step], g.Pose, str | None]:
    """``steps`` from ``start`` up to the first point where the unit would come within
    ``gap`` of one of ``polys``: (the steps made, the pose, the unit met or None)."""
    pose = start
    done: list[g.Step] = []
    for step in steps:
        hit = _meets(step.swept(form, pose), polys, gap)
        if hit is None:
            done.append(step)
            pose = step.apply(form, pose)
            continue
        lo, hi = 0.0, 1.0
        for _ in range(HALVINGS):
            mid = (lo + hi) / 2
            if _meets(_partial(step, mid).swept(form, pose), {hit: polys[hit]}, gap) is None:
                lo = mid
            else:
                hi = mid
        part = _partial(step, lo)
        if abs(getattr(part, "distance_mm", 0.0)) > 1e-9 or \
                abs(getattr(part, "angle_deg", 0.0)) > 1e-9:
            done.append(part)
            pose = part.apply(form, pose)
        return done, pose, hit
    return done, pose, None


def _paid(form: g.Formation, steps: list[g.Step]) -> float:
    return sum(s.length_mm(form) for s in steps)


def _align_to(charger: g.Unit, pose: g.Pose, poly: shapely.Geometry, world: World
              ) -> g.Align | str | None:
    """The free align onto the side of ``poly`` the charger's front has met (tow 1.4,
    Aligning to the Enemy): about the contact point, turning the least way that makes the
    charger face squarely into a side of the unit there; ``"flush"`` if it is flush already,
    None if its front edge cannot sweep there or its footprint not fit."""
    form = charger.formation
    front = shapely.LineString(_front_corners(form, pose))
    _, p_poly = shapely.ops.nearest_points(front, poly.exterior)
    pivot = (p_poly.x, p_poly.y)
    coords = list(poly.exterior.coords)[:-1]
    best: float | None = None
    for a, b in zip(coords, coords[1:] + coords[:1], strict=True):
        if shapely.LineString([a, b]).distance(p_poly) > 10 * g.EPS_MM:
            continue
        heading = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
        for want in (heading + 90.0, heading - 90.0):
            w = math.radians(want)
            mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            inside = shapely.Point(mid[0] + 1e-3 * math.cos(w), mid[1] + 1e-3 * math.sin(w))
            if not poly.contains(inside):
                continue  # facing out of the unit, not into that side
            diff = g.normalize_deg(want - pose.facing)
            if abs(diff) <= 90.0 and (best is None or abs(diff) < abs(best)):
                best = diff
    if best is None:
        return None
    if abs(best) < 1e-6:
        return "flush"
    step = g.Align(pivot, best)
    mover, _ = strip_of(charger.placed(pose))
    if world.blocked(step.swept(mover.formation, mover.pose)) is not None:
        return None
    if world.blocked(g.boundary(form, step.apply(form, pose))) is not None:
        return None
    return step


def _front_corners(form: g.Formation, pose: g.Pose) -> list[tuple[float, float]]:
    fx, fy = pose.forward
    rx, ry = fy, -fx  # to the right of the facing
    w, d = form.width / 2, form.depth / 2
    cx, cy = pose.x + fx * d, pose.y + fy * d
    return [(cx - rx * w, cy - ry * w), (cx + rx * w, cy + ry * w)]


def meets(scene: g.Scene, charger: g.Unit, through: ChargeMove, blockers: set[str]) -> bool:
    """Whether ``through`` touches one of the ``blockers`` on its way."""
    polys = {b: scene.unit(b).body.polygon for b in sorted(blockers)}
    return _cut(charger.formation, charger.pose, through.steps, polys, 0.0)[2] is not None


def accidental_move(scene: g.Scene, charger: g.Unit, through: ChargeMove,
                    blockers: set[str], world: World, choice: Choice) -> Accidental | None:
    """What becomes of ``through`` when the fleeing ``blockers`` stand where they do (module
    doc); None if it never meets one of them."""
    form = charger.formation
    polys = {b: scene.unit(b).body.polygon for b in sorted(blockers)}
    gap = HALT_GAP_MM if choice == "halt" else 0.0  # continue: up to touching
    steps, pose, hit = _cut(form, charger.pose, through.steps, polys, gap)
    if hit is None:
        return None
    moved = _paid(form, steps)
    if choice == "halt":
        return Accidental(hit, choice, through, steps, pose, moved)
    # Continue: on into contact (the cut stopped a hair short of touching), then align.
    step = _align_to(charger, pose, polys[hit], world.without({hit}))
    aligned = step is not None and not isinstance(step, str)
    if aligned:
        steps = [*steps, step]  # type: ignore[list-item]
        pose = step.apply(form, pose)  # type: ignore[union-attr]
    return Accidental(hit, choice, through, steps, pose, moved, aligned or step == "flush")


def cut_to_length(form: g.Formation, start: g.Pose, steps: list[g.Step], length_mm: float
                  ) -> tuple[list[g.Step], g.Pose]:
    """``steps`` from ``start`` as far as ``length_mm`` of movement pays for (a wheel costs
    its outer corner's arc, an align nothing): the last step paid cut short."""
    pose, left = start, length_mm
    done: list[g.Step] = []
    for step in steps:
        cost = step.length_mm(form)
        if cost <= left + 1e-9:
            done.append(step)
            pose = step.apply(form, pose)
            left -= cost
            continue
        if left > 1e-9:
            part = _partial(step, left / cost)
            done.append(part)
            pose = part.apply(form, pose)
        break
    return done, pose


def path_towards(scene: g.Scene, charger: g.Unit, along: ChargeMove, distance_mm: float,
                 world: World, gap_mm: float) -> tuple[list[g.Step], g.Pose, str | None]:
    """tow 1.7 [D]: the full-range move of a charger whose fleeing target escaped follows
    the best charge path towards it (``along``, its closing align left out) for
    ``distance_mm``, stopped at the first point within ``gap_mm`` of an enemy (the fled target
    included; those already that near at the start are not counted): the steps, the pose and
    what stopped it."""
    form = charger.formation
    moves = [s for s in along.steps if not isinstance(s, g.Align)]
    steps, _ = cut_to_length(form, charger.pose, moves, distance_mm)
    here = g.boundary(form, charger.pose)
    polys = {o.id: o.polygon for o in world.obstacles if o.kind in ("enemy", "target") and
             not shapely.dwithin(o.polygon, here, gap_mm)}
    steps, pose, hit = _cut(form, charger.pose, steps, polys, gap_mm)
    return steps, pose, hit
