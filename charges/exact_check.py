"""The exact test of one candidate path (RULES.md 4): every step swept, the align too, the
target's turn when it is the target that aligns."""

from __future__ import annotations

from dataclasses import dataclass

import shapely

import geometry as g
from geometry.formation import boundary_coords

from .candidates import Candidate
from .facing_frame import EPS
from .world import Blocked, World

#: Families whose align can never overlap the target (|align| <= 90): the pivot is a charger
#: front corner on the facing, and the charger turns down onto the facing from outside it, so
#: every point of the swept area stays on the outer side of the facing line (with u along the
#: front from the pivot and v back from it, the depth into the target is -u sin(phi) -
#: v cos(phi) <= 0 for every angle phi passed, given the align's sign). Their align needs only
#: the rest of the world, and a bounding box clear of it spares the exact sweep (test:
#: test_search_geometry).
ALIGN_OUTSIDE_TARGET = ("charger_left", "charger_right")


@dataclass
class Attempt:
    """The outcome of checking one candidate."""

    ok: bool
    blocked: Blocked | None = None
    stage: str = ""


def check_candidate(form: g.Formation, start: g.Pose, cand: Candidate, target: g.Body,
                    world: World, target_turns: bool = False,
                    target_world: World | None = None, align: bool = True,
                    end_form: g.Formation | None = None) -> Attempt:
    """Sweep the candidate's path and the align (``align=False``: the path to first contact
    alone, where nobody aligns and the gap stays, tow 1.5); cheap tests first. ``end_form``:
    ``form`` is the front-edge strip of that formation (front_edge.py), whose whole footprint
    must also be clear where the charger ends (tow 1.4: "the final footprint may not overlap
    anything")."""
    pre_coords = boundary_coords(form, cand.pre_align)
    tgt_coords = boundary_coords(target.form, target.pose)
    # First contact must be a touch, not an overlap, and must actually touch.
    if g.contact.rect_overlap_depth(pre_coords, tgt_coords) > EPS:
        return Attempt(False, None, "overlaps the target on arrival")
    pre_poly = g.polygon_of(pre_coords)
    if not shapely.dwithin(pre_poly, target.polygon, EPS):
        return Attempt(False, None, "does not reach the target")
    # Boxes first: an area whose bounding box clears every obstacle needs no exact test. The
    # final and contact positions lie outside the target by construction (flush with, or
    # just touching, its facing; the arrival overlap was tested above), so for them the
    # target may be left out of the box test.
    final_poly = g.boundary(form, cand.final) if align and not target_turns else pre_poly
    if not world.box_clear(final_poly.bounds, ignore_target=True):
        blk = world.blocked(final_poly)
        if blk:
            return Attempt(False, blk, "final position")
    if not world.box_clear(pre_poly.bounds, ignore_target=True):
        blk = world.blocked(pre_poly)
        if blk:
            return Attempt(False, blk, "contact position")
    if end_form is not None:
        # The strip's front is the unit's: the unit's centre stands behind the strip's.
        end = cand.final if align and not target_turns else cand.pre_align
        whole = g.boundary(end_form, g.forward(end, -(end_form.depth - form.depth) / 2))
        if not world.box_clear(whole.bounds, ignore_target=True):
            blk = world.blocked(whole)
            if blk:
                return Attempt(False, blk, "final position")
    pose = start
    for step in cand.steps():
        if not world.box_clear(step.bounds(form, pose)):
            blk = world.blocked(step.swept(form, pose), sweep=True)
            if blk:
                return Attempt(False, blk, step.kind)
        pose = step.apply(form, pose)
    if align and cand.align_point is not None and abs(cand.align_deg) > 1e-9:
        if target_turns:
            assert target_world is not None
            sweep = g.rotation_sweep(tgt_coords, cand.align_point, -cand.align_deg)
            blk = target_world.blocked(sweep, sweep=True)
            if blk:
                return Attempt(False, blk, "target turn")
            moved = [g.rotate_point(p, cand.align_point, -cand.align_deg) for p in tgt_coords]
            if g.contact.rect_overlap_depth(pre_coords, moved) > EPS:
                return Attempt(False, None, "target turn overlaps the charger")
        elif not (cand.family in ALIGN_OUTSIDE_TARGET and abs(cand.align_deg) <= 90 and
                  world.box_clear(g.rotation_bounds(pre_coords, cand.align_point,
                                                    cand.align_deg), ignore_target=True)):
            sweep = g.rotation_sweep(pre_coords, cand.align_point, cand.align_deg)
            blk = world.blocked(sweep, sweep=True)
            if blk:
                return Attempt(False, blk, "align")
    return Attempt(True)
