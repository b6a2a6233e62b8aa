"""Independent checker of charge rulings (issue 3, "How it is checked").

``check_ruling(request, ruling)`` judges a ruling made by ``charges.rule`` using only the
``geometry`` primitives: it replays every ``path`` step, sweeps it, and checks the outcome's
claims (RULES.md 1-8, DESIGN.md "What done means for a ruling"). It raises ``AssertionError``
listing every violation found. Nothing here imports the engine's internals: the only thing
taken from ``charges`` is ``charges.rule`` itself, in :func:`rule_and_check`.

Sequence of moves: charges against different targets are resolved one target after another,
in the order the targets first appear in the request; the chargers of one target (a multiple
charge, RULES.md 8) move in an order the engine chooses and does not report, so the checker
accepts the ruling when *some* order of that group's moves passes every check (it reports the
violations of the listed order otherwise). A charge ruled without dice (``outcome`` null) still
shows its chosen move: that path is checked like a success, but it moves nothing in ``units``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

import numpy as np
import shapely
from shapely.geometry import Polygon

import geometry as g

POSE_TOL_MM = 0.01
POSE_TOL_DEG = 0.001
#: Rulings round poses to 1e-4 mm and 1e-5 degrees; shares to 4 decimals.
SHARE_TOL = 2e-3
EPS = g.EPS_MM
MOVED = ("success", "caught_fleeing", "special", "failed", "target_escaped", "halted",
         "ran_down")


@dataclass(frozen=True)
class Rules:
    """What the checker asks of the ruleset (DESIGN.md, Rulesets): what is swept, what the
    roll is compared with, how the facing is found, how far a failed move ends from enemies.
    It asks only these data; every check is its own."""

    name: str
    swept: str
    range_measure: str
    facing_rule: str
    failed_gap_mm: float
    gap_from_enemies_only: bool
    column_cannot_charge: bool
    #: Other enemies touched at an angle align to the charger (tow 1.5, whfb8 2.5), listed
    #: under ``secondary_flag`` when the ruleset names them.
    secondary_aligns: bool = False
    secondary_flag: str | None = None

    @classmethod
    def of(cls, name: str) -> Rules:
        import charges

        r = charges.get_ruleset(name)
        return cls(r.name, r.swept, r.range_measure, r.facing_rule, r.failed_gap_mm,
                   r.gap_from_enemies_only, r.column_cannot_charge, r.secondary_aligns,
                   r.secondary_flag)

    def flee_total(self, unit: g.Unit, roll: list[int]) -> int:
        """What a flee roll adds up to by the ruleset's dice."""
        import charges

        return charges.get_ruleset(self.name).flee_dice(unit.swiftstride).total(roll)

    def max_roll(self, unit: g.Unit) -> int:
        """The largest total the unit's charge roll can give (the ruleset's dice)."""
        import charges

        return charges.get_ruleset(self.name).dice_for(unit).max_total

    def swept_area(self, step: g.Step, form: g.Formation, pose: g.Pose) -> Polygon:
        """The area a step sweeps: the whole boundary, or the front edge (a strip of the
        whole frontage, a hair deep, on the front edge)."""
        if self.swept != "front_edge" or isinstance(step, g.Turn):
            return step.swept(form, pose)
        strip = g.Formation.full((form.base_w, 0.2), form.files, 1)
        return step.swept(strip, g.forward(pose, (form.depth - 0.2) / 2))


@dataclass(frozen=True)
class _U:
    """One unit as the checker tracks it."""

    id: str
    side: str
    form: g.Formation
    pose: g.Pose
    state: str
    unit: g.Unit

    @property
    def poly(self) -> Polygon:
        return g.boundary(self.form, self.pose)


def _pose_str(p: g.Pose) -> str:
    return f"({p.x:.4f}, {p.y:.4f}, {p.facing:.5f} deg)"


def _close(a: g.Pose, b: g.Pose) -> bool:
    return a.close_to(b, POSE_TOL_MM, POSE_TOL_DEG)


def count_models_in_contact(form_a: g.Formation, pose_a: g.Pose, form_b: g.Formation,
                            pose_b: g.Pose, eps: float = EPS) -> tuple[int, int]:
    """Brute force over model rectangles: models of a (and of b) whose base lies within
    ``eps`` of some base of the other unit."""
    pa = np.array([p for _, _, p in g.model_bases(form_a, pose_a)], dtype=object)
    pb = np.array([p for _, _, p in g.model_bases(form_b, pose_b)], dtype=object)
    m = shapely.dwithin(pa[:, None], pb[None, :], eps)
    return int(m.any(axis=1).sum()), int(m.any(axis=0).sum())


