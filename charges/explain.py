"""Plain-language explanations of a ruling, one sentence per fact, in the order a player
would read them aloud (RULES.md 1-8). Player-facing text cites the rules by the rulebook's
own section names (Charged Facing, Declaring Charges, Charge Range, Maximising Contact, Blocked
Path, Failed Charge, Charging a Fleeing Unit, Multiple Charges), never our files."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import geometry as g

from .dice import format_chance
from .rulesets.base import T9A_WORDS
from .search import LONGER

if TYPE_CHECKING:
    from .flee import Flight
    from .moves import FailedMove
    from .resolution import Resolution


def _in(mm: float) -> str:
    """Inches for the players, millimetres to check with a ruler (tenths when small)."""
    return f"{g.mm_to_in(mm):.2f} in ({mm:.1f} mm)" if mm < 10 else \
        f"{g.mm_to_in(mm):.2f} in ({mm:.0f} mm)"


def poss(name: str) -> str:
    """English possessive of a unit id: spears' front, knights' arc, ogre's flank."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _pct(x: float) -> str:
    return format_chance(x, 0)


def combined_sentence(multiple: dict) -> str:
    """A multiple charge's combined count, each model once (Multiple Charges; Maximising
    Contact, priority 4)."""
    parts = [str(n) for n in multiple["charger_models"].values()]
    chargers = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    n = multiple["chargers_in_contact"]
    who = "both chargers" if n == 2 else ("the charger" if n == 1 else f"{n} chargers")
    how = "into the same facing, moving together" if multiple.get("together") else \
        f"moving in the order {', '.join(multiple['order'])}"
    return (f"Multiple charge, {how}: {who} in "
            f"contact; in all, {multiple['models_in_contact']} models in base contact: "
            f"{chargers} of the chargers, {multiple['target_models']} of the target, each "
            "model counted once.")


#: Forward moves shorter than this are left out of the words (a path's exact steps are in the
#: ruling's ``path``): "move 0.00 in forward" says nothing a player can do.
SAID_MM = 0.05


def describe_steps(res: Resolution) -> str:
    assert res.move is not None
    return describe_path(res, res.move.steps)


def describe_path(res: Resolution, steps: list[g.Step]) -> str:
    """A charge path in words, each wheel with the movement it costs."""
    parts = []
    for step in steps:
        if isinstance(step, g.Forward):
            if step.distance_mm >= SAID_MM:
                parts.append(f"move {_in(step.distance_mm)} forward")
        elif isinstance(step, g.Wheel):
            way = "left" if step.angle_deg > 0 else "right"
            cost = step.length_mm(res.charger.formation)
            parts.append(f"wheel {abs(step.angle_deg):.1f} degrees to the {way} about their "
                         f"{step.pivot} front corner ({_in(cost)} of movement)")
        elif isinstance(step, g.Align):
            parts.append(f"align, turning {abs(step.angle_deg):.1f} degrees about the contact "
                         "point")
    if not parts:
        return "are already in contact"
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _words(res: Resolution) -> dict[str, str]:
    """The rule names this ruling cites (the ruleset's own rulebook)."""
    return res.ruleset.words if res.ruleset is not None else T9A_WORDS


def _facing_sentence(res: Resolution) -> str:
    c, t, d = res.charger, res.target, res.declaration
    w = _words(res)
    dec = d.decision
    if dec is not None and dec.counts is not None and any(dec.counts.values()):
        # The arcs are the target's; the models the charger's front rank (tow 1.1).
        parts = [f"{v:g} in {poss(t.id) if i == 0 else 'its'} {k} arc"
                 for i, (k, v) in enumerate((k, v) for k, v in dec.counts.items() if v)]
        counts = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        how = f" ({dec.tie})" if dec.tie else ""
        return (f"Of {poss(c.id)} front-rank models, {counts}, so the charge hits its "
                f"{d.facing}{how} ({w['facing']}).")
    share = d.shares[d.facing]
    if share > 0.5:
        return (f"{_pct(share)} of {c.id} stands in {poss(t.id)} {d.facing} arc, so the charge "
                f"hits its {d.facing} ({w['facing']}).")
    return (f"No arc of {t.id} holds more than half of {c.id}; the largest share, "
            f"{_pct(share)}, is in its {d.facing} arc, so the charge hits its {d.facing}"
            f" ({w['facing']}).")


