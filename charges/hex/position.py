"""The hex position (HEX.md 4, 14): map, turn, units, leaders, markers and the chit cup, read
from ``umpire.hex-position/1`` JSON and validated with the section-4 codes.

Stacks are derived from ``hexes`` and ``stack_pos`` (0 = top); units without ``stack_pos`` go
under those that have one, in the order listed. What a ruleset allows (unit types, formations,
facing models, stacking) comes from the ruleset's hooks, never from a test of its name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from geometry import hexfacing as hf
from geometry.hexgrid import Hex, LabelOrigin, distance, hexside_id

from .errors import PositionError
from .fields import Reader, entries

SCHEMA = "umpire.hex-position/1"
PHASES = ("close_combat", "movement", "maneuver", "assault")
MORALE_STATES = ("good", "shaken", "broken")
#: The four action chits of the La Bataille cup (HEX.md 8.1, 14: ``--order`` names them and
#: the maneuver-unit ids in one list, so no maneuver unit may be called like one).
ACTION_CHITS = ("reinforcements", "artillery", "leaders", "rally")


@dataclass
class HexUnit:
    """One counter (or one multi-hex unit) of the position."""

    id: str
    side: str
    type: str
    hexes: tuple[Hex, ...]
    facing: int | None
    formation: str
    model: str = "vertex_2_2_2"
    subtype: str | None = None
    name: str | None = None
    strength_printed: int | None = None
    casualties: int = 0
    morale: int | None = None
    state: dict = field(default_factory=dict)
    capabilities: dict = field(default_factory=dict)
    raw: dict = field(default_factory=dict)
    where: str = ""
    #: The aspects of its neighbours, computed once (a unit's hexes and facing do not change
    #: within a ruling).
    _aspects: dict | None = field(default=None, repr=False, compare=False)

    @property
    def current_strength(self) -> int | None:
        """M&P 11.3.4: printed strength less casualties."""
        if self.strength_printed is None:
            return None
        return self.strength_printed - self.casualties

    @property
    def active(self) -> bool:
        return bool(self.state.get("active", False))

    def aspects(self) -> dict[Hex, str]:
        """Front/flank/rear of every hex adjacent to this unit (HEX.md 3.2-3.3)."""
        if self._aspects is None:
            self._aspects = hf.aspects(self.hexes, self.facing, self.model)
        return self._aspects

    def adjacent_to(self, h: Hex) -> bool:
        return any(distance(x, h) == 1 for x in self.hexes)

    def get(self, key: str, default: Any = None) -> Any:
        """A field of the unit's JSON (for ruleset-specific data such as ``melee_value``)."""
        return self.raw.get(key, default)


@dataclass
class Leader:
    id: str
    side: str
    hexes: tuple[Hex, ...]
    rank: str | None = None
    command_range: int | None = None
    moved: bool = False
    escort_of: str | None = None
    raw: dict = field(default_factory=dict)


@dataclass
class Marker:
    kind: str
    unit: str | None
    target_hex: Hex | None
    distance: int | None
    raw: dict = field(default_factory=dict)


@dataclass
class HexMap:
    layout: str = "flat"
    hex_flats_mm: float = 19.05
    labels: LabelOrigin | None = None
    default_terrain: str = "clear"
    terrain: dict[Hex, str] = field(default_factory=dict)
    info: dict[Hex, dict] = field(default_factory=dict)
    hexsides: dict[tuple[int, int, int], list[dict]] = field(default_factory=dict)
    bounds: tuple[int, int, int, int] | None = None  # q_min, q_max, r_min, r_max (axial)
    offset_bounds: tuple[int, int, int, int] | None = None  # col_min, col_max, row_min, ...

    def terrain_of(self, h: Hex) -> str:
        return self.terrain.get(h, self.default_terrain)

    def features(self, a: Hex, k: int) -> list[dict]:
        """The hexside features on side ``k`` of ``a``, each with ``high_side`` made relative
        to ``a`` (``"this"`` = ``a`` is the high side)."""
        sid = hexside_id(a, k)
        out = []
        for feat in self.hexsides.get(sid, []):
            flip = sid[:2] != a
            high = feat.get("high_side")
            if flip and high in ("this", "other"):
                high = "other" if high == "this" else "this"
            out.append({**feat, "high_side": high})
        return out

    def on_map(self, h: Hex) -> bool:
        if self.bounds is not None:
            q0, q1, r0, r1 = self.bounds
            if not (q0 <= h[0] <= q1 and r0 <= h[1] <= r1):
                return False
        if self.offset_bounds is not None and self.labels is not None:
            col = h[0] + self.labels.col0
            row = h[1] + self.labels.row0 + (h[0] + self.labels.parity) // 2
            c0, c1, w0, w1 = self.offset_bounds
            return c0 <= col <= c1 and w0 <= row <= w1
        return True


