"""The base of a hex-and-counter ruleset (HEX.md 13): data and hooks whose defaults come from
HEX.md, in the way python-chess writes variants (STYLE.md).

A ruleset sets its unit types, formations, facing-model table, options (every decision D-n of
HEX.md is one, with the decision as default) and the ruling kinds it answers; the mechanisms in
``charges.hex`` ask these hooks and never test which ruleset they serve.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from ..hex.errors import PositionError
from ..hex.position import HexUnit, Position
from ..hex.ruling import Context, Option

#: Options every hex ruleset has (HEX.md 6.2, 14).
COMMON_OPTIONS: dict[str, Option] = {
    "los_spine": Option("both", ("both", "either"), None, "9.1.3",
                        "a line along a spine is blocked only if both candidate hexes block "
                        "(or if either does)"),
    "fix_wagons": Option(False, (False, True), None, "8.5",
                         "put a wagon that is not at the bottom of its stack under the others "
                         "instead of refusing the position"),
}


class HexRuleset:
    """Defaults for any hex-and-counter game; subclasses set their own data."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    kind: ClassVar[str] = "hex"
    aliases: ClassVar[tuple[str, ...]] = ()
    unit_types: ClassVar[tuple[str, ...]] = ()
    formations: ClassVar[tuple[str, ...]] = ()
    #: The longest multi-hex unit (HEX.md 3.3).
    max_unit_hexes: ClassVar[int] = 2
    #: (type, formation) -> facing model; ``(type, "*")`` and ``("*", formation)`` also match.
    facing_models: ClassVar[dict[tuple[str, str], str]] = {}
    default_model: ClassVar[str] = "vertex_2_2_2"
    #: Types that are combat units (not wagons) for stacking and combat.
    cavalry_types: ClassVar[tuple[str, ...]] = ("cavalry",)
    artillery_types: ClassVar[tuple[str, ...]] = ("artillery",)
    #: This ruleset's own options, added to :data:`COMMON_OPTIONS`.
    own_options: ClassVar[dict[str, Option]] = {}

    # -- data hooks -----------------------------------------------------------------------------
    def options(self) -> dict[str, Option]:
        return {**COMMON_OPTIONS, **self.own_options}

    def default_formation(self, unit_type: str, facing: int | None = None) -> str:
        """The formation of a unit whose position gives none."""
        return self.formations[0] if self.formations else "normal"

    def facing_model(self, unit: HexUnit) -> str:
        """The facing model of HEX.md 3.2 for the unit's type, subtype and formation."""
        table = self.facing_models
        for key in ((f"{unit.type}/{unit.subtype}", unit.formation), (unit.type, unit.formation),
                    (unit.type, "*"), ("*", unit.formation)):
            if key in table:
                return table[key]
        return self.default_model

    def is_cavalry(self, unit: HexUnit) -> bool:
        return unit.type in self.cavalry_types

    def is_artillery(self, unit: HexUnit) -> bool:
        return unit.type in self.artillery_types

    def check_stack(self, pos: Position, h: tuple[int, int], stack: list[HexUnit],
                    fix_wagons: bool) -> None:
        """Raise a :class:`PositionError` for a stack the game forbids (HEX.md 4)."""
        return None

    # -- rulings --------------------------------------------------------------------------------
    def kinds(self) -> dict[str, tuple[Callable[..., dict], tuple[str, ...]]]:
        """Ruling kind -> (handler(ctx, **params), the params it takes)."""
        return {}

    def cite(self, rule: str) -> str:
        """A rule number as a player reads it: ``(11.3.4)``."""
        return f"({rule})"

    @staticmethod
    def stack_error(code: str, h: tuple[int, int], message: str,
                    units: list[str]) -> PositionError:
        return PositionError(code, f"hex {list(h)}", "stack_pos", message, units=units,
                             hexes=[list(h)])

    def make_context(self, kind: str, pos: Position, options: dict[str, Any],
                     data: dict | None, source: str | None) -> Context:
        return Context(kind, self, pos, options, data, source)