def charged_side(target_form: g.Formation, target_pose: g.Pose, charger_poly: Polygon
                 ) -> tuple[dict[str, float], set[str]]:
    """Arc shares of the charger's boundary in the target's arcs and the facing(s) it hits
    (RULES.md 1: more than half; else the largest share; a tie goes to the flank). More than
    one facing only when the decision is within rounding of a tie."""
    arcs = g.arc_polygons(target_form, target_pose)
    area = charger_poly.area
    shares = {k: shapely.intersection(arcs[k], charger_poly, grid_size=1e-9).area / area
              for k in g.FACINGS}
    best = max(shares.values())
    near = {k for k, v in shares.items() if v >= best - 1e-6}
    if best > 0.5 + 1e-6:
        return shares, near
    flanks = near & {"left", "right"}
    return shares, (flanks or near)


def front_rank_sides(cform: g.Formation, cpose: g.Pose, tform: g.Formation, tpose: g.Pose
                     ) -> set[str]:
    """The arcs holding the most of the charger's front-rank model base centres (tow 1.1,
    whfb8 2.1; a centre on a ray counts half to each), counted here over the model bases."""
    arcs = g.arc_polygons(tform, tpose)
    counts = {k: 0.0 for k in g.FACINGS}
    for rank, _, base in g.model_bases(cform, cpose):
        if rank != 0:
            continue
        c = base.centroid
        inside = [k for k in g.FACINGS if arcs[k].distance(c) < 1e-6]
        for k in inside:
            counts[k] += 1 / len(inside)
    best = max(counts.values())
    return {k for k, v in counts.items() if abs(v - best) < 1e-6}


def _category(side: str) -> str:
    return "flank" if side in ("left", "right") else side


def _front_flush(cf: g.Formation, cp: g.Pose, tf: g.Formation, tp: g.Pose, side: str
                 ) -> str | None:
    """None when the charger's front lies on ``side`` of the target, antiparallel, sharing at
    least a point; else what is wrong."""
    n = g.facing_normal(tp, side)  # type: ignore[arg-type]
    fwd = cp.forward
    ang = math.degrees(math.atan2(fwd[0] * -n[1] - fwd[1] * -n[0], fwd[0] * -n[0] + fwd[1] * -n[1]))
    if abs(ang) > POSE_TOL_DEG:
        return f"its front is {ang:.4f} deg off parallel with the target's {side}"
    a, b = g.facing_segments(tf, tp)[side]  # type: ignore[index]
    c0, c1 = g.facing_segments(cf, cp)["front"]
    dists = [(p[0] - a[0]) * n[0] + (p[1] - a[1]) * n[1] for p in (c0, c1)]
    if max(abs(d) for d in dists) > EPS:
        return (f"its front is {max(dists, key=abs):.4f} mm off the line of the target's "
                f"{side}")
    ux, uy = -n[1], n[0]
    ta = sorted(((p[0] - a[0]) * ux + (p[1] - a[1]) * uy) for p in (a, b))
    tc = sorted(((p[0] - a[0]) * ux + (p[1] - a[1]) * uy) for p in (c0, c1))
    if tc[0] > ta[1] + EPS or ta[0] > tc[1] + EPS:
        return f"its front lies on the line of the target's {side} but beside it"
    return None


def _some_side_flush(a: _U, b: _U) -> bool:
    """Whether some side of ``b`` lies on a side of ``a``, facing it, sharing a point."""
    sa = g.facing_segments(a.form, a.pose)
    sb = g.facing_segments(b.form, b.pose)
    for na, (p0, p1) in sa.items():
        n = g.facing_normal(a.pose, na)  # type: ignore[arg-type]
        for nb, (q0, q1) in sb.items():
            m = g.facing_normal(b.pose, nb)  # type: ignore[arg-type]
            if n[0] * m[0] + n[1] * m[1] > -math.cos(math.radians(POSE_TOL_DEG)):
                continue
            if max(abs((q[0] - p0[0]) * n[0] + (q[1] - p0[1]) * n[1]) for q in (q0, q1)) > EPS:
                continue
            ux, uy = -n[1], n[0]
            ta = sorted((p[0] - p0[0]) * ux + (p[1] - p0[1]) * uy for p in (p0, p1))
            tb = sorted((q[0] - p0[0]) * ux + (q[1] - p0[1]) * uy for q in (q0, q1))
            if tb[0] <= ta[1] + EPS and ta[0] <= tb[1] + EPS:
                return True
    return False


def _reformed(u: _U, step: g.Step) -> _U:
    if isinstance(step, g.Reform) and step.files is not None and step.ranks is not None:
        n = u.unit.model_count
        files, ranks = int(step.files), int(step.ranks)
        rear = n - files * (ranks - 1)
        unit = u.unit.placed(step.pose, files=files, ranks=ranks, models=n,
                             rear_rank=list(range(rear)) if rear < files else "centre")
        return replace(u, form=unit.formation, unit=unit)
    return u


