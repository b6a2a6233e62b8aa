"""The ruling request (DESIGN.md, Ruling request): parsed and checked, every error naming the
field."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import geometry as g
from geometry.scene import Shape, scene_warnings, unknown_fields

from .dice import DiceRule
from .errors import RequestError
from .rulesets import DEFAULT, Ruleset, get_ruleset, implemented


@dataclass(frozen=True)
class ChargeDecl:
    charger: str
    target: str


@dataclass(frozen=True)
class Request:
    ruleset: Ruleset
    scene: g.Scene
    charges: tuple[ChargeDecl, ...]
    dice: dict[str, tuple[int, ...]] | None
    #: A D6 per charger deciding a contested facing (whfb8 2.1), when given.
    facing_roll: dict[str, int] = field(default_factory=dict)
    #: A flee reaction's roll per charged unit (tow 1.7, whfb8 2.7), when it flees.
    flee: dict[str, tuple[int, ...]] = field(default_factory=dict)
    #: What a charger met by a fleeing enemy does (tow 1.5): ``halt`` or ``continue``, per
    #: charger id; a charger not named halts.
    on_accidental_contact: dict[str, str] = field(default_factory=dict)


#: Chargers against one target in one request: the moves are searched over every order of
#: them (RULES.md 8), so each more multiplies the work (four take seconds); a unit has four
#: facings, and the rules files search "n <= 4 chargers" (RULES-editions.md 3.8 [D]).
MAX_CHARGERS_PER_TARGET = 4


def parse_request(data: Any) -> Request:
    if not isinstance(data, dict):
        raise RequestError("request: must be a JSON object")
    ruleset = get_ruleset(data.get("ruleset", DEFAULT))
    if "scene" not in data:
        raise RequestError("scene: is required")
    try:
        scene = g.load_scene(data["scene"])
    except g.SceneError as e:
        raise RequestError(str(e)) from None
    raw = data.get("charges")
    if not isinstance(raw, list) or not raw:
        raise RequestError("charges: must be a non-empty list of {\"charger\", \"target\"}")
    decls: list[ChargeDecl] = []
    for i, c in enumerate(raw):
        where = f"charges[{i}]"
        if not isinstance(c, dict):
            raise RequestError(f"{where}: must be an object with 'charger' and 'target'")
        for key in ("charger", "target"):
            if not isinstance(c.get(key), str):
                raise RequestError(f"{where}.{key}: must be a unit id (a string)")
            if not scene.has_unit(c[key]):
                raise RequestError(f"{where}.{key}: unknown unit '{c[key]}'")
        ch, tg = scene.unit(c["charger"]), scene.unit(c["target"])
        if ch.id == tg.id:
            raise RequestError(f"{where}: unit '{ch.id}' cannot charge itself")
        if ch.side == tg.side:
            raise RequestError(f"{where}.target: '{tg.id}' is a friend of '{ch.id}' "
                               f"(both side '{ch.side}')")
        if ch.advance_in is None:
            raise RequestError(f"scene.units '{ch.id}'.advance_in: is required for a charger")
        if any(d.charger == ch.id for d in decls):
            raise RequestError(f"{where}.charger: '{ch.id}' already declared a charge")
        decls.append(ChargeDecl(ch.id, tg.id))
        against = [d.charger for d in decls if d.target == tg.id]
        if len(against) > MAX_CHARGERS_PER_TARGET:
            raise RequestError(f"{where}: at most {MAX_CHARGERS_PER_TARGET} units may charge "
                               f"one target together, and {', '.join(against)} all charge "
                               f"'{tg.id}'")
    dice = _parse_dice(data.get("dice"), scene, decls, ruleset)
    return Request(ruleset, scene, tuple(decls), dice,
                   _parse_facing_roll(data.get("facing_roll"), decls),
                   _parse_flee(data.get("flee"), scene, decls, ruleset),
                   _parse_accidental(data.get("on_accidental_contact"), decls))


def _parse_accidental(raw: Any, decls: list[ChargeDecl]) -> dict[str, str]:
    """``on_accidental_contact``: "halt" or "continue" for every charger, or an object mapping
    charger ids to one of them (tow 1.5; other rulesets have no such rule and ignore it)."""
    chargers = [d.charger for d in decls]
    choices = ("halt", "continue")
    if raw is None:
        return {}
    if isinstance(raw, str):
        if raw not in choices:
            raise RequestError(f"on_accidental_contact: must be 'halt' or 'continue', got "
                               f"{raw!r}")
        return {c: raw for c in chargers}
    if not isinstance(raw, dict):
        raise RequestError("on_accidental_contact: must be 'halt' or 'continue', or an object "
                           "mapping charger ids to one of them")
    out: dict[str, str] = {}
    for uid, choice in raw.items():
        if uid not in chargers:
            raise RequestError(f"on_accidental_contact.{uid}: '{uid}' is not a declared "
                               "charger")
        if choice not in choices:
            raise RequestError(f"on_accidental_contact.{uid}: must be 'halt' or 'continue', "
                               f"got {choice!r}")
        out[uid] = choice
    return out


def _parse_flee(raw: Any, scene: g.Scene, decls: list[ChargeDecl], ruleset: Ruleset
                ) -> dict[str, tuple[int, ...]]:
    """``flee``: {charged unit id: its flee roll}, the Flee! reaction to this charge."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise RequestError("flee: must be an object mapping a charged unit's id to its flee "
                           "roll, e.g. {\"spears\": [2, 3]}")
    targets = {d.target for d in decls}
    out: dict[str, tuple[int, ...]] = {}
    for uid, roll in raw.items():
        where = f"flee.{uid}"
        if uid not in targets:
            raise RequestError(f"{where}: '{uid}' is not a charged unit")
        unit = scene.unit(uid)
        # A unit already fleeing must flee again (tow 1.7): its roll is the reaction to this
        # charge (RULES-editions.md 7a).
        if unit.state in ("engaged", "destroyed"):
            raise RequestError(f"{where}: '{uid}' is {unit.state} and cannot choose to flee")
        rules = ruleset.flee_rules(unit.swiftstride)
        if not isinstance(roll, list) or not all(
                isinstance(d, int) and not isinstance(d, bool) for d in roll):
            raise RequestError(f"{where}: must be a list of whole dice, e.g. [2, 3]")
        if all(len(roll) != r.n for r in rules):
            raise RequestError(f"{where}: the flee roll is {rules[0].name}, {_counts(rules)} "
                               f"dice, got {len(roll)}")
        if any(not 1 <= d <= 6 for d in roll):
            raise RequestError(f"{where}: every die must be 1 to 6, got {roll}")
        out[uid] = tuple(roll)
    return out