@dataclass
class Position:
    ruleset: str
    map: HexMap
    turn: dict
    units: list[HexUnit]
    leaders: list[Leader]
    markers: list[Marker]
    maneuver_units: list[dict]
    reinforcements: list[Any] | None
    rules_data: Any
    raw: dict
    notes: list[dict] = field(default_factory=list)
    #: hex -> units there, top first (HEX.md 4: stacks are derived).
    stacks: dict[Hex, list[HexUnit]] = field(default_factory=dict)
    by_id: dict[str, HexUnit] = field(default_factory=dict)
    leaders_by_id: dict[str, Leader] = field(default_factory=dict)

    def stack(self, h: Hex) -> list[HexUnit]:
        return self.stacks.get(h, [])

    def leaders_at(self, h: Hex) -> list[Leader]:
        return [ld for ld in self.leaders if h in ld.hexes]

    def enemies_of(self, side: str) -> list[HexUnit]:
        return [u for u in self.units if u.side != side]

    def sides(self) -> list[str]:
        seen: list[str] = []
        for s in [u.side for u in self.units] + [ld.side for ld in self.leaders]:
            if s not in seen:
                seen.append(s)
        return seen


def _read_map(data: dict) -> HexMap:
    rd = Reader("map")
    m = rd.obj(data.get("map", {}), "map")
    labels = None
    if m.get("label_origin") is not None:
        lo = rd.obj(m["label_origin"], "label_origin")
        lr = Reader("map.label_origin")
        labels = LabelOrigin(lr.integer(lo, "col0", 0), lr.integer(lo, "row0", 0),
                             lr.integer(lo, "parity", 0, 0, 1), lr.integer(lo, "digits", 2, 1))
    hm = HexMap(layout=rd.string(m, "layout", "flat", ("flat", "pointy")),
                hex_flats_mm=rd.number(m, "hex_flats_mm", 19.05), labels=labels,
                default_terrain=rd.string(m, "default_terrain", "clear"))
    # HEX.md 14: one entry per listed hex and per hexside (stored once): a second entry would
    # give it two terrains or features, and which one counted would depend on the order.
    listed: dict[Hex, str] = {}
    for hr, item in entries(m, "hexes", labels):
        hr.where = f"map.{hr.where}"
        h = hr.hex(item["label"] if "q" not in item and "label" in item else item, "q, r")
        if h in listed:
            raise hr.fail("HEX_DUPLICATE", "q, r", f"{hr.where}: hex {list(h)} is already "
                          f"listed as {listed[h]}; a hex has one entry (one terrain)",
                          hexes=[list(h)])
        listed[h] = hr.where
        hm.terrain[h] = hr.string(item, "terrain", hm.default_terrain)
        hm.info[h] = item
    sides: dict[tuple[int, int, int], str] = {}
    for sr, item in entries(m, "hexsides", labels):
        sr.where = f"map.{sr.where}"
        h = sr.hex(item, "q, r")
        k = sr.integer(item, "side", None, 0, 5)
        if k is None:
            raise sr.fail("FIELD_MISSING", "side", "is required (0-5)")
        sr.string(item, "feature")
        sid = hexside_id(h, k)
        if sid in sides:
            raise sr.fail("HEXSIDE_DUPLICATE", "q, r, side",
                          f"{sr.where}: side {k} of {list(h)} is the hexside {list(sid)} "
                          f"(canonical), already listed as {sides[sid]}; a hexside is "
                          f"stored once, with one feature", hexes=[list(h)])
        sides[sid] = sr.where
        high = sr.string(item, "high_side", None, ("this", "other"))
        if sid[:2] != h and high is not None:
            high = "other" if high == "this" else "this"
        hm.hexsides.setdefault(sid, []).append({**item, "high_side": high})
    _read_bounds(m, hm, rd)
    return hm