class _Trial:
    """One attempt at replaying a group of charges in a given order."""

    def __init__(self, scene: g.Scene, world: dict[str, _U], rules: Rules) -> None:
        self.scene = scene
        self.rules = rules
        self.world = dict(world)
        self.group_start = dict(world)
        self.errors: list[str] = []
        self.table_eps = scene.table.polygon.buffer(EPS, join_style="mitre")
        self.terrain = [t for t in scene.terrain if t.impassable]

    def check_contact_claim(self, where: str, e: dict, ch, other) -> tuple[int, int]:
        """The ruling's ``contact`` counts against a brute-force count over model rectangles,
        which is returned."""
        cm, tm = count_models_in_contact(ch.form, ch.pose, other.form, other.pose)
        contact = e.get("contact") or {}
        if (contact.get("charger_models"), contact.get("target_models")) != (cm, tm):
            self.err(where, f"contact claims {contact.get('charger_models')} + "
                     f"{contact.get('target_models')} models, the brute-force count over model "
                     f"rectangles gives {cm} + {tm}")
        return cm, tm

    def err(self, where: str, msg: str) -> None:
        self.errors.append(f"{where}: {msg}")

    def others(self, uid: str) -> list[_U]:
        return [u for u in self.world.values() if u.id != uid and u.state != "destroyed"]

    def check_area(self, where: str, uid: str, area, may_touch: set[str] | None,
                   on_table: bool = True) -> None:
        """``area`` of unit ``uid`` must stay on the table (unless ``on_table`` is False: a
        charge move's step may cross the table edge if the unit ends wholly on the table, tow
        1.4; RULES.md 4 and whfb8 2.4 list only units and impassable terrain) and overlap no
        unit nor impassable terrain; with ``may_touch`` given, it must not touch an enemy
        outside that set."""
        if on_table and not self.table_eps.covers(area):
            self.err(where, "leaves the table")
        for t in self.terrain:
            if g.overlapping(area, t.shape):
                self.err(where, f"overlaps impassable terrain '{t.id}'")
        me = self.world[uid]
        for u in self.others(uid):
            poly = u.poly
            if g.overlapping(area, poly):
                self.err(where, f"overlaps unit '{u.id}' at {_pose_str(u.pose)} by "
                         f"{g.penetration_mm(area.convex_hull, poly):.3f} mm (SAT on hull)")
            elif may_touch is not None and u.side != me.side and u.id not in may_touch \
                    and g.touching(area, poly):
                self.err(where, f"touches enemy unit '{u.id}', which is not the one charged "
                         f"(gap {area.distance(poly):.4f} mm)")

    def run_entry(self, i: int, entry: dict, apply: bool) -> None:
        """Replay one charge's path against the current world."""
        where = f"charges[{i}] ({entry.get('charger')} -> {entry.get('target')})"
        cid, tid = entry["charger"], entry["target"]
        outcome = entry.get("outcome")
        charged = entry.get("charged_unit") or tid
        has_move = bool(entry.get("path")) and outcome in ("success", "caught_fleeing",
                                                            "special", "ran_down", None)
        may_touch = {charged} if has_move else None
        if outcome == "halted":
            may_touch = set()  # tow 1.5: it stops 1 in short of the fleeing unit
        # RULES.md 4, unavoidable contact: a listed other enemy may be touched, but once
        # touched the charger stays in touch (each step touching it ends touching it).
        secondary = set(entry.get("secondary_targets") or []) if has_move else set()
        start = self.world[cid].pose
        if "start" in entry and entry["start"] is not None and \
                not _close(g.Pose.from_json(entry["start"]), start):
            self.err(where, f"start {entry['start']} is not the charger's pose "
                     f"{_pose_str(start)}")
        local = dict(self.world)
        saved = self.world
        self.world = local
        for k, sj in enumerate(entry.get("path") or []):
            sw = f"{where} path[{k}] {sj.get('kind')}"
            uid = sj.get("unit", cid)
            if uid not in local:
                self.err(sw, f"moves unknown unit {uid!r}")
                continue
            try:
                step = g.step_from_json(sj)
            except (KeyError, ValueError, TypeError) as e:
                self.err(sw, f"cannot be read: {e}")
                continue
            u = local[uid]
            if uid != cid and sj.get("kind") not in ("align", "reform"):
                self.err(sw, f"moves {uid}, which is not the charger, by a {sj.get('kind')}")
            nu = _reformed(u, step)
            after = step.apply(nu.form, u.pose)
            claimed = g.Pose.from_json(sj["pose"])
            if not _close(after, claimed):
                self.err(sw, f"replays to {_pose_str(after)} but the ruling says "
                         f"{_pose_str(claimed)}")
            area = self.rules.swept_area(step, nu.form, u.pose) if uid == cid else \
                step.swept(nu.form, u.pose)
            touch = may_touch
            if uid == cid and secondary and may_touch is not None:
                end_poly = g.boundary(nu.form, after)
                stays = {s for s in secondary if s in local and
                         g.touching(end_poly, local[s].poly)}
                touch = may_touch | stays
            self.check_area(sw, uid, area, touch if uid == cid else None,
                            on_table=not (has_move and uid == cid))
            local[uid] = replace(nu, pose=after)
        final_claim = entry.get("final")
        end = local[cid].pose
        if has_move and entry.get("path") and not self.table_eps.covers(local[cid].poly):
            self.err(f"{where} final footprint", "leaves the table")
        if self.rules.swept == "front_edge" and entry.get("path"):
            # Only the front edge was swept: the whole footprint must fit where it ends.
            self.check_area(f"{where} final footprint", cid, local[cid].poly,
                            (may_touch | secondary) if has_move and may_touch is not None
                            else None)
        if final_claim is None:
            self.err(where, "has no final pose")
        elif not _close(g.Pose.from_json(final_claim), end):
            self.err(where, f"final {_pose_str(g.Pose.from_json(final_claim))} is not where "
                     f"the path ends {_pose_str(end)}")
        if outcome in MOVED or (outcome is None and apply):
            self.world = local
        else:
            self.world = saved
        self.check_outcome(where, entry, local, saved)
        # States after the charge.
        if outcome in ("success", "special"):
            self.world[cid] = replace(self.world[cid], state="engaged")
            for uid in {charged, *(entry.get("secondary_targets") or [])}:
                if uid in self.world:
                    self.world[uid] = replace(self.world[uid], state="engaged")
        elif outcome == "caught_fleeing":
            self.world[cid] = replace(self.world[cid], state="disrupted")
            self.world[tid] = replace(self.world[tid], state="destroyed")
        elif outcome in ("failed", "target_escaped", "halted"):
            # A unit that charged cannot move again this turn (tow 1.6), failed or not.
            self.world[cid] = replace(self.world[cid], state="disrupted")
        elif outcome == "ran_down":
            self.world[cid] = replace(self.world[cid], state="disrupted")
            if charged in self.world:
                self.world[charged] = replace(self.world[charged], state="destroyed")

    def check_outcome(self, where: str, e: dict, local: dict[str, _U],
                      before: dict[str, _U]) -> None:
        outcome = e.get("outcome")
        cid, tid = e["charger"], e["target"]
        ch = local[cid]
        if not e.get("declarable"):
            if outcome != "impossible":
                self.err(where, f"is not declarable but its outcome is {outcome!r}")
            if not e.get("reasons"):
                self.err(where, "is not declarable but lists no reasons")
            if e.get("path"):
                self.err(where, "is not declarable but has a path")
            return
        if outcome == "impossible":
            self.err(where, "outcome 'impossible' for a declarable charge")
        if outcome in ("success", "caught_fleeing") and e.get("range_in") is not None:
            self.check_range(where, e, before)
        tgt_fleeing = self.group_start[tid].state == "fleeing"
        if outcome == "success" or (outcome is None and e.get("priorities") is not None):
            self.check_contact(where, e, local, ch, local[tid], before[tid])
        elif outcome == "caught_fleeing":
            if not tgt_fleeing:
                self.err(where, "caught_fleeing but the target was not fleeing")
            if not g.touching(ch.poly, local[tid].poly):
                self.err(where, "caught_fleeing but the charger does not reach the target")
        elif outcome in ("failed", "target_escaped"):
            self.check_gap(where, local, before, ch)
            stayed = _close(ch.pose, before[cid].pose)  # one that cannot move keeps its contact
            for u in [v for v in local.values() if v.id != cid and v.state != "destroyed"]:
                if g.touching(ch.poly, u.poly) and not (stayed and
                                                         g.touching(before[cid].poly, u.poly)):
                    self.err(where, f"failed charge ends touching unit '{u.id}' (gap "
                             f"{ch.poly.distance(u.poly):.4f} mm)")
            for t in self.terrain:
                if g.touching(ch.poly, t.shape):
                    self.err(where, f"failed charge ends touching impassable terrain "
                             f"'{t.id}'")
        elif outcome == "special":
            self.check_special(where, e, local, ch)
        elif outcome in ("halted", "ran_down"):
            self.check_accidental(where, e, local, before, ch)

    def check_accidental(self, where: str, e: dict, local: dict[str, _U],
                         before: dict[str, _U], ch: _U) -> None:
        """tow 1.5: met by a fleeing enemy, the charger halts 1 in from it or runs it down;
        either way within its roll, and only such a unit."""
        acc = e.get("accidental_contact") or {}
        uid = acc.get("unit")
        if uid not in local or self.group_start[uid].state != "fleeing":
            self.err(where, f"{e.get('outcome')} against {uid!r}, which was not fleeing")
            return
        if e.get("range_in") is not None:
            reach = float(e["range_in"]) * 25.4
            paid = sum(abs(sj.get("distance_mm", 0.0)) if sj.get("kind") == "forward" else
                       ch.form.width * math.radians(abs(sj.get("angle_deg", 0.0)))
                       if sj.get("kind") == "wheel" else 0.0 for sj in e.get("path") or [])
            if paid > reach + 0.01:
                self.err(where, f"moves {paid:.3f} mm, beyond the roll's {reach:.3f} mm")
        gap = ch.poly.distance(local[uid].poly)
        if e.get("outcome") == "halted":
            if gap < 25.4 - 0.01:
                self.err(where, f"halts {gap:.3f} mm from '{uid}', not 1 in")
            self.check_gap(where, local, before, ch)
        elif not g.touching(ch.poly, local[uid].poly):
            self.err(where, f"runs down '{uid}' but ends {gap:.4f} mm from it")

    def check_contact(self, where: str, e: dict, local: dict[str, _U], ch: _U, tg: _U,
                      tg_before: _U) -> None:
        tf = e.get("target_final")
        if tf is not None and not _close(g.Pose.from_json(tf), tg.pose):
            self.err(where, f"target_final {tf} is not where the path leaves the target "
                     f"{_pose_str(tg.pose)}")
        t0 = self.group_start[tg.id]
        shares, sides = charged_side(t0.form, t0.pose, self.group_start[ch.id].poly)
        if self.rules.facing_rule == "front_rank_models":
            c0 = self.group_start[ch.id]
            sides = front_rank_sides(c0.form, c0.pose, t0.form, t0.pose)
        claimed = e.get("arc_shares") or {}
        for k, v in shares.items():
            if k in claimed and abs(claimed[k] - v) > SHARE_TOL:
                self.err(where, f"arc share {k} is {claimed[k]} but the checker measures "
                         f"{v:.4f}")
        # DESIGN.md says front/flank/rear; the exact flank is accepted too.
        if e.get("facing") not in {_category(s) for s in sides} | sides:
            self.err(where, f"charged facing {e.get('facing')!r} but the arc shares "
                     f"{ {k: round(v, 4) for k, v in shares.items()} } give {sorted(sides)}")
        problems = [_front_flush(ch.form, ch.pose, tg.form, tg.pose, s) for s in sorted(sides)]
        # tow 1.5: when neither unit can align the gap is left, the charge disordered.
        gap_left = (bool(e.get("disordered")) or e.get("aligned") is False) and \
            e.get("target_final") is None and \
            not any(sj.get("kind") == "align" for sj in e.get("path") or [])
        if all(p is not None for p in problems) and not gap_left:
            self.err(where, "the charger is not flush with the charged facing: "
                     + "; ".join(p for p in problems if p))
        if g.overlapping(ch.poly, tg.poly):
            self.err(where, "the charger ends overlapping the target")
        if not g.touching(ch.poly, tg.poly):
            self.err(where, f"the charger ends {ch.poly.distance(tg.poly):.4f} mm short of "
                     "the target")
        secondary = set(e.get("secondary_targets") or [])
        for u in local.values():
            if u.id not in (ch.id, tg.id) and u.side != ch.side and u.state != "destroyed" \
                    and g.touching(ch.poly, u.poly) and u.id not in secondary:
                self.err(where, f"the charger ends touching enemy '{u.id}' too")
        for sid in secondary:
            u = local.get(sid)
            if u is None or u.side == ch.side:
                self.err(where, f"secondary target {sid!r} is not an enemy unit")
            elif u.state == "engaged":
                self.err(where, f"secondary target {sid!r} was already engaged")
            elif not g.touching(ch.poly, u.poly):
                self.err(where, f"secondary target {sid!r} is not touched at the end")
            elif self.rules.secondary_aligns and not _some_side_flush(ch, u) and \
                    sid not in (e.get("secondary_unaligned") or []):
                self.err(where, f"secondary target {sid!r} is touched at an angle, neither "
                         "aligned to the charger nor listed in secondary_unaligned")
        if self.rules.secondary_flag:
            # tow 1.5: disordered against those that had to align (turned or left).
            moved = {sj.get("unit") for sj in e.get("path") or [] if sj.get("unit") in secondary}
            expected = sorted(moved | set(e.get("secondary_unaligned") or []))
            if sorted(e.get(self.rules.secondary_flag) or []) != expected:
                self.err(where, f"{self.rules.secondary_flag} is "
                         f"{e.get(self.rules.secondary_flag)}, but {expected} had to align")
        cm, tm = self.check_contact_claim(where, e, ch, tg)
        pr = e.get("priorities")
        if pr is None:
            self.err(where, "a charge move without priorities")
            return
        if pr.get("models_in_contact") != cm + tm:
            self.err(where, f"priorities.models_in_contact is {pr.get('models_in_contact')}, "
                     f"the models in contact are {cm} + {tm} = {cm + tm}")
        turned = abs(g.normalize_deg(tg.pose.facing - tg_before.pose.facing))
        if abs(float(pr.get("target_turned_deg", 0.0)) - turned) > 1e-3:
            self.err(where, f"priorities.target_turned_deg is {pr.get('target_turned_deg')} "
                     f"but the target turned {turned:.4f} deg")
        if pr.get("other_enemies", 0) != len(secondary):
            self.err(where, f"priorities.other_enemies is {pr.get('other_enemies')} but "
                     f"{len(secondary)} other enemies are listed in secondary_targets")

    def check_range(self, where: str, e: dict, before: dict[str, _U]) -> None:
        """A success needs the roll to cover the closest distance (RULES.md 3) or, where the
        ruleset compares the roll with the path, the paid path: the forward moves and each
        wheel's outer corner arc, W x theta, before contact (tow 1.3; the align is free)."""
        reach = float(e["range_in"]) * 25.4
        ch = before[e["charger"]]
        if self.rules.range_measure == "paid_path":
            paid = sum(abs(sj.get("distance_mm", 0.0)) if sj.get("kind") == "forward" else
                       ch.form.width * math.radians(abs(sj.get("angle_deg", 0.0)))
                       if sj.get("kind") == "wheel" else 0.0 for sj in e.get("path") or [])
            if paid > reach + 0.01:
                self.err(where, f"the paid path is {paid:.3f} mm, beyond the roll's "
                         f"{reach:.3f} mm")
            if "paid_path_mm" in e and abs(e["paid_path_mm"] - paid) > 0.01:
                self.err(where, f"paid_path_mm is {e['paid_path_mm']} but the path pays "
                         f"{paid:.3f} mm")
        else:
            dist = ch.poly.distance(before[e["target"]].poly)
            if dist > reach + 0.01:
                self.err(where, f"the target is {dist:.3f} mm away, beyond the roll's "
                         f"{reach:.3f} mm")

    def check_gap(self, where: str, local: dict[str, _U], before: dict[str, _U],
                  ch: _U) -> None:
        """A failed move that must end a distance from others (tow 1.6: 1" from enemies;
        whfb8 2.6: from units and impassable terrain) does, unless it started closer."""
        gap = self.rules.failed_gap_mm
        if gap <= 0:
            return
        start = before[ch.id].poly
        others = [u for u in local.values() if u.id != ch.id and u.state != "destroyed" and
                  (u.side != ch.side or not self.rules.gap_from_enemies_only)]
        shapes = [(u.id, u.poly) for u in others]
        if not self.rules.gap_from_enemies_only:
            shapes += [(t.id, t.shape) for t in self.terrain]
        for uid, poly in shapes:
            d = ch.poly.distance(poly)
            if d < gap - 0.01 and start.distance(poly) >= gap - 0.01:
                self.err(where, f"the failed move ends {d:.2f} mm from '{uid}', closer than "
                         f"{gap:.1f} mm")

    def check_special(self, where: str, e: dict, local: dict[str, _U], ch: _U) -> None:
        cu = e.get("charged_unit")
        if cu not in local:
            self.err(where, f"special charge names no known charged unit ({cu!r})")
            return
        rf = local[cu]
        tf = e.get("target_final")
        if tf is None or not _close(g.Pose.from_json(tf), rf.pose):
            self.err(where, f"target_final {tf} is not where the reform put '{cu}' "
                     f"{_pose_str(rf.pose)}")
        if not any(s.get("kind") == "reform" and s.get("unit") == cu for s in e["path"]):
            self.err(where, f"special charge without a reform step of '{cu}'")
        if any(s.get("kind") in ("wheel", "align") and s.get("unit", ch.id) == ch.id
               for s in e["path"]):
            self.err(where, "special charge: the charger may only move straight forward")
        poly = rf.poly
        if not self.table_eps.covers(poly):
            self.err(where, f"reformed '{cu}' is off the table")
        for u in local.values():
            if u.id != cu and u.state != "destroyed" and g.overlapping(poly, u.poly):
                self.err(where, f"reformed '{cu}' overlaps '{u.id}'")
        for t in self.terrain:
            if g.overlapping(poly, t.shape):
                self.err(where, f"reformed '{cu}' overlaps impassable terrain '{t.id}'")
        if not g.touching(poly, ch.poly):
            self.err(where, f"reformed '{cu}' does not touch the charger")
        bad = _front_flush(rf.form, rf.pose, ch.form, ch.pose, "front")
        if bad:
            self.err(where, f"reformed '{cu}' is not front to front with the charger: {bad}")
        self.check_contact_claim(where, e, ch, rf)