def _parse_facing_roll(raw: Any, decls: list[ChargeDecl]) -> dict[str, int]:
    """``facing_roll``: {charger id: a D6} for contested facings (whfb8 2.1)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise RequestError("facing_roll: must be an object mapping charger id to a D6")
    chargers = {d.charger for d in decls}
    out: dict[str, int] = {}
    for uid, die in raw.items():
        if uid not in chargers:
            raise RequestError(f"facing_roll.{uid}: '{uid}' is not a declared charger")
        if not isinstance(die, int) or isinstance(die, bool) or not 1 <= die <= 6:
            raise RequestError(f"facing_roll.{uid}: must be a die, 1 to 6, got {die!r}")
        out[uid] = die
    return out


def _counts(rules: tuple[DiceRule, ...]) -> str:
    """How many dice a roll may have: "3", or "3 or 2" where a die is optional."""
    return " or ".join(str(r.n) for r in rules)


def _parse_dice(raw: Any, scene: g.Scene, decls: list[ChargeDecl], ruleset: Ruleset
                ) -> dict[str, tuple[int, ...]] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise RequestError("dice: must be an object mapping charger id to a list of dice")
    out: dict[str, tuple[int, ...]] = {}
    chargers = {d.charger for d in decls}
    for uid, roll in raw.items():
        where = f"dice.{uid}"
        if uid not in chargers:
            raise RequestError(f"{where}: '{uid}' is not a declared charger")
        rules = ruleset.roll_rules(scene.unit(uid))
        if not isinstance(roll, list) or not all(
                isinstance(d, int) and not isinstance(d, bool) for d in roll):
            raise RequestError(f"{where}: must be a list of whole dice, e.g. [3, 5]")
        if all(len(roll) != r.n for r in rules):
            raise RequestError(f"{where}: {rules[0].name} needs {_counts(rules)} dice, got "
                               f"{len(roll)}")
        if any(not 1 <= d <= 6 for d in roll):
            raise RequestError(f"{where}: every die must be 1 to 6, got {roll}")
        out[uid] = tuple(roll)
    # A charger without dice is asked for them only if its charge can be declared
    # (roll_for): no roll is made for one that cannot (RULES.md 2).
    return out


def roll_for(req: Request, charger: str, declarable: bool) -> tuple[int, ...] | None:
    """The dice rolled for ``charger``: None for odds only (no dice at all), or for a charge
    that cannot be declared and was given none; a declarable one without dice is refused by
    name."""
    if req.dice is None:
        return None
    roll = req.dice.get(charger)
    if roll is None and declarable:
        raise RequestError(f"dice: no roll given for {charger} (give dice for every charger "
                           "that can declare its charge, or none for odds only)")
    return roll


# -- warnings: what a request holds that the ruling does not read ------------------------------

#: The keys of a ruling request (DESIGN.md, Ruling request) and of each declared charge.
REQUEST_SHAPE: Shape = {"ruleset": None, "scene": None,
                        "charges": {"charger": None, "target": None}, "dice": None,
                        "facing_roll": None, "flee": None, "on_accidental_contact": None}


def _uses_facing_roll(ruleset: Ruleset) -> bool:
    """Whether a facing can be contested in ``ruleset``, and so decided by a ``facing_roll``:
    asked of its own facing rule, with a tie of front-rank models between two arcs."""
    if ruleset.facing_rule != "front_rank_models":
        return False
    tie = {"front": 1.0, "left": 1.0, "right": 0.0, "rear": 0.0}
    return bool(ruleset.facing_from_counts(tie).contested)


#: The options a ruleset may have no use for: each with the question asked of a ruleset.
_OPTIONS = {"facing_roll": _uses_facing_roll,
            "on_accidental_contact": lambda r: bool(r.accidental_contact)}


def request_warnings(data: Any) -> list[str]:
    """Plain sentences on what the ruling of request JSON ``data`` ignored: each field the
    request or its scene does not know (by its path, with the closest known name), and each
    option the chosen ruleset has no use for ("facing_roll is used by whfb8 only; ignored for
    tow"). The contract lets clients add fields, so none of this refuses the request; a ruling
    carries these as its ``warnings``. Data that is not a request gives none (parse_request
    refuses it)."""
    if not isinstance(data, dict):
        return []
    out = unknown_fields({k: v for k, v in data.items() if k != "scene"}, REQUEST_SHAPE, "",
                         "ruling request")
    out += scene_warnings(data.get("scene"))
    try:
        ruleset = get_ruleset(data.get("ruleset", DEFAULT))
    except RequestError:
        return out
    for option, uses in _OPTIONS.items():
        if data.get(option) is None or uses(ruleset):
            continue
        users = [r.name for r in implemented("charge") if uses(r)]
        used = f"is used by {' and '.join(users)} only" if users else "is used by no ruleset"
        out.append(f"{option} {used}; ignored for {ruleset.name}")
    return out
