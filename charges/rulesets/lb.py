"""La Bataille (Clash of Arms; seeds 000 and 002; HEX.md 7-8): assault declarations and the
Mayhem of the assault segment, melee values of multi-hex lines, the chit cup of the maneuver
segment and the rally move.

Every decision HEX.md takes on this game's ambiguities (D-13 to D-20) is an option here with
the decision as its default. The publisher's tables (Roll to Approach and to Stand, melee,
terrain costs, stacking limits) come from the user's rules data.
"""

from __future__ import annotations

from typing import ClassVar

from ..hex import assault, cup, firecheck, mayhem, rally
from ..hex.position import HexUnit, Position
from ..hex.ruling import Option
from . import register
from .hexbase import HexRuleset


class LaBataille(HexRuleset):
    name = "lb"
    title = "La Bataille (Règlement de l'An XXX)"
    aliases = ("la-bataille",)
    unit_types = ("infantry", "cavalry", "artillery")
    formations = ("column", "line", "carre", "skirmish", "general_order", "road_column",
                  "disordered", "pgd", "limbered", "unlimbered")
    #: Some titles deploy formations over more than two hexes (HEX.md 3.3).
    max_unit_hexes = 5
    #: HEX.md 3.2 (Premier's values where verified, [inferred] otherwise): lines face a vertex,
    #: columns and unlimbered guns a hexside; carré is all front.
    facing_models: ClassVar[dict[tuple[str, str], str]] = {
        ("infantry", "line"): "vertex_2_2_2", ("infantry", "column"): "side_3_2_1",
        ("infantry", "road_column"): "side_3_2_1", ("infantry", "carre"): "all_front",
        ("infantry", "skirmish"): "vertex_4_2_0", ("infantry", "general_order"): "all_front",
        ("infantry", "disordered"): "side_3_2_1", ("infantry", "pgd"): "side_3_2_1",
        ("cavalry", "line"): "vertex_2_2_2", ("cavalry", "column"): "side_3_2_1",
        ("cavalry/light", "column"): "side_5_0_1", ("cavalry", "general_order"): "side_5_0_1",
        ("cavalry", "*"): "side_3_2_1", ("infantry", "*"): "side_3_2_1",
        ("artillery", "unlimbered"): "side_3_2_1", ("artillery", "limbered"): "none",
        ("artillery", "*"): "side_3_2_1"}
    own_options: ClassVar[dict[str, Option]] = {
        "partial_stack": Option("refuse", ("refuse", "add"), "D-13", "Apilamiento"),
        "multihex_occupy": Option("adjacent_distinct_halves",
                                  ("adjacent_distinct_halves", "front_only"), "D-14",
                                  "Asaltos multihexágono"),
        "multihex_single_target": Option("all_shares", ("all_shares", "contact_only"), "D-15",
                                         "Asaltando en Línea Multihexágono"),
        "action_chits": Option("shared", ("shared", "per_side"), "D-16", "Fichas de acción"),
        "drawer": Option("alternate", ("alternate", "initiative_always"), "D-17",
                         "Segmento de maniobra"),
        "rally_adjacent": Option("any_point", ("any_point", "end_only"), "D-18",
                                 "Reagrupamiento"),
        "rally_shortest": Option("mp", ("mp", "hexes"), "D-19", "Reagrupamiento"),
        "go_entry": Option("stop", ("stop", "continue"), "D-20", "Orden General"),
    }

    def default_formation(self, unit_type: str, facing: int | None = None) -> str:
        """Without a formation, the facing tells: a vertex is a line, a hexside a column
        (HEX.md 14); guns are unlimbered."""
        if unit_type == "artillery":
            return "unlimbered"
        return "line" if facing is not None and facing % 2 else "column"

    def is_combat(self, unit: HexUnit) -> bool:
        return True

    def check_stack(self, pos: Position, h: tuple[int, int], stack: list[HexUnit],
                    fix_wagons: bool) -> None:
        """All units of a hex share one formation and facing (artillery aside: a hex may hold a
        column of battalions and an unlimbered battery); cavalry never stacks with infantry."""
        troops = [u for u in stack if u.type != "artillery"]
        kinds = {(u.formation, u.facing) for u in troops}
        if len(kinds) > 1:
            raise self.stack_error("LB_MIXED_FORMATIONS_IN_HEX", h, "its units are in "
                                   + ", ".join(f"{u.id}: {u.formation} facing {u.facing}"
                                               for u in troops), [u.id for u in troops])
        types = {u.type for u in troops}
        if {"cavalry", "infantry"} <= types:
            raise self.stack_error("LB_CAVALRY_WITH_INFANTRY", h, "cavalry and infantry share "
                                   "the hex", [u.id for u in troops])

    def kinds(self) -> dict:
        return {"assault": (assault.resolve, ("assault", "target", "join")),
                "rally": (rally.resolve, ("unit", "path", "formation_change", "declares")),
                "cup": (cup.resolve, ("seed", "order")),
                "fire_check": (firecheck.resolve, ("firer", "target", "segment")),
                "mayhem": (mayhem.after_fire, ("assault", "target", "outcome", "vacated"))}


register(LaBataille())