def _groups(entries: list[dict]) -> list[list[int]]:
    groups: dict[str, list[int]] = {}
    for i, e in enumerate(entries):
        groups.setdefault(e["target"], []).append(i)
    return list(groups.values())


def check_ruling(request: dict, ruling: dict) -> None:
    """Raise AssertionError naming every way ``ruling`` breaks RULES.md / DESIGN.md."""
    scene = g.load_scene(request["scene"])
    rules = Rules.of(request.get("ruleset", "t9a-1"))
    entries = ruling.get("charges")
    asked = request.get("charges") or []
    problems: list[str] = []
    if not isinstance(entries, list) or len(entries) != len(asked):
        raise AssertionError(f"ruling has {len(entries or [])} charges for {len(asked)} asked")
    for i, (a, e) in enumerate(zip(asked, entries, strict=True)):
        if (a["charger"], a["target"]) != (e.get("charger"), e.get("target")):
            problems.append(f"charges[{i}] is {e.get('charger')} -> {e.get('target')}, the "
                            f"request asked {a['charger']} -> {a['target']}")
    if problems:
        raise AssertionError("\n".join(problems))
    world = {u.id: _U(u.id, u.side, u.formation, u.pose, u.state, u) for u in scene.units}
    for group in _groups(entries):
        _check_flight(request, [entries[i] for i in group], world, rules, problems)
        orders = list(itertools.permutations(group)) if len(group) <= 5 else [tuple(group)]
        first: _Trial | None = None
        chosen: _Trial | None = None
        for order in orders:
            trial = _Trial(scene, world, rules)
            for i in order:
                trial.run_entry(i, entries[i], apply=len(group) > 1)
            first = first or trial
            if not trial.errors:
                chosen = trial
                break
        if chosen is None:
            assert first is not None
            msg = "\n".join(first.errors)
            if len(orders) > 1:
                msg += f"\n(and no other order of the {len(group)} charges against " \
                       f"'{entries[group[0]]['target']}' passes either)"
            raise AssertionError(msg)
        if len(group) > 1:
            _check_combined(entries, group, chosen.world, problems)
        world = chosen.world
        # A no-dice multiple charge moves nothing for real.
        for i in group:
            if entries[i].get("outcome") is None:
                world = {k: (v if k not in (entries[i]["charger"], entries[i]["target"])
                             else replace(v, pose=_start_pose(scene, k), form=_start_form(
                                 scene, k), state=scene.unit(k).state)) for k, v in world.items()}
    _check_units(scene, ruling.get("units"), world, problems)
    if problems:
        raise AssertionError("\n".join(problems))