def explain(res: Resolution, margin: float, certain: bool, sigma: float) -> list[str]:
    c, t, d = res.charger, res.target, res.declaration
    w = _words(res)
    out: list[str] = [f"{c.id} ({c.side}) declare a charge against {t.id} ({t.side})."]
    dist = d.distance
    adv = c.advance_in or 0.0
    if not d.declarable:
        out.append("The charge cannot be declared: " + "; ".join(d.reasons) +
                   f" ({w['declare']}).")
    else:
        # With a Flee! reaction the charge was declared against where the target stood.
        f = res.flight
        then = res.declared.distance if f is not None and res.declared is not None else dist
        was = "was" if f is not None else "is"
        out.append(f"{t.id} {was} {_in(then.distance_mm)} away at the closest points, inside "
                   f"{poss(c.id)} front arc and in sight, within the longest possible charge of "
                   f"{d.max_range_in:g} in ({adv:g} in {w['movement']} + "
                   f"{d.max_range_in - adv:g}).")
    if res.flight is not None:
        f = res.flight
        where = "off the table edge, and are destroyed" if f.destroyed else \
            f"now {_in(dist.distance_mm)} away"
        carried = f" (it carried on to {_in(f.moved_mm)} to end clear)" \
            if f.moved_mm > f.distance_mm + 1e-6 else ""
        out.append(f"{t.id} flee: they turn {abs(f.turn_deg):.1f} degrees to face directly away "
                   f"from {f.away_from or c.id} and move {_in(f.distance_mm)}"
                   f"{_round_words(f)}{carried}, {where} ({w['flee']}).")
    if res.flee_not_made:
        out.append(f"{t.id} do not flee: a Flee! reaction answers a declared charge, and no "
                   f"charge against {t.id} could be declared ({w['flee']}).")
    if t.state == "fleeing" and not (res.ruleset and res.ruleset.fleeing_aligns):
        out.append(f"{t.id} is fleeing, so any facing may be charged and there is no align "
                   f"({w['fleeing']}).")
    elif t.state == "fleeing":
        out.append(f"{t.id} is fleeing, so any facing may be charged; the charger aligns to the "
                   f"one it meets ({w['fleeing']}).")
    else:
        out.append(_facing_sentence(res))
    paid = res.ruleset is not None and res.ruleset.range_measure == "paid_path"
    roll = res.ruleset.roll_word if res.ruleset is not None else "charge range"
    if d.declarable:
        chance = format_chance(res.odds)
        if paid and res.move is not None:
            out.append(f"The roll is compared with the path paid for: the shortest legal one is "
                       f"{_in(res.compared_mm)} (the forward moves and the wheel's outer "
                       f"corner; the closing wheel is free) ({w['range']}).")
        if res.move is None and res.through is not None:
            out.append(_through_sentence(res))
        elif res.odds == 0.0 and t.state == "destroyed":
            out.append(f"{t.id} fled off the table and is destroyed: nothing is left to "
                       f"charge, so the charge cannot succeed whatever the roll (chance 0%).")
        elif res.odds == 0.0 and (res.move is None or not res.move.aligned):
            longest = adv + res.dice_rule.max_total
            why = res.stays if res.stays is not None else \
                f"no charge move within the longest possible roll of {longest:g} in" \
                if res.move is None and paid else \
                "no legal charge move exists" if res.move is None else \
                f"neither {c.id} nor {t.id} can align"
            needs = f"The distance needs {res.needed} or more on {res.dice_rule.name}, but " \
                if res.needed <= res.dice_rule.max_total else "The charge needs more than " \
                f"{res.dice_rule.name} can roll, and "
            out.append(f"{needs}{why}, so the charge cannot succeed whatever the roll "
                       "(chance 0%).")
        else:
            out.append(f"{c.id} need {res.needed} or more on {res.dice_rule.name} "
                       f"({w['movement']} {adv:g} in): a {chance} chance.")
    if res.dice is not None and res.range_in is not None and d.declarable:
        total = res.roll_total if res.roll_total is not None else \
            res.dice_rule.total(res.dice)
        dice = ", ".join(map(str, res.dice))
        verdict = "enough" if res.in_range else "short"
        against = g.mm_to_in(res.compared_mm)
        # tow names the dice's result the Charge roll, and M + it the charge range (1.3).
        named = "" if roll == "charge range" else f"{roll} {total}, "
        bought = ""
        if paid and res.in_range and res.move is not None and \
                res.move.length_mm > res.compared_mm + g.EPS_MM:
            # tow 1.3: the roll buys the best move it pays for, longer than the shortest.
            bought = f"; the best charge move it pays for is {_in(res.move.length_mm)}"
        out.append(f"They rolled {dice}: {named}charge range {adv:g} + {total} = "
                   f"{res.range_in:g} in, {verdict} for {against:.2f} in{bought}.")
    _explain_move(res, out)
    if not certain:
        out.append(f"Too close to call: moving a unit by {margin:.1f} mm would change the "
                   f"ruling, within three standard deviations ({3 * sigma:.1f} mm) of the "
                   "photo's measurement; measure it by hand.")
    return out