def _read_bounds(m: dict, hm: HexMap, rd: Reader) -> None:
    """``bounds``: ``{"q": [lo, hi], "r": [lo, hi]}`` (axial) or ``{"cols": [..], "rows":
    [..]}`` (printed labels, needs ``label_origin``). Without it the map is unbounded (HEX.md
    14)."""
    b = m.get("bounds")
    if b is None:
        return
    b = rd.obj(b, "bounds")

    def pair(key: str) -> tuple[int, int]:
        v = b.get(key)
        if (not isinstance(v, list) or len(v) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in v)):
            raise rd.fail("FIELD_INVALID", f"bounds.{key}", "must be [low, high] whole numbers")
        return int(v[0]), int(v[1])

    if "q" in b or "r" in b:
        hm.bounds = (*pair("q"), *pair("r"))
    if "cols" in b or "rows" in b:
        if hm.labels is None:
            raise rd.fail("FIELD_MISSING", "label_origin", "bounds by cols/rows need it")
        hm.offset_bounds = (*pair("cols"), *pair("rows"))


def _read_unit(i: int, item: Any, ruleset: Any, hm: HexMap) -> HexUnit:
    rd = Reader(f"units[{i}]", hm.labels)
    item = rd.obj(item, "units")
    uid = rd.string(item, "id")
    if uid is None:
        raise rd.fail("FIELD_MISSING", "id", "is required")
    rd = Reader(f"units[{i}] '{uid}'", hm.labels)
    utype = rd.string(item, "type", None, ruleset.unit_types)
    if utype is None:
        raise rd.fail("FIELD_MISSING", "type", f"is required ({', '.join(ruleset.unit_types)})")
    hexes = tuple(rd.hex_list(item, "hexes"))
    f = item.get("facing")
    formation = rd.string(item, "formation", ruleset.default_formation(
        utype, f if isinstance(f, int) and not isinstance(f, bool) else None),
                          ruleset.formations)
    state = rd.obj(item.get("state") or {}, "state")
    unit = HexUnit(id=uid, side=rd.string(item, "side") or "", type=utype, hexes=hexes,
                   facing=None, formation=formation, subtype=rd.string(item, "subtype"),
                   name=rd.string(item, "name"), state=state,
                   capabilities=rd.obj(item.get("capabilities") or {}, "capabilities"),
                   raw=item, where=rd.where)
    if not unit.side:
        raise rd.fail("FIELD_MISSING", "side", "is required")
    unit.strength_printed = rd.integer(item, "strength_printed", None, 0)
    unit.casualties = rd.integer(item, "casualties", 0, 0)
    unit.morale = rd.integer(item, "morale")
    if unit.strength_printed is not None and unit.casualties > unit.strength_printed:
        raise rd.fail("CASUALTIES_EXCEED_STRENGTH", "casualties",
                      f"{unit.casualties} casualties on a strength of {unit.strength_printed}",
                      units=[uid])
    sr = Reader(f"units[{i}] '{uid}'.state")
    sr.string(state, "morale_state", "good", MORALE_STATES)
    sr.string(state, "pistol", None, ("loaded", "spent"))
    for flag in ("active", "fired", "momentum", "in_command"):
        sr.boolean(state, flag, None)
    sr.integer(state, "formation_hits", 0, 0)
    unit.model = ruleset.facing_model(unit)
    _check_facing(unit, item, rd, ruleset)
    for h in hexes:
        if not hm.on_map(h):
            raise rd.fail("UNIT_HEX_OFF_MAP", "hexes", f"{list(h)} is off the map",
                          units=[uid], hexes=[list(h)])
    return unit