def _check_flight(request: dict, group: list[dict], world: dict[str, _U], rules: Rules,
                  problems: list[str]) -> None:
    """A Flee! reaction given in the request (tow 1.7, whfb8 2.7): a reaction to a declared
    charge, so none when no charge of the group could be declared; else the target turned to
    face directly away from the centre of the first charger that declared and moved at least
    its roll straight ahead (it carries on past what it would end on), not ending on any
    unit; then it is fleeing there."""
    tid = group[0]["target"]
    roll = (request.get("flee") or {}).get(tid)
    if roll is None:
        return
    made = [x for x in group if x.get("declarable")]
    if not made:
        if any(x.get("flee") for x in group):
            problems.append(f"{tid} fled, but no charge against it could be declared")
        return
    e = made[0]
    claim = e.get("flee")
    if not claim:
        problems.append(f"{tid} flees but the ruling reports no flight")
        return
    t, c = world[tid], world[e["charger"]]
    pose = g.Pose.from_json(claim["pose"])
    away = math.degrees(math.atan2(t.pose.y - c.pose.y, t.pose.x - c.pose.x))
    total = rules.flee_total(t.unit, roll) * 25.4
    if claim.get("route"):
        _check_flight_route(request, claim, t, away, total, problems)
    else:
        if abs(g.normalize_deg(pose.facing - away)) > 1e-3:
            problems.append(f"{tid} fled facing {pose.facing:.3f}, not directly away from "
                            f"{c.id} ({away:.3f})")
        dist = math.hypot(pose.x - t.pose.x, pose.y - t.pose.y)
        if dist < total - 0.01:
            problems.append(f"{tid} fled {dist:.2f} mm, short of its roll's {total:.2f} mm")
    poly = g.boundary(t.form, pose)
    for u in world.values():
        if u.id != tid and u.state != "destroyed" and g.overlapping(poly, u.poly):
            problems.append(f"{tid} fled onto unit {u.id!r}")
    world[tid] = replace(t, pose=pose, state="destroyed" if claim.get("destroyed")
                         else "fleeing")


