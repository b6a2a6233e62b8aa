"""Pydantic models of the hex routes (HEX.md 4, 13, 14), so ``/openapi.json`` shows every hex
request, ruling and refusal.

They describe shapes and the limits a schema can state; the meaning (an unknown unit, a facing
that does not fit the formation, a stack the game forbids) is the engine's to judge, and it
answers with the section-4 code. Types are strict (``"3"`` is not a facing, ``1`` is not
``true``), as the engine reads them. Position objects allow extra fields, because a position
grows by adding fields (HEX.md 13: "add fields freely"); a request's own top level forbids
them, so a misspelt option is refused rather than ignored.

Besides what the engine checks, the server bounds the numbers that size work: hex
coordinates (:data:`MAX_COORD`), movement allowances and ranges, and how deeply a body may
nest, so that no request can make a ruling loop for minutes or overflow a float.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, create_model, model_validator

import charges
from charges.hex.position import MORALE_STATES, PHASES, SCHEMA
from charges.hex.reactions import EVENT_KINDS, MODES
from charges.rulesets import implemented
from server import hex_samples
from server.models import one_of

#: Hex coordinates further out than this are refused: no printed map comes near, and beyond
#: about 1e308 a coordinate cannot even be drawn.
MAX_COORD = 1_000_000
#: Distances and allowances in hexes or movement points (movement allowance, command range,
#: weapon ranges): a rally route search grows with the square of the allowance.
MAX_RANGE = 99
#: Counts of things a player counts by hand (strength points, increments, morale ratings).
MAX_COUNT = 1_000_000
#: How deeply a request body may nest (a position is at most five levels deep).
MAX_DEPTH = 32

_HEX_RULESETS = implemented("hex")
RULESET_NAMES = tuple(n for r in _HEX_RULESETS for n in (r.name, *r.aliases))
UNIT_TYPES = tuple(dict.fromkeys(t for r in _HEX_RULESETS for t in r.unit_types))
FORMATIONS = tuple(dict.fromkeys(f for r in _HEX_RULESETS for f in r.formations))

Coord = Annotated[int, Field(ge=-MAX_COORD, le=MAX_COORD)]
Range = Annotated[int, Field(ge=0, le=MAX_RANGE)]
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Rating = Annotated[int, Field(ge=-MAX_COUNT, le=MAX_COUNT)]
Name = Annotated[str, Field(min_length=1, max_length=200)]


class _Shape(BaseModel):
    """A part of a position: strict types, extra fields kept."""

    model_config = ConfigDict(extra="allow", strict=True)


class HexQR(_Shape):
    q: Coord
    r: Coord


#: A hex: ``[q, r]`` (axial), ``{"q": .., "r": ..}``, or a printed label ``"CCRR"`` when the map
#: has a ``label_origin`` (HEX.md 3.1, 4).
HexRef = Annotated[Annotated[list[Coord], Field(min_length=2, max_length=2)] | HexQR | Annotated[
    str, Field(pattern=r"^[0-9]{2,12}$", description="printed label CCRR")],
    one_of('a hex: [q, r], {"q": q, "r": r} or a printed label such as "0405"')]
#: A hex in a request (HEX.md 14): ``[q, r]`` or, as the command line writes it, ``"Q,R"``.
HexText = Annotated[Annotated[list[Coord], Field(min_length=2, max_length=2)] | Annotated[
    str, Field(pattern=r"^-?[0-9]{1,7},-?[0-9]{1,7}$", description="Q,R")],
    one_of('a hex: [q, r] (two whole numbers) or the text "Q,R" (e.g. "0,-1")')]


class LabelOrigin(_Shape):
    """Printed labels to axial (HEX.md 3.1): ``q = C - col0``, ``r = R - row0 - floor((q +
    parity) / 2)``."""

    col0: Coord | None = None
    row0: Coord | None = None
    parity: Annotated[int, Field(ge=0, le=1)] | None = None
    digits: Annotated[int, Field(ge=1, le=6)] | None = None


Pair = Annotated[list[Coord], Field(min_length=2, max_length=2)]


class Bounds(_Shape):
    """Axial ``q`` and ``r`` ranges, or printed ``cols`` and ``rows`` (with ``label_origin``)."""

    q: Pair | None = None
    r: Pair | None = None
    cols: Pair | None = None
    rows: Pair | None = None


class MapHex(_Shape):
    q: Coord | None = None
    r: Coord | None = None
    label: Annotated[str, Field(pattern=r"^[0-9]{2,12}$")] | None = None
    terrain: Name | None = None


class MapHexside(_Shape):
    """A hexside feature, stored on side 0-5 of its hex (canonically 0-2)."""

    q: Coord | None = None
    r: Coord | None = None
    label: Annotated[str, Field(pattern=r"^[0-9]{2,12}$")] | None = None
    side: Annotated[int, Field(ge=0, le=5)]
    feature: Name
    high_side: Literal["this", "other"] | None = None


class HexMap(_Shape):
    layout: Literal["flat", "pointy"] | None = None
    hex_flats_mm: Annotated[float, Field(gt=0, le=1000, allow_inf_nan=False)] | None = Field(
        default=None, description="Width of a hex across flats on the printed map, mm")
    label_origin: LabelOrigin | None = None
    default_terrain: Name | None = None
    bounds: Bounds | None = None
    hexes: list[MapHex] | None = None
    hexsides: list[MapHexside] | None = None


class Turn(_Shape):
    number: Count | None = None
    clock: Name | None = None
    phase: Literal[PHASES] | None = None  # type: ignore[valid-type]
    active_side: Name | None = None
    initiative_side: Name | None = None


class UnitState(_Shape):
    active: bool | None = None
    morale_state: Literal[MORALE_STATES] | None = None  # type: ignore[valid-type]
    pistol: Literal["loaded", "spent"] | None = None
    fired: bool | None = None
    momentum: bool | None = None
    in_command: bool | None = None
    formation_hits: Count | None = None
    limbered: bool | None = None
    ammunition: bool | None = None


class Capabilities(_Shape):
    can_fire: bool | None = None
    short_range: Range | None = None
    max_range: Range | None = None
    fire_range: Range | None = None


class HexUnit(_Shape):
    """One counter, or one multi-hex line (HEX.md 3.3, 4)."""

    id: Name
    side: Name
    type: Literal[UNIT_TYPES]  # type: ignore[valid-type]
    subtype: Name | None = None
    name: Name | None = None
    hexes: Annotated[list[HexRef], Field(min_length=1, max_length=5)]
    facing: Annotated[int, Field(ge=0, le=11, description="0-11, bearing 30 x f")] | None = None
    stack_pos: Annotated[Count | list[Count], one_of(
        "a place in the stack (0 = top) or a list of them, one per hex")] | None = Field(
        default=None, description="0 = top")
    formation: Literal[FORMATIONS] | None = None  # type: ignore[valid-type]
    strength_printed: Count | None = None
    casualties: Count | None = None
    morale: Rating | None = None
    movement_allowance: Range | None = None
    increments: Count | None = None
    melee_value: Count | None = None
    superior: Name | None = None
    state: UnitState | None = None
    capabilities: Capabilities | None = None


class Leader(_Shape):
    id: Name
    side: Name
    hexes: Annotated[list[HexRef], Field(min_length=1, max_length=5)]
    rank: Name | None = None
    command_range: Range | None = None
    moved: bool | None = None
    escort_of: Name | None = None


class Marker(_Shape):
    """An assault marker (La Bataille): the unit, the hex it assaults, its distance."""

    kind: Name
    unit: Name | None = None
    target_hex: HexRef | None = None
    distance: Range | None = None


class ManeuverUnit(_Shape):
    id: Name
    side: Name
    name: Name | None = None
    units: list[Name] | None = None


class HexPosition(_Shape):
    """A position, ``umpire.hex-position/1`` (HEX.md 4). ``rules_data`` is the rules data
    inline, or the bare name of a rules-data file the server ships (``GET /api/hex/samples``);
    the server never reads any other file."""

    schema_: Literal[SCHEMA] = Field(default=SCHEMA, alias="schema")  # type: ignore[valid-type]
    ruleset: Literal[RULESET_NAMES]  # type: ignore[valid-type]
    title: str | None = None
    rules_data: Annotated[Annotated[str, Field(max_length=200)] | dict[str, Any], one_of(
        "the rules data as an object, or the name of a rules-data file the server ships")
    ] | None = None
    map: HexMap | None = None
    turn: Turn | None = None
    units: Annotated[list[HexUnit], Field(max_length=2000)] | None = None
    leaders: list[Leader] | None = None
    markers: list[Marker] | None = None
    maneuver_units: list[ManeuverUnit] | None = None
    reinforcements: list[Any] | None = None


def _check_depth_and_numbers(value: Any) -> None:
    """Refuse NaN and infinities anywhere (Python's JSON reader takes them; no JSON writer can
    send them back) and bodies nested deeper than :data:`MAX_DEPTH`; without recursion, so a
    deep body cannot exhaust the stack."""
    todo: list[tuple[Any, int, str]] = [(value, 0, "")]
    while todo:
        v, depth, where = todo.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError(f"{where or 'body'}: {v} is not a finite number")
        if isinstance(v, dict):
            todo.extend((x, depth + 1, f"{where}.{k}" if where else str(k))
                        for k, x in v.items())
        elif isinstance(v, list):
            todo.extend((x, depth + 1, f"{where}[{i}]") for i, x in enumerate(v))


class HexRequest(BaseModel):
    """What every hex ruling takes: the position, optional rules data, and the options."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    position: HexPosition
    rules_data: dict[str, Any] | None = Field(
        default=None, description="The rules data (the game's tables, supplied by you) as a JSON "
                                  "object (docs/hex-rules-data.md). Without it, the data the "
                                  "position names when that is a file the server ships.")

    @model_validator(mode="before")
    @classmethod
    def _sane(cls, data: Any) -> Any:
        _check_depth_and_numbers(data)
        return data