def _check_facing(unit: HexUnit, item: dict, rd: Reader, ruleset: Any) -> None:
    """HEX.md 3.2-3.3 and 14: a facing code 0..11 of the kind the model needs; a multi-hex unit
    on a straight line, facing perpendicular to it."""
    f = item.get("facing")
    if f is not None:
        if isinstance(f, bool) or not isinstance(f, int) or not 0 <= f <= 11:
            raise rd.fail("FACING_OUT_OF_RANGE", "facing", f"{f!r} is not a code 0..11",
                          units=[unit.id])
    unit.facing = f
    if len(unit.hexes) > 1:
        if len(unit.hexes) > ruleset.max_unit_hexes or len(set(unit.hexes)) != len(unit.hexes):
            raise rd.fail("TWO_HEX_NOT_ADJACENT", "hexes",
                          f"{len(unit.hexes)} hexes; a unit covers at most "
                          f"{ruleset.max_unit_hexes} distinct hexes", units=[unit.id])
        k = hf.line_axis(unit.hexes)
        if k is None:
            raise rd.fail("TWO_HEX_NOT_ADJACENT", "hexes",
                          f"{[list(h) for h in unit.hexes]} are not adjacent hexes in a line",
                          units=[unit.id], hexes=[list(h) for h in unit.hexes])
        if f is None or f not in hf.line_facings(k):
            good = " or ".join(str(x) for x in sorted(hf.line_facings(k)))
            raise rd.fail("TWO_HEX_BAD_FACING", "facing",
                          f"{f!r}: a line along {hf.DIRS[k]} faces {good} (perpendicular to "
                          f"its axis)", units=[unit.id])
        if not hf.facing_fits(unit.model, f):
            # HEX.md 3.3 and 14: a multi-hex unit is a line facing a vertex, but a column (or
            # any formation whose model faces a hexside) never can: its sides would all vanish
            # and every neighbour would read as "not adjacent".
            raise rd.fail("TWO_HEX_BAD_FACING", "formation",
                          f"{unit.formation!r} faces a hexside (even code), so it cannot cover "
                          f"{len(unit.hexes)} hexes: a multi-hex unit is a line facing a "
                          f"vertex", units=[unit.id])
        return
    if f is None:
        return  # read as all front: no flank or rear, and any neighbour in front (HEX.md 3.2)
    if not hf.facing_fits(unit.model, f):
        kind = "a vertex (odd code)" if unit.model in hf.VERTEX_MODELS else "a hexside (even)"
        raise rd.fail("FACING_OUT_OF_RANGE", "facing",
                      f"{f}: a {unit.type} in {unit.formation} faces {kind}", units=[unit.id])


def _stack_key(unit: HexUnit, k: int, rd: Reader) -> int | None:
    sp = unit.raw.get("stack_pos")
    if isinstance(sp, list):
        if len(sp) != len(unit.hexes):
            raise rd.fail("FIELD_INVALID", "stack_pos", "needs one entry per hex")
        sp = sp[k]
    if sp is None:
        return None
    if isinstance(sp, bool) or not isinstance(sp, int) or sp < 0:
        raise rd.fail("FIELD_INVALID", "stack_pos", f"{sp!r} is not a whole number >= 0")
    return sp


def _build_stacks(pos: Position) -> None:
    explicit: dict[Hex, dict[int, HexUnit]] = {}
    loose: dict[Hex, list[HexUnit]] = {}
    for u in pos.units:
        rd = Reader(u.where)
        for k, h in enumerate(u.hexes):
            sp = _stack_key(u, k, rd)
            if sp is None:
                loose.setdefault(h, []).append(u)
                continue
            seen = explicit.setdefault(h, {})
            if sp in seen:
                raise rd.fail("STACK_POS_DUPLICATE", "stack_pos",
                              f"{sp} in hex {list(h)} is also '{seen[sp].id}'s",
                              units=[seen[sp].id, u.id], hexes=[list(h)])
            seen[sp] = u
    for h in set(explicit) | set(loose):
        ordered = [explicit[h][k] for k in sorted(explicit.get(h, {}))] + loose.get(h, [])
        pos.stacks[h] = ordered