def _check_flight_route(request: dict, claim: dict, t: _U, away: float, total: float,
                        problems: list[str]) -> None:
    """A flight round impassable terrain (tow 1.7), replayed step by step from the target
    turned to face directly away: each forward step moves along the facing it has, each turn
    is about the centre, at most 90 degrees, and ends with the footprint clear of impassable
    terrain; every forward step's swept footprint (the hull of its two ends: a straight move)
    keeps off impassable terrain; the forward steps add up to the roll, or the last one ends
    against terrain when the ruling says it was stopped; the first and any step after a turn
    back face directly away."""
    tid = t.id
    hard = [shapely.Polygon(x["polygon"]) for x in request["scene"].get("terrain", [])
            if x.get("impassable")]
    here = g.Pose(t.pose.x, t.pose.y, away)
    moved = 0.0
    for i, step in enumerate(claim["route"]):
        end = g.Pose.from_json(step["pose"])
        if step["kind"] == "forward":
            d = float(step["distance_mm"])
            want = g.Pose(here.x + d * math.cos(math.radians(here.facing)),
                          here.y + d * math.sin(math.radians(here.facing)), here.facing)
            sweep = shapely.convex_hull(shapely.union(g.boundary(t.form, here),
                                                      g.boundary(t.form, want)))
            hit = [h for h in hard if g.overlapping(sweep, h)]
            if hit:
                problems.append(f"{tid}'s flight step {i} crosses impassable terrain")
            moved += d
        elif step["kind"] == "turn":
            a = float(step["angle_deg"])
            want = g.Pose(here.x, here.y, g.normalize_deg(here.facing + a))
            if abs(a) > 90 + 1e-6:
                problems.append(f"{tid}'s flight turns {a:.3f} degrees, over 90")
            if any(g.overlapping(g.boundary(t.form, want), h) for h in hard):
                problems.append(f"{tid}'s flight turns onto impassable terrain at step {i}")
        else:
            problems.append(f"{tid}'s flight has a step of kind {step['kind']!r}")
            return
        if not end.close_to(want):
            problems.append(f"{tid}'s flight step {i} ends at {end}, not {want}")
        here = end
    turns = [s for s in claim["route"] if s["kind"] == "turn"]
    if sum(float(s["angle_deg"]) for s in turns) and len(turns) % 2 == 0:
        problems.append(f"{tid}'s flight turned aside and not back: {turns}")
    if claim.get("stopped_by_terrain"):
        body = g.boundary(t.form, here)
        if not any(body.distance(h) <= 0.01 for h in hard):
            problems.append(f"{tid}'s flight stopped short of its roll away from any terrain")
    elif moved < total - 0.01:
        problems.append(f"{tid} fled {moved:.2f} mm along its route, short of its roll's "
                        f"{total:.2f} mm")
    if abs(claim["moved_mm"] - moved) > 0.01:
        problems.append(f"{tid}'s flight says it moved {claim['moved_mm']} mm, its route "
                        f"{moved:.3f}")


