"""Pydantic models of the HTTP API (DESIGN.md, HTTP), so ``/docs`` and ``/openapi.json`` show
every request and answer.

These models describe shapes only; they hold no rules. The scene is validated for meaning by
``geometry`` (through ``charges.rule`` / ``vision.detect``), which names the unit and field at
fault. Every model allows extra fields: the contracts grow by adding fields ("add fields freely,
never rename"), and an answer must never be refused because the engine added one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
    model_serializer,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

import charges
from geometry.scene import (
    MAX_BASE_MM,
    MAX_COORD_MM,
    MAX_FACING_DEG,
    MAX_SIGMA_DEG,
    MAX_SIGMA_MM,
    MAX_TABLE_MM,
)

Number = float

#: The bundled sample's charge (server/samples), the example request of the OpenAPI.
_SAMPLE_REQUEST = {
    "ruleset": "t9a-1",
    "scene": json.loads((Path(__file__).parent / "samples" / "scene.json").read_text()),
    "charges": [{"charger": "knights", "target": "spears"}],
    "dice": {"knights": [3, 5, 2]}}


def one_of(accepts: str) -> WrapValidator:
    """For a field that takes one of several shapes (a union): its refusal in words, ``must be
    {accepts}``, instead of one error per shape tagged with pydantic's names for them
    (``on_accidental_contact.literal['halt','continue']: ...; on_accidental_contact.dict[str,
    ...]: ...``). When the value has one of the shapes and something inside it is wrong (an
    object whose entry is not 'halt'), that entry's own errors are kept, without the tag. The
    JSON Schema is the union's, unchanged."""

    def check(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError as e:
            # Each error's loc starts with the tag of the shape tried; deeper errors are those
            # of a shape the value has.
            inside = [x for x in e.errors() if len(x["loc"]) > 1]
            if inside:
                raise ValidationError.from_exception_data(e.title, [InitErrorDetails(
                    type=PydanticCustomError(x["type"], "{msg}", {"msg": x["msg"]}),
                    loc=x["loc"][1:], input=x["input"]) for x in inside]) from None
            raise PydanticCustomError("one_of", "must be {accepts}, not {given}",
                                      {"accepts": accepts, "given": _shown(value)}) from None

    return WrapValidator(check)


def _shown(value: Any) -> str:
    """A value as a refusal quotes it: a short scalar as written, else what kind it is."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        text = json.dumps(value)
        return text if len(text) <= 40 else f"{text[:37]}..."
    return {dict: "an object", list: "a list", type(None): "null"}.get(type(value), "that")


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


# -- errors -----------------------------------------------------------------------------------


class FieldError(BaseModel):
    """One problem in a request, located by the path of the field."""

    loc: list[str | int] = Field(description="Path of the field, e.g. ['body', 'charges', 0]")
    msg: str
    type: str


class ErrorBody(BaseModel):
    """What every 4xx (and the rare 5xx) answers: a short code and a sentence naming the
    problem, which the web page shows as it is."""

    error: str = Field(description="Short machine-readable code, e.g. 'bad_photo', 'too_large'",
                       examples=["bad_json"])
    detail: str = Field(description="Plain-language message naming the field or file at fault",
                        examples=["markers: not valid JSON (Expecting value at line 1 column 1)"])
    field: str | None = Field(default=None, description="The request field at fault, if one is")
    errors: list[FieldError] | None = Field(
        default=None, description="Every type error found, for requests that fail validation")
    # The engine's own fields when a hex ruling's position or request is refused (HEX.md 4).
    code: str | None = Field(default=None, description="The rules' refusal code, e.g. "
                                                       "FACING_OUT_OF_RANGE, UNKNOWN_UNIT")
    where: str | None = Field(default=None, description="Where it is, e.g. \"units[0] 'a'\"")
    message: str | None = Field(default=None, description="The engine's message in full")
    units: list[str] | None = Field(default=None, description="The units concerned")
    hexes: list[list[int]] | None = Field(default=None, description="The hexes concerned")


# -- scene (DESIGN.md, Scene) ----------------------------------------------------------------
#
# The scene models mirror every constraint of ``geometry.load_scene`` (geometry/scene.py) that
# a schema can say: positive table and base sizes, at least one file and rank, a non-negative
# Advance and measurement uncertainty, at least three corners to a terrain polygon. What a
# schema cannot say (units overlapping or off the table, ``models`` > files x ranks, unknown
# unit ids, a self-intersecting polygon) is checked by the engine and answered 422 naming the
# unit and field. They are strict, as JSON is: a number is a JSON number, never a string that
# looks like one, and ``true`` is not ``1``; NaN and infinities are refused.


#
# Limits of this server, beyond the rules, so that no request can hold a ruling thread for
# more than a second or two or exhaust memory. Each is far past any real table: the engine's
# cost grows with the square of the files of a unit and of the number of units (the overlap
# test of every pair: 100 units piled on one spot take about 1.5 s), and numbers of astronomic
# or vanishing size overflow or degenerate its geometry (a base under 1 mm is far below the
# smallest real base, 20 mm, yet still 100 times the contact tolerance of 0.01 mm).
# The bounds on numbers are the scene model's own (geometry/scene.py), so the command line and
# the Python API refuse what this server refuses: a table up to 100 m, a unit within 1 km of
# the table's corner, a facing within a million degrees (beyond about 1e15 an angle loses its
# degrees), a base up to 1 m, and measurement uncertainties no larger than the largest table
# and a full turn (a sigma of 1e155 mm squared is past a float).
MIN_BASE_MM = 1.0
MAX_FILES = MAX_RANKS = 100
MAX_UNITS = MAX_TERRAIN = 100
MAX_CORNERS = 1_000


def at_most(limit: float, unit: str, why: str) -> Any:
    """A number's upper bound with its reason in the refusal ("must be at most 360 degrees (a
    facing uncertainty of more than a full turn means nothing), not 1e+160"), stated in the
    schema as its ``maximum``."""

    def check(v: float) -> float:
        if v > limit:
            raise PydanticCustomError("less_than_equal", "{msg}", {
                "msg": f"must be at most {limit:g} {unit} ({why}), not {v:g}"})
        return v

    return Annotated[float, AfterValidator(check), Field(json_schema_extra={"maximum": limit})]


class _Strict(_Open):
    model_config = ConfigDict(extra="allow", strict=True, allow_inf_nan=False)


Coord = Annotated[float, Field(ge=-MAX_COORD_MM, le=MAX_COORD_MM)]


def _pair(what: str, item: Any = Coord) -> Any:
    """``[a, b]``: two numbers, as the scene writes a pair."""
    return Annotated[list[item], Field(min_length=2, max_length=2,  # type: ignore[valid-type]
                                       description=what)]


class Pose(_Open):
    """A unit boundary centre (mm, table frame) and the facing of its front rank (degrees,
    counter-clockwise from +x)."""

    x: Number
    y: Number
    facing: Number


class Table(_Strict):
    width_mm: Number = Field(default=1828.8, gt=0, le=MAX_TABLE_MM)
    depth_mm: Number = Field(default=1219.2, gt=0, le=MAX_TABLE_MM)


class Terrain(_Strict):
    id: str = Field(min_length=1, max_length=100)
    impassable: bool = True
    opaque: bool = True
    polygon: list[_pair("A corner [x, y], mm")] = Field(  # type: ignore[valid-type]
        min_length=3, max_length=MAX_CORNERS,
        description="Outline, mm, table frame: at least 3 corners, not crossing itself")


RearRank = Annotated[Literal["centre", "left", "right"] | Annotated[
    list[Annotated[int, Field(ge=0)]],
    Field(json_schema_extra={"uniqueItems": True},
          description="The occupied file indexes of the rear rank, each once")],
    one_of("'centre', 'left', 'right' or a list of the occupied file indexes")]


class Unit(_Strict):
    id: str = Field(min_length=1, max_length=100)
    side: str = Field(min_length=1, max_length=100)
    x: Coord = Field(description="Boundary centre, mm (on the table unless destroyed)")
    y: Coord = Field(description="Boundary centre, mm (on the table unless destroyed)")
    facing: Number = Field(ge=-MAX_FACING_DEG, le=MAX_FACING_DEG,
                           description="Degrees counter-clockwise from +x")
    base: _pair("Base [width, depth], mm", Annotated[  # type: ignore[valid-type]
        float, Field(ge=MIN_BASE_MM, le=MAX_BASE_MM)])
    files: int = Field(ge=1, le=MAX_FILES)
    ranks: int = Field(ge=1, le=MAX_RANKS)
    models: int | None = Field(default=None, ge=1, description="Defaults to files x ranks; "
                                                               "at most files x ranks")
    rear_rank: RearRank = "centre"
    advance_in: Number | None = Field(default=None, ge=0, description="The movement the "
                                      "ruleset's charge reads (Advance Rate in t9a-1), inches;"
                                      " required for a charger")
    swiftstride: bool = False
    state: Literal["ready", "fleeing", "engaged", "disrupted", "destroyed"] = "ready"
    sigma_mm: at_most(MAX_SIGMA_MM, "mm", "a position uncertainty larger "  # type: ignore[valid-type]
                      "than the largest table means nothing") = Field(
        default=0.0, ge=0, description="Position uncertainty (photos), mm: at most the "
                                       "largest table")
    sigma_deg: at_most(MAX_SIGMA_DEG, "degrees", "a facing uncertainty of "  # type: ignore[valid-type]
                       "more than a full turn means nothing") = Field(
        default=0.0, ge=0, description="Facing uncertainty (photos), degrees: at most a full "
                                       "turn")


class Scene(_Strict):
    """The table as data, as a ruling request carries it: a charge needs a charger and a
    target, so at least two units."""

    table: Table = Field(default_factory=Table)
    terrain: list[Terrain] = Field(default_factory=list, max_length=MAX_TERRAIN)
    units: list[Unit] = Field(min_length=2, max_length=MAX_UNITS)


class DetectedScene(_Strict):
    """A scene found in a photo, with what the detection saw (markers, homography, quality)."""

    table: Table = Field(default_factory=Table)
    terrain: list[Terrain] = Field(default_factory=list, max_length=MAX_TERRAIN)
    units: list[Unit] = Field(default_factory=list, max_length=MAX_UNITS)
    detection: dict[str, Any] | None = Field(
        default=None, description="Detection details from vision.detect (markers seen, the "
                                  "table-to-image homography, residuals)")


# -- ruling (DESIGN.md, Ruling request and ruling) ------------------------------------------


def _known_ruleset(name: str) -> str:
    try:
        charges.get_ruleset(name)
    except ValueError as e:  # the engine's words: unknown, or planned and not implemented yet
        raise ValueError(str(e).removeprefix("ruleset: ")) from None
    return name


RULESET_NAMES = list(charges.RULESETS)
#: A ruleset this server rules with (``GET /api/rulesets``): the schema lists them, and a name
#: outside the list is refused with the engine's words (unknown, or not implemented yet).
RulesetName = Annotated[str, AfterValidator(_known_ruleset),
                        WithJsonSchema({"type": "string", "enum": RULESET_NAMES})]


def _dice_counts() -> tuple[int, int]:
    """The fewest and most dice any ruleset rolls for a charge (2D6, or 3D6 with Swiftstride
    in t9a-1)."""
    counts = [r.dice(swift).n for r in charges.RULESETS.values() for swift in (False, True)]
    return min(counts), max(counts)


class ChargeDeclaration(BaseModel):
    """One declared charge; several against one target make a multiple charge."""

    model_config = ConfigDict(extra="forbid", strict=True)

    charger: str = Field(min_length=1, examples=["knights"])
    target: str = Field(min_length=1, examples=["spears"])


Die = Annotated[int, Field(ge=1, le=6, strict=True)]
#: One unit's roll: as many D6 as its roll takes. That count depends on the unit (Swiftstride)
#: and the ruleset, so the engine judges it, naming what the unit needs ("dice.knights: best
#: two of 3D6 needs 3 dice, got 1"); refused here, one die would be told "at least 2", which
#: a Swiftstride charger cannot use either. The schema states the counts any ruleset takes.
Roll = Annotated[list[Die], WithJsonSchema({
    "type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 6},
    "minItems": _dice_counts()[0], "maxItems": _dice_counts()[1]})]
#: Dice rolled per charger: as many D6 as the charger's roll takes.
Dice = dict[str, Roll]


#: tow: what a charger met by a fleeing enemy across its only way does, for every charger or
#: per charger id.
OnAccidentalContact = Annotated[
    Literal["halt", "continue"] | dict[str, Literal["halt", "continue"]],
    one_of("'halt' or 'continue' (for every charger), or an object giving one of them per "
           "charger id")]


class RulingRequest(BaseModel):
    """What ``charges.rule`` takes. Without ``dice`` the ruling gives the odds only."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={
        "examples": [_SAMPLE_REQUEST]})

    ruleset: RulesetName = Field(default="t9a-1", examples=["t9a-1"])
    scene: Scene
    charges: list[ChargeDeclaration] = Field(min_length=1)
    dice: Dice | None = Field(default=None, description="Dice rolled per charger, e.g. "
                                                        '{"knights": [3, 5]}',
                              examples=[{"knights": [3, 5]}])
    facing_roll: dict[str, Die] | None = Field(
        default=None, description="A D6 per charger deciding a contested facing (whfb8: no "
        "clear majority of front-rank models; 1-3 the earlier arc of front, flank, rear, 4-6 "
        "the later)", examples=[{"knights": 4}])
    flee: Dice | None = Field(
        default=None, description="A charged unit's Flee! reaction with its flee roll (tow, "
        "whfb8): it flees from the charger before the charge is ruled",
        examples=[{"spears": [2, 3]}])
    on_accidental_contact: OnAccidentalContact | None = Field(
        default=None, description="tow: what a charger met by a fleeing enemy across its only "
        "way does, for every charger or per charger id: halt 1 in from it (the default) or "
        "continue and run it down", examples=["halt"])