def load_position(data: Any, ruleset: Any, fix_wagons: bool = False) -> Position:
    """Read and validate a position (HEX.md 4) for ``ruleset``; a :class:`PositionError`
    naming the unit or hex, the field and the code for anything wrong."""
    rd = Reader("position")
    data = rd.obj(data, "position")
    schema = data.get("schema", SCHEMA)
    if schema != SCHEMA:
        raise rd.fail("SCHEMA_UNKNOWN", "schema", f"{schema!r}; this build reads {SCHEMA}")
    hm = _read_map(data)
    turn = rd.obj(data.get("turn") or {}, "turn")
    tr = Reader("turn")
    tr.string(turn, "phase", None, PHASES)
    for key in ("active_side", "initiative_side", "clock"):
        tr.string(turn, key)
    tr.integer(turn, "number", None, 0)
    units = [_read_unit(i, u, ruleset, hm) for i, u in enumerate(rd.items(data, "units"))]
    unfaced = [u.id for u in units if u.facing is None and u.model not in ("all_front",
                                                                          hf.UNFACED)]
    pos = Position(ruleset=data.get("ruleset", ruleset.name), map=hm, turn=turn, units=units,
                   leaders=[], markers=[], maneuver_units=[], reinforcements=None,
                   rules_data=data.get("rules_data"), raw=data)
    if unfaced:
        pos.notes.append({"code": "FACING_NOT_GIVEN", "rule": "3.2", "units": unfaced,
                          "hexes": [], "refuses": False,
                          "message": f"{', '.join(unfaced)} has no facing: read as all front "
                                     f"(no flank or rear hexes)"})
    for u in units:
        if u.id in pos.by_id:
            raise Reader(u.where).fail("UNIT_ID_DUPLICATE", "id", "another unit has this id",
                                       units=[u.id])
        pos.by_id[u.id] = u
    _read_leaders(data, pos)
    _read_markers(data, pos)
    _read_cup(data, pos)
    _build_stacks(pos)
    for h, stack in pos.stacks.items():
        sides = {u.side for u in stack}
        if len(sides) > 1:
            raise PositionError("ENEMIES_IN_ONE_HEX", f"hex {list(h)}", "units",
                                f"units of {', '.join(sorted(sides))} share it",
                                units=[u.id for u in stack], hexes=[list(h)])
        ruleset.check_stack(pos, h, stack, fix_wagons)
    return pos


def _read_leaders(data: dict, pos: Position) -> None:
    for rd, item in entries(data, "leaders", pos.map.labels):
        lid = rd.name(item, "id")
        rd = Reader(f"{rd.where} '{lid}'", pos.map.labels)
        if lid in pos.by_id or lid in pos.leaders_by_id:
            raise rd.fail("UNIT_ID_DUPLICATE", "id", "another unit or leader has this id")
        leader = Leader(id=lid, side=rd.name(item, "side"),
                        hexes=tuple(rd.hex_list(item, "hexes")), rank=rd.string(item, "rank"),
                        command_range=rd.integer(item, "command_range", None, 0),
                        moved=rd.boolean(item, "moved", False),
                        escort_of=rd.string(item, "escort_of"), raw=item)
        for h in leader.hexes:
            # HEX.md 4: a hex off the map is UNIT_HEX_OFF_MAP for a leader as for a unit.
            if not pos.map.on_map(h):
                raise rd.fail("UNIT_HEX_OFF_MAP", "hexes", f"{list(h)} is off the map",
                              units=[lid], hexes=[list(h)])
        pos.leaders.append(leader)
        pos.leaders_by_id[lid] = leader