def _check_combined(entries: list[dict], group: list[int], world: dict[str, _U],
                    problems: list[str]) -> None:
    """A multiple charge's combined count (RULES.md 4 and 8: every model once, however many
    chargers touch it), by brute force over the model rectangles at the final positions."""
    in_contact = [i for i in group if entries[i].get("contact") and
                  entries[i].get("outcome") in ("success", None)]
    if not in_contact:
        return
    tid = entries[group[0]]["target"]
    tg = world[tid]
    tbases = [(r, f, p) for r, f, p in g.model_bases(tg.form, tg.pose)]
    touched: set[tuple[int, int]] = set()
    charger_models = 0
    for i in in_contact:
        ch = world[entries[i]["charger"]]
        cbases = [p for _, _, p in g.model_bases(ch.form, ch.pose)]
        charger_models += sum(any(shapely.dwithin(c, p, EPS) for _, _, p in tbases)
                              for c in cbases)
        touched |= {(r, f) for r, f, p in tbases
                    if any(shapely.dwithin(c, p, EPS) for c in cbases)}
    for i in group:
        claim = entries[i].get("multiple_charge")
        if claim is None:
            problems.append(f"charges[{i}]: a multiple charge entry without multiple_charge")
            continue
        if (claim.get("models_in_contact"), claim.get("target_models")) != \
                (charger_models + len(touched), len(touched)):
            problems.append(f"charges[{i}]: multiple_charge claims "
                            f"{claim.get('models_in_contact')} models ({claim.get('target_models')}"
                            f" of the target); the brute-force count over model rectangles "
                            f"gives {charger_models + len(touched)} ({len(touched)})")