def _explain_move(res: Resolution, out: list[str]) -> None:
    c, t = res.charger, res.target
    m = res.move
    w = _words(res)
    if res.outcome in ("success", "caught_fleeing", None) and m is not None and \
            res.declaration.declarable:
        verb = "would " if res.outcome is None else ""
        if t.state == "fleeing":
            # t9a-1 (RULES.md 7) takes the shortest move; tow runs it down with a normal
            # charge move into the facing it best meets (1.7).
            which = "best charge move" if res.ruleset is not None and \
                res.ruleset.fleeing_aligns else "shortest move"
            out.append(f"The {which} reaching {t.id}: {c.id} {verb}{describe_steps(res)}.")
            if res.outcome == "caught_fleeing":
                out.append(f"{t.id} is caught and destroyed; {c.id} {w['after_caught']} "
                           f"({w['fleeing']}).")
            return
        head = "The charge move"
        if res.outcome is None and res.ruleset is not None and \
                res.ruleset.range_measure == "paid_path" and \
                m.length_mm > res.compared_mm + g.EPS_MM:
            # tow 1.3, odds only: the move shown is the best one, which a bigger roll buys.
            need = res.dice_rule.needed(g.mm_to_in(m.length_mm), c.advance_in or 0.0)
            head = (f"The best charge move, {_in(m.length_mm)} paid, for a roll of {need} or "
                    "more")
        if m.aligned:
            out.append(f"{head}: {c.id} {verb}{describe_steps(res)}, ending flush "
                       f"with {poss(t.id)} {m.facing}.")
        else:
            flag = res.ruleset.target_aligns_flag if res.ruleset is not None else None
            extra = f", and the charge is {flag}" if flag else ""
            out.append(f"{head}: {c.id} {verb}{describe_steps(res)}, to first contact "
                       f"with {poss(t.id)} {m.facing}. Neither {c.id} nor {t.id} can align "
                       "clear of every other unit and terrain piece (other enemies included), "
                       f"so the gap is left{extra} ({w.get('unaligned', w['align'])}).")
        if res.outcome == "caught_fleeing":
            out.append(f"{t.id} is run down and removed; {c.id} may take a Leadership test to "
                       f"reform, and cannot move again this turn ({w['fleeing']}).")
        aligns = {a.unit: a for a in res.secondary_aligns}
        rs = res.ruleset
        # tow 1.5: the charge is disordered against those units only.
        flag = rs.target_aligns_flag if rs is not None and rs.secondary_flag else None
        for other in res.secondary:
            out.append(f"No legal move reaches {poss(t.id)} {m.facing} without touching "
                       f"{other}, so {c.id} end in contact with {other} too: {other} is "
                       f"charged as well, reacts and fights ({w['other_enemies']}).")
            a = aligns.get(other)
            if a is None:
                continue
            how = (f"turns {abs(a.turn_deg):.1f} degrees about the contact point to align to "
                   f"{c.id}") if a.final is not None else \
                f"cannot turn to align to {c.id} (blocked by {a.blocked}), so the gap is left"
            extra = f"; the charge is {flag} against {other} only" if flag else ""
            out.append(f"{other} is touched at an angle and {how}{extra} "
                       f"({w['secondary_align']}).")
        if m.target_final is not None:
            flag = res.ruleset.target_aligns_flag if res.ruleset is not None else None
            extra = f"; the charge is {flag}" if flag else ""
            out.append(f"No position lets {c.id} align on its own, so {t.id} turns "
                       f"{abs(m.target_turn_deg):.1f} degrees about the contact point "
                       f"instead{extra} ({w['turn_target']}).")
        out.append(f"In base contact: {m.charger_models} {c.id} and {m.target_models} {t.id}, "
                   f"{m.models} models in all.")
        for rej in res.rejected[:2]:
            if rej.models > m.models or (rej.models == m.models and m.target_final):
                out.append(f"A position with {rej.models} models in contact "
                           f"({rej.charger_models} + {rej.target_models}) is not reachable: "
                           f"{rej.reason}.")
        if res.multiple is not None:
            out.append(combined_sentence(res.multiple))
        if res.out_of_order:
            out.append(res.out_of_order)
        return
    if res.outcome == "special" and res.special is not None:
        sp = res.special
        p = res.placement
        blockers = ", ".join(sp.blockers)
        out.append(f"No legal charge move exists only because {blockers} stand(s) in the way, "
                   f"and {c.id} could not charge them normally either: {c.id} make a special "
                   f"charge, moving {_in(sp.forward_mm)} straight forward into {sp.charged} "
                   f"({w['blocked']}).")
        if p is not None:
            how = "keeping its ranks and files" if not p.reformed_ranks else \
                f"changing to {p.files} files and {p.ranks} ranks, as little as possible"
            out.append(f"{sp.charged} reforms to face {c.id}, front to front, {how}: "
                       f"{p.charger_models} {c.id} and {p.target_models} {sp.charged} in base "
                       "contact.")
        return
    if res.outcome in ("halted", "ran_down") and res.accidental is not None:
        a = res.accidental
        path = describe_path(res, a.steps) if a.steps else "cannot move at all"
        if res.outcome == "halted":
            out.append(f"Fleeing {a.blocker} stands across the only way the roll reaches "
                       f"{t.id} (a path of {_in(a.through.length_mm)}), and no wheel avoids "
                       f"it: {c.id} {path}, and halt 1 in from {a.blocker}. This is not a "
                       f"failed charge ({w.get('accidental', w['failed'])}).")
        else:
            moves = [s for s in a.steps if not isinstance(s, g.Align)]
            turn = next((s for s in a.steps if isinstance(s, g.Align)), None)
            path = describe_path(res, moves) if moves else "already touch it"
            then = f", align, turning {abs(turn.angle_deg):.1f} degrees about the contact " \
                "point," if turn is not None else \
                ("" if a.aligned else " (no room to align: the gap is left)")
            out.append(f"Fleeing {a.blocker} stands across the only way the roll reaches "
                       f"{t.id} (a path of {_in(a.through.length_mm)}), and no wheel avoids "
                       f"it: {c.id} continue ahead and {path} into {a.blocker}"
                       f"{then} and run it down: {a.blocker} is destroyed, and {c.id} cannot "
                       f"reform ({w.get('accidental', w['failed'])}).")
        return
    if res.outcome == "target_escaped" and res.failed is not None:
        f = res.failed
        out.append(f"{t.id} is out of reach: it has escaped, and this is not a failed charge. "
                   f"{c.id} move their full charge range towards it: {_failed_steps(res, f)} "
                   f"({w['fleeing']}).")
        return
    if res.outcome == "failed" and res.stays is not None:
        out.append(f"{res.stays}: the charge is failed, and they do not move ({w['failed']}).")
        return
    if res.outcome == "failed":
        if t.state == "destroyed":
            out.append(f"{t.id} fled off the table and was destroyed before the charge reached "
                       f"it: the charge fails ({w['fleeing']}).")
        elif res.in_range and res.move is None and res.ruleset is not None and \
                res.ruleset.range_measure == "paid_path" and not res.notes:
            # The best contact's paths: too long for the roll, or blocked whatever the roll.
            why = res.rejected[0].reason if res.rejected else LONGER
            if LONGER in why:
                out.append(f"No legal charge move is short enough for the roll: the charge "
                           f"fails ({w['range']}).")
            else:
                out.append(f"No legal charge move exists ({why}): the charge fails "
                           f"({w['range']}).")
        elif res.in_range:
            if res.special is not None and res.special.charged is None:
                why = res.special.stopped_by or "nothing"
                reasons = [r.reason for r in res.rejected] or ["no path reaches it"]
                out.append(f"The roll is enough but no legal charge move exists ({reasons[0]}), "
                           f"and no special charge either: moving straight forward, {c.id} "
                           f"meets {why} before any enemy ({w['blocked']}). The charge fails.")
            else:
                reasons = [r.reason for r in res.rejected] or ["no path reaches it"]
                out.append(f"The roll is enough but no legal charge move exists "
                           f"({reasons[0]}): the charge fails ({w['range']}).")
        for note in res.notes:
            out.append(note + ".")
        if res.out_of_order:
            out.append(res.out_of_order)
        f = res.failed
        if f is not None:
            dist = f"{g.mm_to_in(f.distance_mm):g} in"
            if res.ruleset is None or res.ruleset.failed_turns:
                dist = f"the highest die, {dist}"
            out.append(f"Failed charge move ({dist}): {c.id} {_failed_steps(res, f)}; "
                       f"{w['after_failed']} ({w['failed']}).")


