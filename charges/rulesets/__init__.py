"""The ruleset registry (DESIGN.md, Rulesets; STYLE.md, python-chess's ``find_variant``).

Each ruleset is one module of this package that defines a class and registers one instance
with :func:`register`; the engine asks the instance's hooks and data and never tests which
ruleset it is. ``get_ruleset(name)`` finds a charge ruleset (miniatures on a table),
``get_ruleset(name, kind="hex")`` a hex-and-counter one (HEX.md); :func:`implemented` lists
what this build can rule with.
"""

from __future__ import annotations

from typing import Any

from ..errors import RequestError
from .base import Ruleset

#: Every registered ruleset by name, of every kind (``charge`` or ``hex``).
REGISTRY: dict[str, Any] = {}
#: Other names a ruleset answers to (``mpbs-6`` for ``mpbs``, HEX.md 14) -> its name.
ALIASES: dict[str, str] = {}
#: The ruleset a request that names none is ruled by (DESIGN.md: t9a-1 is the default).
DEFAULT = "t9a-1"
#: Presets of RULES-editions.md not implemented yet: asking for one is a clear error.
PLANNED: tuple[str, ...] = ("t9a-2", "t9a-3")


def register(ruleset: Any) -> Any:
    """Add ``ruleset`` (an instance with ``name``, ``title`` and ``kind``) to the registry."""
    if ruleset.name in REGISTRY:
        raise ValueError(f"ruleset {ruleset.name!r} registered twice")
    REGISTRY[ruleset.name] = ruleset
    for alias in getattr(ruleset, "aliases", ()):
        ALIASES[alias] = ruleset.name
    return ruleset


def implemented(kind: str | None = None) -> list[Any]:
    """The registered rulesets (of ``kind`` when given), in registration order."""
    return [r for r in REGISTRY.values() if kind is None or r.kind == kind]


def get_ruleset(name: object, kind: str = "charge") -> Any:
    """The registered ruleset ``name`` of ``kind``; a :class:`RequestError` naming the field
    ``ruleset`` for anything else."""
    names = ", ".join(r.name for r in implemented(kind))
    if not isinstance(name, str):
        raise RequestError(f"ruleset: must be a string, one of {names}")
    found = REGISTRY.get(ALIASES.get(name, name))
    if found is not None and found.kind == kind:
        return found
    if found is None and name in PLANNED:
        raise RequestError(f"ruleset: '{name}' is not implemented yet; available: {names}")
    raise RequestError(f"ruleset: unknown ruleset '{name}'; available: {names}")


from . import lb, mpbs, t9a1, tow, whfb8  # noqa: E402  (register themselves)

#: The charge rulesets by name (kept for callers of the earlier flat module).
RULESETS: dict[str, Ruleset] = {r.name: r for r in implemented("charge")}

__all__ = ["DEFAULT", "Ruleset", "REGISTRY", "RULESETS", "PLANNED", "register", "implemented",
           "get_ruleset", "t9a1", "tow", "whfb8", "mpbs", "lb", "ALIASES"]
