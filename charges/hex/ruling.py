"""The ruling every hex kind answers with (HEX.md 13): ``ruling``, ``ruleset``, ``legal``,
``reasons`` (each ``code``, ``rule``, ``message``, ``units``, ``hexes``), ``decisions`` and an
``explanation`` a player can read aloud, plus the fields of its kind.

:class:`Context` carries one ruling while it is made: the position, the ruleset, the options
(each decision D-n is an option; reading one records the decision), the user's rules data, and
the reasons and sentences gathered so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from geometry.hexgrid import Hex

from .errors import HexRequestError
from .position import Position


@dataclass(frozen=True)
class Option:
    """A named ruleset option: ``decision`` is the HEX.md D-n it encodes (None for a plain
    option), ``default`` the decision, ``choices`` the readings it allows."""

    default: Any
    choices: tuple[Any, ...]
    decision: str | None = None
    rule: str = ""
    doc: str = ""


def num(x: Any) -> Any:
    """A figure for JSON: whole numbers as ints, exact halves and other fractions as floats."""
    if isinstance(x, Fraction):
        return int(x) if x.denominator == 1 else float(x)
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return x


def hex_json(h: Hex | None) -> list[int] | None:
    return None if h is None else [h[0], h[1]]


class MissingRulesData(Exception):
    """Raised inside a computation that cannot go on without a table (caught by the kind)."""


@dataclass
class Context:
    kind: str
    ruleset: Any
    position: Position
    options: dict[str, Any]
    data: dict[str, Any] | None
    data_source: str | None = None
    reasons: list[dict] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    explanation: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    #: The rule section of each missing table (:meth:`need`), by key.
    missing_rules: dict[str, str] = field(default_factory=dict)
    #: The rules-data entry last found (:meth:`table`): named when the user's data is malformed.
    last_table: str | None = None
    #: Work kept for the rest of the ruling (the position does not change within one), by
    #: name: e.g. ``los`` (line of sight per origin hexes and target), ``hex_class``.
    cache: dict[str, Any] = field(default_factory=dict)

    # -- options and decisions ---------------------------------------------------------------
    def opt(self, name: str) -> Any:
        """The value of option ``name``; reading a decision's option records the decision."""
        spec = self.ruleset.options()[name]
        if spec.decision:
            self.decide(spec.decision)
        return self.options.get(name, spec.default)

    def decide(self, decision: str) -> None:
        if decision not in self.decisions:
            self.decisions.append(decision)

    # -- reasons and sentences ---------------------------------------------------------------
    def reason(self, code: str, rule: str, message: str, units: list[str] | None = None,
               hexes: list[Hex] | None = None, refuses: bool = True) -> dict:
        r = {"code": code, "rule": rule, "message": message, "units": list(units or []),
             "hexes": [hex_json(h) for h in (hexes or [])], "refuses": refuses}
        self.reasons.append(r)
        return r

    def refuse(self, code: str, rule: str, message: str, **kw: Any) -> dict:
        return self.reason(code, rule, message, refuses=True, **kw)

    def note(self, code: str, rule: str, message: str, **kw: Any) -> dict:
        return self.reason(code, rule, message, refuses=False, **kw)

    def say(self, sentence: str) -> None:
        self.explanation.append(sentence)

    @property
    def refused(self) -> bool:
        return any(r["refuses"] for r in self.reasons)

    # -- rules data ----------------------------------------------------------------------------
    def table(self, section: str, key: str, required: bool = True) -> Any:
        """The rules-data entry at dotted ``key`` (e.g. ``cc_matrix.cavalry.hedgehog``); when
        absent and ``required``, a ``NEEDS_RULES_DATA`` reason naming the section and key, and
        :class:`MissingRulesData`."""
        value: Any = self.data
        for part in key.split("."):
            if not isinstance(value, dict) or part not in value:
                value = None
                break
            value = value[part]
        if value is not None:
            self.last_table = key  # for the error when the user's rules data is malformed
        if value is None and required:
            self.need(section, key)
            raise MissingRulesData(key)
        return value

    def has(self, key: str) -> bool:
        return self.table("", key, required=False) is not None

    def missing_rule(self, key: str) -> str:
        """The rule section recorded for the missing table ``key`` (HEX.md 13: a
        ``NEEDS_RULES_DATA`` names the section and key). A key is recorded once per ruling, so
        later users of the same table must look it up here, not take the last reason."""
        return self.missing_rules.get(key, "")

    def need(self, section: str, key: str, units: list[str] | None = None) -> None:
        if key in self.missing:
            return
        self.missing.append(key)
        self.missing_rules[key] = section
        where = ("no rules data was given" if self.data is None and not self.data_source else
                 f"the position names rules data {self.data_source!r} but it was not loaded"
                 if self.data is None else "the rules data has no such entry")
        self.reason("NEEDS_RULES_DATA", section,
                    f"needs the table '{key}' ({section}): {where}; supply it with "
                    f"--rules-data (the game's own values)", units=units, refuses=False)

    # -- the ruling ----------------------------------------------------------------------------
    def ruling(self, **extra: Any) -> dict:
        told = " ".join(self.explanation)
        for r in self.reasons:
            if r["refuses"] and r["message"] not in told:
                self.say(f"Not legal: {r['message']} ({r['rule']}).")
        out = {"ruling": self.kind, "ruleset": self.position.ruleset,
               "legal": not self.refused, "complete": not self.missing,
               "reasons": self.reasons, "decisions": sorted(self.decisions, key=_dnum),
               "explanation": self.explanation}
        out.update(extra)
        return out


def _dnum(d: str) -> tuple[int, str]:
    try:
        return (int(d.split("-")[1]), d)
    except (IndexError, ValueError):
        return (10_000, d)


def unit_of(ctx: Context, uid: Any, field_name: str) -> Any:
    """The unit ``uid`` of the position, or a request error naming ``field_name``."""
    if not isinstance(uid, str) or uid not in ctx.position.by_id:
        raise HexRequestError(field_name, f"{uid!r} is not a unit of the position",
                              "UNKNOWN_UNIT")
    return ctx.position.by_id[uid]


def id_list(value: Any, field_name: str) -> list[str]:
    """An option that is one id or a list of ids (the CLI repeats the flag)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v for v in value.split(",") if v] if "," in value else [value]
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return list(value)
    raise HexRequestError(field_name, f"{value!r} must be a unit id or a list of ids")