def _through_sentence(res: Resolution) -> str:
    """Odds only, no ordinary move: every way to the target runs into a fleeing enemy."""
    assert res.through is not None
    w = _words(res)
    c, adv = res.charger, res.charger.advance_in or 0.0
    need = res.dice_rule.needed(g.mm_to_in(res.through_compared_mm), adv)
    chance = format_chance(float(res.dice_rule.chance_at_least(need)))
    then = "runs it down" if res.on_accidental == "continue" else "halts 1 in from it"
    who = ", ".join(sorted(res.blockers))
    return (f"Every legal path to {res.target.id} runs into fleeing {who}: {need} or more on "
            f"{res.dice_rule.name} ({w['movement']} {adv:g} in, a {chance} chance) takes "
            f"{c.id} that far, and the charge then {then} "
            f"({w.get('accidental', w['failed'])}); it cannot succeed whatever the roll "
            "(chance 0%).")


def _failed_steps(res: Resolution, f: FailedMove) -> str:
    """A failed (or escaped target's) move in words: the turn or paid wheel, then forward."""
    t = res.target
    if f.kind == "path":
        # tow 1.7: an escaped target's chaser follows the best charge path towards it.
        how = describe_path(res, f.steps) if f.steps else "cannot move at all"
        stop = f", stopping 1 in short of {f.stopped_by}" if f.stopped_by else ""
        return f"along the best charge path, {how}{stop}"
    if f.kind == "wheels":
        # whfb8 2.6: round what stopped the straight way, by a path of two wheels.
        parts = []
        for step in f.steps:
            if isinstance(step, g.Wheel):
                way = "left" if step.angle_deg > 0 else "right"
                parts.append(f"wheel {abs(step.angle_deg):.1f} degrees to the {way}")
            elif isinstance(step, g.Forward) and step.distance_mm >= SAID_MM:
                parts.append(f"move {_in(step.distance_mm)} forward")
        end = math.hypot(f.final.x - t.x, f.final.y - t.y)
        stop = f" (then stopping short of {f.stopped_by})" if f.stopped_by else ""
        how = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
        return (f"find the way towards {poss(t.id)} centre stopped by {f.turn_blocked_by}; "
                f"of the paths with up to two wheels, the one ending closest to that centre "
                f"({_in(end)} from it) is to {how}{stop}")
    verb = "wheel" if f.kind == "wheel" else "turn"
    turn = f"{verb} {abs(f.turn_deg):.1f} degrees to face {poss(t.id)} centre"
    if f.kind == "wheel" and abs(f.turn_wanted_deg) < 1e-6:
        turn = f"already face {poss(t.id)} centre"
    if f.turn_blocked_by:
        turn += (f" (stopped after {abs(f.turn_deg):.1f} of "
                 f"{abs(f.turn_wanted_deg):.1f} degrees by {f.turn_blocked_by})")
    elif abs(f.turn_deg) < abs(f.turn_wanted_deg) - 1e-6:
        turn += f" (of {abs(f.turn_wanted_deg):.1f}, as far as the distance pays for)"
    move = f"move {_in(f.moved_mm)} straight forward"
    if f.moved_mm < SAID_MM:
        move = "make no move forward"
    if f.stopped_by:
        move += f" (stopping just short of {f.stopped_by}; the roll allowed " \
                f"{_in(f.distance_mm)})"
    return f"{turn} and {move}"


def _round_words(f: Flight) -> str:
    """How a flight went round impassable terrain (tow 1.7; charges/flee_round.py), or
    nothing."""
    parts: list[str] = []
    for i, leg in enumerate(f.legs):
        if leg.around is None:
            continue
        turn = g.normalize_deg(leg.pose.facing - f.legs[i - 1].pose.facing) if i else 0.0
        side = "left" if turn > 0 else "right"
        back = i + 1 < len(f.legs)
        parts.append(f"round {leg.around} (a pivot of {abs(turn):.1f} degrees to the {side}"
                     + (", then back to face away" if back else
                        "; the roll ends before it is past") + ")")
    words = ", going " + " and ".join(parts) + " by the shortest route" if parts else ""
    if f.stopped_by_terrain:
        moved = sum(leg.length_mm for leg in f.legs)
        words += f", stopped against impassable terrain no route gets round after {_in(moved)}"
    return words