def _read_markers(data: dict, pos: Position) -> None:
    """``markers`` (HEX.md 14): a marker's unit is a unit of the position and its
    ``target_hex`` a hex of the map (``UNIT_HEX_OFF_MAP``, as for units and leaders). An
    assault marker's target is adjacent to its unit (``ASSAULT_NOT_ADJACENT``; or the unit's
    own hex, once Mayhem has advanced it into its vacated target, HEX.md 7.2), and a unit
    carries one assault marker: two would split its assault between two targets
    (``ASSAULT_SPLIT_TARGETS``, 7.1)."""
    marked: dict[str, tuple[str, Hex | None]] = {}
    for rd, item in entries(data, "markers", pos.map.labels):
        kind = rd.name(item, "kind")
        uid = rd.string(item, "unit")
        if uid is not None and uid not in pos.by_id:
            raise rd.fail("UNKNOWN_UNIT", "unit", f"'{uid}' is not a unit of the position")
        target = item.get("target_hex")
        th = None if target is None else rd.hex(target, "target_hex")
        if th is not None and not pos.map.on_map(th):
            raise rd.fail("UNIT_HEX_OFF_MAP", "target_hex", f"{list(th)} is off the map",
                          units=[uid] if uid else [], hexes=[list(th)])
        if kind == "assault" and uid is not None:
            unit = pos.by_id[uid]
            if th is not None and not any(distance(h, th) <= 1 for h in unit.hexes):
                raise rd.fail("ASSAULT_NOT_ADJACENT", "target_hex",
                              f"{list(th)} is not adjacent to '{uid}' at "
                              f"{[list(h) for h in unit.hexes]}: an assault marker targets "
                              f"a neighbouring hex", units=[uid], hexes=[list(th)])
            if uid in marked:
                first, at = marked[uid]
                raise rd.fail("ASSAULT_SPLIT_TARGETS", "unit",
                              f"'{uid}' already carries the assault marker {first}"
                              + (f" (on {list(at)})" if at is not None else "")
                              + "; a unit assaults one target, with one marker",
                              units=[uid], hexes=[list(h) for h in (at, th) if h is not None])
            marked[uid] = (rd.where, th)
        pos.markers.append(Marker(kind, uid, th, rd.integer(item, "distance", None, 0), item))


def _read_cup(data: dict, pos: Position) -> None:
    """``maneuver_units`` (HEX.md 8.1, 14): each with an id that is not an action chit's name
    (``--order`` lists both in one list), a side, and units or leaders of that side, each in
    one maneuver unit only."""
    owner: dict[str, str] = {}
    for rd, item in entries(data, "maneuver_units"):
        where = rd.where
        mid = rd.name(item, "id")
        rd = Reader(f"{rd.where} '{mid}'")
        if mid.lower() in ACTION_CHITS or mid.rpartition(":")[2].lower() in ACTION_CHITS:
            raise rd.fail("MU_ID_IS_ACTION_CHIT", "id", f"{where}.id {mid!r} is the name of "
                          f"an action chit ({', '.join(ACTION_CHITS)}); the cup and --order "
                          f"would not tell the two chits apart: give the maneuver unit "
                          f"another id")
        side = rd.name(item, "side")
        item = {**item, "units": rd.str_list(item, "units")}
        for uid in item["units"]:
            if uid not in pos.by_id and uid not in pos.leaders_by_id:
                raise rd.fail("UNKNOWN_UNIT", "units", f"'{uid}' is not a unit or leader")
            other = (pos.by_id.get(uid) or pos.leaders_by_id[uid]).side
            if other != side:
                raise rd.fail("MU_UNIT_OTHER_SIDE", "units", f"{where}.units: '{uid}' is a "
                              f"unit of {other}; a maneuver unit of {side} is formed from "
                              f"{side}'s own units", units=[uid])
            if uid in owner:
                again = "twice in this maneuver unit" if owner[uid] == mid else \
                    f"already in maneuver unit '{owner[uid]}'"
                raise rd.fail("MU_UNIT_DUPLICATE", "units", f"{where}.units: '{uid}' is "
                              f"listed {again}; a unit belongs to one maneuver unit",
                              units=[uid])
            owner[uid] = mid
        if any(m["id"] == mid for m in pos.maneuver_units):
            raise rd.fail("UNIT_ID_DUPLICATE", "id", "another maneuver unit has this id")
        pos.maneuver_units.append(item)
    if "reinforcements" in data:
        value = data["reinforcements"]
        if not isinstance(value, list):
            raise Reader("position").fail("FIELD_INVALID", "reinforcements", "must be a list")
        pos.reinforcements = value
