"""``charges.hex_rule(kind, position, **options)``: one entry point for every hex ruling
(HEX.md 13-14).

``kind`` is a ruling kind of the position's ruleset (``combat``, ``reactions`` ... for
``mpbs-6``; ``assault``, ``rally``, ``cup`` ... for ``lb``); ``position`` the position JSON of
HEX.md 4; ``options`` the kind's own parameters (``defender``, ``attackers`` ...), the ruleset's
options (each decision D-n by its name, e.g. ``halve_rounding="up"``) and ``rules_data`` (the
user's rules-data JSON as a dict; ``charges`` never reads files). Bad input raises a
``ValueError`` subclass whose message names the field and the code.
"""

from __future__ import annotations

from typing import Any

from ..rulesets import get_ruleset
from .errors import HexRequestError
from .position import load_position

#: Other spellings of a kind's parameters (the CLI flag's singular, HEX.md 13).
PARAM_ALIASES = {"attacker": "attackers", "pistol": "pistols", "assaults": "assault",
                 "targets": "target", "kind_of_ruling": "kind"}
#: Kind names of HEX.md 13's table that differ from the command.
KIND_ALIASES = {"close_combat": "combat"}
#: The ``ruling`` field of each kind (HEX.md 13's table).
RULING_NAMES = {"combat": "close_combat"}


def _rules_data(position: dict, ruleset: Any, given: Any) -> tuple[dict | None, str | None]:
    """The rules data: the option, else the position's inline object; a string in the
    position is a file the caller must load (its name is kept for the message)."""
    source = position.get("rules_data") if isinstance(position, dict) else None
    data = given if given is not None else source
    if isinstance(data, str):
        return None, data
    if data is None:
        return None, None
    if not isinstance(data, dict):
        raise HexRequestError("rules_data", "must be a JSON object (the rules-data file)")
    for name in (ruleset.name, *ruleset.aliases):
        if isinstance(data.get(name), dict):
            return data[name], source if isinstance(source, str) else None
    return data, source if isinstance(source, str) else None


def hex_rule(kind: str, position: dict, **options: Any) -> dict:
    """Rule on ``position``; see the module docstring. Returns the ruling JSON of HEX.md 13."""
    if not isinstance(position, dict):
        raise HexRequestError("position", "must be a JSON object (HEX.md position)")
    ruleset = get_ruleset(options.pop("ruleset", None) or position.get("ruleset"), kind="hex")
    kinds = ruleset.kinds()
    kind = KIND_ALIASES.get(kind, kind)
    if kind not in kinds:
        raise HexRequestError("kind", f"{kind!r} is not a ruling of {ruleset.name}; it has "
                              f"{', '.join(kinds)}", "UNKNOWN_KIND")
    handler, params = kinds[kind]
    data, source = _rules_data(position, ruleset, options.pop("rules_data", None))
    spec = ruleset.options()
    own: dict[str, Any] = {}
    chosen: dict[str, Any] = {}
    for key, value in options.items():
        key = PARAM_ALIASES.get(key, key)
        if key in params:
            own[key] = value
        elif key in spec:
            if value not in spec[key].choices:
                raise HexRequestError(key, f"{value!r} is not one of "
                                      f"{', '.join(map(repr, spec[key].choices))}", "BAD_OPTION")
            chosen[key] = value
        elif value is not None:
            raise HexRequestError(key, f"unknown option for {kind}; it takes "
                                  f"{', '.join(params)} and the options "
                                  f"{', '.join(spec)}", "UNKNOWN_OPTION")
    pos = load_position(position, ruleset, bool(chosen.get("fix_wagons", False)))
    ctx = ruleset.make_context(RULING_NAMES.get(kind, kind), pos, chosen, data, source)
    ctx.reasons.extend(pos.notes)
    try:
        return handler(ctx, **own)
    except (TypeError, AttributeError, KeyError, IndexError, ValueError, ArithmeticError) as exc:
        if isinstance(exc, HexRequestError) or data is None or \
                getattr(ctx, "last_table", None) is None:
            raise
        # The user's own rules data (README: bring your own) with an entry of the wrong shape:
        # the table the ruling was reading names it (docs/hex-rules-data.md says each shape).
        raise HexRequestError(
            f"rules_data.{ctx.last_table}",
            f"this entry (or one inside it) has the wrong type or shape for the ruling "
            f"({type(exc).__name__}: {exc}); docs/hex-rules-data.md describes each table",
            "BAD_RULES_DATA") from exc


def describe() -> list[dict]:
    """What this build rules on hex positions, as JSON: for each hex ruleset its names, its
    ruling kinds with their parameters, and its options (each decision D-n with its default
    and the readings it allows). For ``GET /api/rulesets`` and a web page's option menus."""
    from ..rulesets import implemented

    out = []
    for rs in implemented("hex"):
        out.append({
            "name": rs.name, "aliases": list(rs.aliases), "title": rs.title,
            "kinds": {RULING_NAMES.get(k, k): {"call": k, "params": list(params)}
                      for k, (_, params) in rs.kinds().items()},
            "options": {name: {"default": o.default, "choices": list(o.choices),
                               "decision": o.decision, "rule": o.rule, "doc": o.doc}
                        for name, o in rs.options().items()}})
    return out