def _with_options(name: str, ruleset: str) -> type[HexRequest]:
    """``HexRequest`` plus every option of ``ruleset`` (each decision D-n of HEX.md by its name,
    with the readings it allows), taken from ``charges.hex.describe()``."""
    info = next(r for r in charges.hex.describe() if r["name"] == ruleset)
    fields: dict[str, Any] = {}
    for opt, o in info["options"].items():
        doc = (f"{o['doc']} " if o["doc"] else "") + f"(rule {o['rule']}" + (
            f", decision {o['decision']}" if o["decision"] else "") + f"; default {o['default']!r})"
        # A yes/no reading is a JSON boolean (a Literal of True/False would take 0 and 1).
        kind = bool if set(o["choices"]) == {True, False} else Literal[tuple(o["choices"])]
        fields[opt] = (kind | None, Field(default=None, description=doc))  # type: ignore[valid-type]
    return create_model(name, __base__=HexRequest, **fields)


def _example(sample: str, **params: Any) -> ConfigDict:
    """A request on a shipped sample, for /docs and the schema's examples."""
    return ConfigDict(json_schema_extra={"examples": [
        {"position": hex_samples.position(sample), **params}]})


MpbsRequest = _with_options("MpbsRequest", "mpbs")
LbRequest = _with_options("LbRequest", "lb")
Ids = Annotated[list[Name], Field(max_length=50)]


