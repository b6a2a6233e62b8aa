"""Pydantic models of the HTTP API (DESIGN.md, HTTP), so ``/docs`` and ``/openapi.json`` show
every request and answer.

These models describe shapes only; they hold no rules. The scene is validated for meaning by
``geometry`` (through ``charges.rule`` / ``vision.detect``), which names the unit and field at
fault. Every model allows extra fields: the contracts grow by adding fields ("add fields freely,
never rename"), and an answer must never be refused because the engine added one.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Number = float


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


class Pose(_Open):
    """A unit boundary centre (mm, table frame) and the facing of its front rank (degrees,
    counter-clockwise from +x)."""

    x: Number
    y: Number
    facing: Number


class Table(_Open):
    width_mm: Number = 1828.8
    depth_mm: Number = 1219.2


class Terrain(_Open):
    id: str
    impassable: bool = True
    opaque: bool = True
    polygon: list[tuple[Number, Number]] = Field(description="Outline, mm, table frame")


class Unit(_Open):
    id: str
    side: str
    x: Number = Field(description="Boundary centre, mm")
    y: Number = Field(description="Boundary centre, mm")
    facing: Number = Field(description="Degrees counter-clockwise from +x")
    base: tuple[Number, Number] = Field(description="Base [width, depth], mm")
    files: int
    ranks: int
    models: int | None = Field(default=None, description="Defaults to files x ranks")
    rear_rank: Literal["centre", "left", "right"] | list[int] = "centre"
    advance_in: Number | None = None
    swiftstride: bool = False
    state: Literal["ready", "fleeing", "engaged", "disrupted", "destroyed"] = "ready"
    sigma_mm: Number | None = Field(default=None, description="Position uncertainty (photos)")
    sigma_deg: Number | None = Field(default=None, description="Facing uncertainty (photos)")


class Scene(_Open):
    """The table as data (DESIGN.md, Scene)."""

    table: Table = Field(default_factory=Table)
    terrain: list[Terrain] = Field(default_factory=list)
    units: list[Unit] = Field(default_factory=list)


class DetectedScene(Scene):
    """A scene found in a photo, with what the detection saw (markers, homography, quality)."""

    detection: dict[str, Any] | None = Field(
        default=None, description="Detection details from vision.detect (markers seen, the "
                                  "table-to-image homography, residuals)")


# -- ruling (DESIGN.md, Ruling request and ruling) ------------------------------------------


class ChargeDeclaration(BaseModel):
    """One declared charge; several against one target make a multiple charge."""

    model_config = ConfigDict(extra="forbid")

    charger: str = Field(min_length=1, examples=["knights"])
    target: str = Field(min_length=1, examples=["spears"])


Dice = dict[str, list[int]]


class RulingRequest(BaseModel):
    """What ``charges.rule`` takes. Without ``dice`` the ruling gives the odds only."""

    model_config = ConfigDict(extra="forbid")

    ruleset: str = Field(default="t9a-1", examples=["t9a-1"])
    scene: Scene
    charges: list[ChargeDeclaration] = Field(min_length=1)
    dice: Dice | None = Field(default=None, description="Dice rolled per charger, e.g. "
                                                        '{"knights": [3, 5]}',
                              examples=[{"knights": [3, 5]}])


class Contact(_Open):
    charger_models: int | None = None
    target_models: int | None = None
    segment: list[list[Number]] | None = None


class ChargeRuling(_Open):
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
                                                          "special or caught_fleeing; null "
                                                          "without dice")
    margin_mm: Number | None = None
    certain: bool | None = None
    path: list[dict[str, Any]] | None = Field(
        default=None, description="Primitive moves made: forward, wheel, align, turn, reform; "
                                  "each with its parameters and the pose after it")
    final: Pose | None = None
    contact: Contact | None = None
    target_final: Pose | None = None
    priorities: dict[str, Any] | list[Any] | None = Field(
        default=None, description="The priority tuple of the chosen alignment")
    explanation: list[str] = Field(default_factory=list)


class UnitAfter(_Open):
    id: str
    x: Number
    y: Number
    facing: Number
    state: str | None = None


class Ruling(_Open):
    ruleset: str
    charges: list[ChargeRuling]
    units: list[UnitAfter]


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
    scene: DetectedScene
    ruling: Ruling
    overlay_kind: Literal["photo", "plan"] = Field(
        description="'photo' when the ruling is drawn on the photo through the detected "
                    "homography, 'plan' when it is a top-down plan of the table")


# -- odds and rulesets ------------------------------------------------------------------------


class Odds(_Open):
    """The chance of a charge roll covering a distance (RULES.md 3), from ``charges.odds``."""

    ruleset: str
    advance_in: Number
    distance_in: Number
    swiftstride: bool
    dice: str = Field(description="How the roll is made, e.g. '2D6'")
    needed_in: int = Field(description="The smallest dice total that covers the distance")
    odds: Number = Field(description="Exact probability of rolling at least needed_in")
    at_least: dict[str, Number] = Field(description="Chance of rolling at least each total")


class RulesetInfo(_Open):
    name: str
    title: str


class RulesetList(BaseModel):
    rulesets: list[RulesetInfo]
    default: str = "t9a-1"