class _AsRuled(_Open):
    """A part of a ruling, answered as the engine gave it (DESIGN.md: ``/api/rulings`` returns
    the JSON ``charges.rule`` returns and the CLI prints): a field the engine left out stays
    out, and one it gave as null stays null. Without this, the optional fields declared here
    for the documentation were added as nulls (secondary_targets, disordered_against, ...), and
    the HTTP ruling differed from the CLI's (outside report 4, finding 11)."""

    @model_serializer(mode="wrap")
    def _as_ruled(self, handler: SerializerFunctionWrapHandler):  # noqa: ANN202 (keeps the schema)
        out = handler(self)
        if not isinstance(out, dict):
            return out
        given = self.model_fields_set
        return {k: v for k, v in out.items() if k in given or k not in type(self).model_fields}


class Contact(_AsRuled):
    charger_models: int | None = None
    target_models: int | None = None
    segment: list[list[Number]] | None = None


class ChargeRuling(_AsRuled):
    """The ruling of one charge. Every field that can be computed is present even when the
    charge cannot be declared; ``outcome`` is null without dice."""

    charger: str
    target: str
    declarable: bool | None = None
    reasons: list[str] | None = None
    facing: str | None = Field(default=None, description="The facing charged: front, flank "
                                                         "(left/right) or rear")
    arc_shares: dict[str, Number] | None = None
    distance_mm: Number | None = None
    distance_in: Number | None = None
    needed_in: Number | None = Field(default=None, description="The dice total needed")
    odds: Number | None = Field(default=None, description="Probability of success before "
                                                          "rolling")
    range_in: Number | None = None
    outcome: str | None = Field(default=None, description="success, failed, impossible, "
                                                          "special, caught_fleeing; tow also "
                                                          "target_escaped, halted, ran_down; "
                                                          "null without dice")
    margin_mm: Number | None = None
    certain: bool | None = None
    path: list[dict[str, Any]] | None = Field(
        default=None, description="Primitive moves made: forward, wheel, align, turn, reform; "
                                  "each with its parameters and the pose after it")
    final: Pose | None = None
    contact: Contact | None = None
    target_final: Pose | None = None
    secondary_targets: list[str] | None = Field(
        default=None, description="Other enemies the move cannot avoid touching: charged too")
    secondary_final: dict[str, Pose] | None = Field(
        default=None, description="tow, whfb8: where those touched at an angle end after "
                                  "turning to align to the charger")
    secondary_unaligned: list[str] | None = Field(
        default=None, description="tow, whfb8: those touched at an angle that cannot turn to "
                                  "align (the gap is left)")
    disordered_against: list[str] | None = Field(
        default=None, description="tow: the other enemies the charge is disordered against")
    priorities: dict[str, Any] | list[Any] | None = Field(
        default=None, description="The priority tuple of the chosen alignment")
    explanation: list[str] = Field(default_factory=list)