def _start_pose(scene: g.Scene, uid: str) -> g.Pose:
    return scene.unit(uid).pose


def _start_form(scene: g.Scene, uid: str) -> g.Formation:
    return scene.unit(uid).formation


def _check_units(scene: g.Scene, units: list[dict] | None, world: dict[str, _U],
                 problems: list[str]) -> None:
    if not isinstance(units, list):
        problems.append("ruling has no units list")
        return
    ids = [u.get("id") for u in units]
    if sorted(ids) != sorted(world):
        problems.append(f"units lists {sorted(ids)}, the scene has {sorted(world)}")
    for u in units:
        w = world.get(u.get("id"))
        if w is None:
            continue
        pose = g.Pose(float(u["x"]), float(u["y"]), float(u["facing"]))
        if not _close(pose, w.pose):
            problems.append(f"units '{w.id}' is at {_pose_str(pose)}, the charges leave it at "
                            f"{_pose_str(w.pose)}")
        if u.get("state") != w.state:
            problems.append(f"units '{w.id}' state is {u.get('state')!r}, the charges leave it "
                            f"{w.state!r}")
        before = scene.unit(w.id)
        if (w.form.files, w.form.ranks) != (before.files, before.ranks):
            if (u.get("files"), u.get("ranks")) != (w.form.files, w.form.ranks):
                problems.append(f"units '{w.id}' was reformed to {w.form.files} x "
                                f"{w.form.ranks} but lists {u.get('files')} x {u.get('ranks')}")


def rule_and_check(request: dict) -> dict:
    """``charges.rule(request)``, checked by :func:`check_ruling`; returns the ruling."""
    import charges

    ruling = charges.rule(request)
    check_ruling(request, ruling)
    return ruling