class CombatRequest(MpbsRequest):  # type: ignore[misc, valid-type]
    """Musket & Pike close combat (HEX.md 5): the defender, and the attackers (default: every
    enemy unit with the defender in its front) and the cavalry expending its pistols."""

    model_config = _example("edgehill", defender="par-ramsey")

    defender: Name
    # HEX.md 13: "the options above", whose CLI flags are singular (--attacker, --pistol).
    attackers: Ids | None = Field(None, validation_alias=AliasChoices("attackers", "attacker"))
    pistols: Ids | None = Field(None, validation_alias=AliasChoices("pistols", "pistol"))


class TriggerEvent(_Shape):
    """One trigger record of HEX.md 6.1 (a move of N hexes is N records)."""

    kind: Literal[EVENT_KINDS]  # type: ignore[valid-type]
    unit: Name
    hex: HexText | None = Field(default=None, description="Where it happens (default: the "
                                                          "unit's hex)")
    mode: Literal[MODES] | None = None  # type: ignore[valid-type]
    target: Name | None = None
    reaction_target: Name | None = None
    from_hex: HexText | None = None


class ReactionsRequest(MpbsRequest):  # type: ignore[misc, valid-type]
    """Musket & Pike reactions (HEX.md 6): one ``event`` or a list of ``events``."""

    model_config = _example("edgehill", event={"kind": "enter_hex", "unit": "roy-rupert",
                                               "hex": [0, 1]})

    event: TriggerEvent | None = None
    events: Annotated[list[TriggerEvent], Field(min_length=1, max_length=50)] | None = None


class AssaultRequest(LbRequest):  # type: ignore[misc, valid-type]
    """La Bataille assault declaration (HEX.md 7): the assaulting units and one or two
    targets, each a unit id or a hex."""

    model_config = _example("quatre-bras", assault=["fr-bn1", "fr-bn2"], target=["al-27"])

    assault: Annotated[Annotated[list[Name], Field(min_length=1, max_length=50)] | Name,
                       one_of("a unit id or a list of unit ids")]
    target: Annotated[
        Annotated[list[Annotated[Name | HexText, one_of(
            'a unit id, a hex [q, r] or the text "Q,R"')]], Field(min_length=1, max_length=2)]
        | Name, one_of('a list of one or two targets (unit ids or hexes), or one unit id or '
                       '"Q,R"')] = Field(
        description="A list of one or two targets, each a unit id, a hex [q, r] or 'Q,R'; or "
                    "one id or 'Q,R'")
    join: Ids | None = None