class UnitAfter(_AsRuled):
    id: str
    x: Number
    y: Number
    facing: Number
    state: str | None = None


class Ruling(_AsRuled):
    ruleset: str
    charges: list[ChargeRuling]
    units: list[UnitAfter]
    warnings: list[str] = Field(
        default_factory=list, description="What the ruling ignored, in sentences: a field the "
        "request or its scene does not know (e.g. scene.units[2].swiftstirde, with the name "
        "meant), an option the ruleset has no use for (facing_roll in tow). Unknown fields "
        "are allowed, never refused")


# -- reviews --------------------------------------------------------------------------------


class ReviewLinks(BaseModel):
    url: str = Field(description="This review as JSON")
    overlay_url: str = Field(description="The ruling drawn on the photo (PNG)")
    photo_url: str = Field(description="The photo as uploaded")
    thumbnail_url: str = Field(description="A small JPEG of the photo, for lists")


class ChargeSummary(BaseModel):
    charger: str
    target: str
    outcome: str | None = None


class ReviewSummary(ReviewLinks):
    id: str
    created_at: str = Field(description="UTC, ISO 8601")
    ruleset: str
    charges: list[ChargeSummary]


class ReviewList(BaseModel):
    reviews: list[ReviewSummary]
    next_before: int | None = Field(
        default=None, description="Pass as ?before= to get the next (older) page; null at end")


