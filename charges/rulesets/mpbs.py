"""Musket & Pike Battle Series, series rules v6 (GMT; seeds 001 and 004; HEX.md 5-6): close
combat, momentum, the close-combat sequence, reactions, cavalry incorporation and wagons.

Every decision HEX.md takes on this game's ambiguities (D-1 to D-12) is an option here with the
decision as its default. The publisher's tables (Close Combat Matrix, TEC, reaction-move zones)
come from the user's rules data.
"""

from __future__ import annotations

from typing import ClassVar

from geometry.hexgrid import direction

from ..hex import ccsequence, closecombat, incorporation, momentum, reactions
from ..hex.position import HexUnit, Position
from ..hex.ruling import Context, Option
from . import register
from .hexbase import HexRuleset


class MusketAndPike(HexRuleset):
    name = "mpbs"
    title = "Musket & Pike Battle Series (series rules 6)"
    aliases = ("mpbs-6",)
    unit_types = ("cavalry", "heavy_infantry", "light_infantry", "dragoons", "artillery",
                  "wagon")
    formations = ("normal", "open_order", "hedgehog", "dispersed")
    #: HEX.md 3.2: faced units face a vertex with 2 front, 2 flank, 2 rear hexes; Hedgehog and
    #: Dispersed have no flank or rear (11.3.7); wagons have no facing.
    facing_models: ClassVar[dict[tuple[str, str], str]] = {
        ("*", "hedgehog"): "all_front", ("*", "dispersed"): "all_front",
        ("wagon", "*"): "none"}
    #: 11.2: no formation hit for these formations.
    no_formation_hit_formations = ("hedgehog", "dispersed")
    own_options: ClassVar[dict[str, Option]] = {
        "multi_defender": Option("combine", ("combine", "target_only"), "D-1", "11.3.1"),
        "hexside_drm": Option("one_most_favourable", ("one_most_favourable", "sum"), "D-2",
                              "11.3.1"),
        "leader_outside_cap": Option(False, (False, True), "D-3", "11.3.2"),
        "cav_halving": Option("all_cavalry", ("all_cavalry", "any_cavalry"), "D-4", "11.3.5"),
        "halve_rounding": Option("exact", ("exact", "up"), "D-5", "11.3.5"),
        "odds_rounding": Option("defender", ("defender", "nearest"), "D-6", "11.3.4"),
        "odds_rows": Option("most_extreme", ("most_extreme", "literal_highest"), "D-7",
                            "11.3.4"),
        "momentum_hexes": Option("last_two", ("last_two", "any_two"), "D-8", "11.3.6"),
        "cc_line_order": Option("along_line", ("along_line", "free"), "D-9", "11.2"),
        "los_moment": Option("at_event", ("at_event", "before_event"), "D-10", "9.1.3"),
        "artillery_sector": Option("wedge60", ("wedge60", "cone120"), "D-11", "9.1.2"),
        "incorporation_morale": Option("lower", ("lower", "higher"), "D-12",
                                       "Cavalry Incorporation"),
        "cc_attacker_front_only": Option(True, (True, False), None, "11.2",
                                         "close combat only into the attacker's front hexes "
                                         "[inferred]"),
    }

    def facing_model(self, unit: HexUnit) -> str:
        if unit.type == "artillery" and unit.state.get("limbered"):
            return "none"  # HEX.md 3.2: limbered guns have no facing
        return super().facing_model(unit)

    def is_combat(self, unit: HexUnit) -> bool:
        return unit.type != "wagon"

    def can_fire(self, unit: HexUnit) -> bool:
        """``capabilities.can_fire`` (default: every faced combat unit; wagons and limbered
        guns never)."""
        if unit.type == "wagon" or unit.model == "none":
            return False
        return bool(unit.capabilities.get("can_fire", True))

    def is_heavy_infantry(self, unit: HexUnit) -> bool:
        return unit.type == "heavy_infantry"

    def has_formation_state(self, unit: HexUnit) -> bool:
        """Formation states do not apply to wagons or artillery (6.3.1)."""
        return unit.type not in ("wagon", "artillery")

    def is_open(self, ctx: Context, terrain: str) -> bool:
        """Terrain with no close-combat effect needs no TEC entry: the map's default terrain
        and the rules data's ``open_terrain``."""
        return terrain == ctx.position.map.default_terrain or terrain in (
            ctx.table("", "open_terrain", False) or [])

    def bridge_involved(self, ctx: Context, pairs: list) -> bool:
        """11.3.1a: a bridge hexside crossed, or a bridge hex attacked from or into."""
        bridges = set(ctx.table("", "bridge_terrain", False) or ["bridge"])
        m = ctx.position.map
        for x, y in pairs:
            if m.terrain_of(x) in bridges or m.terrain_of(y) in bridges:
                return True
            if any(f.get("feature") in bridges for f in m.features(x, direction(x, y))):
                return True
        return False

    def check_stack(self, pos: Position, h: tuple[int, int], stack: list[HexUnit],
                    fix_wagons: bool) -> None:
        """8.5: a wagon never stacks with artillery or another wagon, and lies under the other
        units (placed there automatically: with ``fix_wagons`` the engine does it)."""
        wagons = [u for u in stack if u.type == "wagon"]
        if not wagons:
            return
        if len(wagons) > 1:
            raise self.stack_error("WAGON_STACKED_WITH_WAGON", h, "two wagons share the hex "
                                   "(8.5)", [w.id for w in wagons])
        arty = [u for u in stack if u.type == "artillery"]
        if arty:
            raise self.stack_error("WAGON_STACKED_WITH_ARTILLERY", h, "a wagon may not stack "
                                   "with artillery (8.5)", [wagons[0].id, arty[0].id])
        if stack[-1] is not wagons[0]:
            if not fix_wagons:
                raise self.stack_error("WAGON_NOT_BOTTOM", h, f"wagon {wagons[0].id} must lie "
                                       "under the other units (8.5; auto-fixable: pass "
                                       "fix_wagons / --fix-wagons)", [wagons[0].id])
            stack.remove(wagons[0])
            stack.append(wagons[0])
            pos.notes.append({"code": "WAGON_NOT_BOTTOM", "rule": "8.5",
                              "message": f"wagon {wagons[0].id} placed under the other units "
                                         f"in {list(h)}", "units": [wagons[0].id],
                              "hexes": [list(h)], "refuses": False})

    def kinds(self) -> dict:
        return {"combat": (closecombat.resolve, ("defender", "attackers", "pistols")),
                "reactions": (reactions.resolve, ("event", "events")),
                "momentum": (momentum.resolve, ("unit", "path", "reacted_in_cc")),
                "cc_sequence": (ccsequence.resolve, ("designations", "reactions", "order",
                                                     "line_axis")),
                "incorporation": (incorporation.resolve, ("mover", "absorbed")),
                "wagons": (incorporation.enter, ("unit", "hex"))}


register(MusketAndPike())