class RallyRequest(LbRequest):  # type: ignore[misc, valid-type]
    """La Bataille rally move (HEX.md 8.3): the unit and, to check one, the hexes it enters in
    order (without its start hex)."""

    model_config = _example("quatre-bras", unit="al-8-militia", path=["-1,0", "-1,-1", "0,-2"])

    unit: Name
    path: Annotated[list[HexText], Field(max_length=MAX_RANGE)] | None = None
    formation_change: Literal[FORMATIONS] | None = None  # type: ignore[valid-type]
    declares: Literal["assault", "charge"] | None = None


class CupRequest(LbRequest):  # type: ignore[misc, valid-type]
    """La Bataille chit cup (HEX.md 8.1-8.2): simulate with ``seed`` or replay an ``order``;
    with neither, the draw uses a fresh random seed, given in the ruling's ``seed``."""

    model_config = _example("quatre-bras", seed=4)

    seed: Annotated[int, Field(ge=0, le=2**63 - 1)] | None = None
    order: Annotated[list[Name], Field(max_length=500)] | None = None

    @model_validator(mode="after")
    def _seed_or_order(self) -> CupRequest:
        """One or the other, as ``umpire hex cup`` asks (a replayed order has no seed)."""
        if self.seed is not None and self.order is not None:
            raise ValueError("seed and order: give one of them, not both")
        return self


class MapRequest(BaseModel):
    """A position to draw (the page's own file)."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"examples": [
        {"position": hex_samples.position("edgehill")}]})

    position: HexPosition

    @model_validator(mode="before")
    @classmethod
    def _sane(cls, data: Any) -> Any:
        _check_depth_and_numbers(data)
        return data


# -- answers ------------------------------------------------------------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class HexReason(_Out):
    """Why a ruling refuses, or a note it adds: the code, the game's rule, a sentence."""

    code: str
    rule: str
    message: str
    units: list[str] = Field(default_factory=list)
    hexes: list[Any] = Field(default_factory=list)
    refuses: bool | None = None


class HexRuling(_Out):
    """Every hex ruling (HEX.md 13): legal or not, the reasons, the decisions it relied on,
    and sentences a player can read aloud."""

    ruling: str = Field(examples=["close_combat"])
    ruleset: str
    legal: bool
    complete: bool | None = Field(default=None, description="False when rules data is missing")
    reasons: list[HexReason]
    decisions: list[str] = Field(description="The HEX.md decisions D-n relied on; each is an "
                                             "option (GET /api/hex/kinds)")
    explanation: list[str]


class CloseCombatItem(_Out):
    slot: str
    rule: str
    value: int | float | None = None
    why: str


class CloseCombatRuling(HexRuling):
    items: list[CloseCombatItem] | None = None
    raw: int | float | None = None
    net: int | float | None = Field(default=None, description="The attacker's die roll modifier")
    capped: bool | None = None
    odds: dict[str, Any] | None = Field(default=None, description="attack, defence, ratio "
                                                                  "('N:1' or '1:N'), value")


class AssaultRuling(HexRuling):
    approach_distance: int | None = None
    melee: list[dict[str, Any]] | None = None
    stack_order: list[str] | dict[str, Any] | None = None


class ReactionsRuling(HexRuling):
    candidates: list[dict[str, Any]] | None = Field(
        default=None, description="One per unit: eligible kinds, blocked {kind, code, rule}")


class RallyRuling(HexRuling):
    allowance: int | None = None
    spent: int | None = None
    end_hex: list[int] | None = None
    best_route: list[Any] | None = None
    formation_after: str | None = None


class CupRuling(HexRuling):
    draws: list[dict[str, Any]] | None = Field(
        default=None, description="In order: chit, side, acts (what it activates, in order)")


class HexMapLayout(_Out):
    """A position as a picture (``vision.hexmap``): mm on the printed map, x right, y down."""

    layout: str
    hex_flats_mm: float
    viewbox: list[float]
    hexes: list[dict[str, Any]]
    hexsides: list[dict[str, Any]]
    units: list[dict[str, Any]]
    stacks: list[dict[str, Any]]
    leaders: list[dict[str, Any]]
    markers: list[dict[str, Any]]
    sides: list[dict[str, Any]]


class HexSampleInfo(BaseModel):
    name: str = Field(examples=["edgehill"])
    title: str
    ruleset: str
    url: str


class HexSampleList(BaseModel):
    samples: list[HexSampleInfo]


class HexSample(HexSampleInfo):
    """A shipped position, its rules data (illustrative) and its map layout."""

    position: dict[str, Any]
    rules_data: dict[str, Any] | None = None
    map: HexMapLayout