class Review(ReviewLinks):
    """A stored review: the photo's scene, the ruling and where its pictures are."""

    id: str
    created_at: str = Field(description="UTC, ISO 8601")
    ruleset: str
    charges: list[ChargeDeclaration]
    dice: Dice | None = None
    facing_roll: dict[str, Die] | None = Field(
        default=None, description="The facing rolls it was ruled with, when given")
    flee: Dice | None = Field(default=None, description="The flee rolls it was ruled with, "
                                                        "when given (tow, whfb8)")
    on_accidental_contact: OnAccidentalContact | None = Field(
        default=None, description="tow: halt or continue, when given")
    scene: DetectedScene
    ruling: Ruling
    overlay_kind: Literal["photo", "plan"] = Field(
        description="'photo' when the ruling is drawn on the photo through the detected "
                    "homography, 'plan' when it is a top-down plan of the table")


# -- odds and rulesets ------------------------------------------------------------------------


class Odds(_Open):
    """The chance of a charge roll covering a distance (Charge Range), from ``charges.odds``."""

    ruleset: str
    advance_in: Number
    distance_in: Number
    swiftstride: bool
    dice: str = Field(description="How the roll is made, e.g. '2D6'")
    needed_in: int = Field(description="The smallest dice total that covers the distance")
    odds: Number = Field(description="Exact probability of rolling at least needed_in")
    at_least: dict[str, Number] = Field(description="Chance of rolling at least each total")


class DiceInfo(_Open):
    """How a ruleset's charge roll is made: ``dice`` D6 rolled; of the first ``dice - extra``
    the best ``keep`` are summed and the last ``extra`` added whole."""

    name: str
    dice: int
    keep: int
    extra: int = 0
    min_total: int
    max_total: int


class RulesetInfo(_Open):
    name: str
    title: str
    dice: DiceInfo | None = None
    dice_swiftstride: DiceInfo | None = None
    range_measure: str | None = Field(default=None, description="What the roll is compared "
                                      "with: closest (distance) or paid_path")
    swept: str | None = Field(default=None, description="What a charge sweeps: boundary or "
                              "front_edge")


class RulesetList(BaseModel):
    rulesets: list[RulesetInfo]
    default: str = "t9a-1"
