"""The scene JSON contract (DESIGN.md, Scene) as pydantic models.

Validation says which unit and which field are wrong: ``units[1] 'spears': models: 11 models do
not fit 5 files x 2 ranks``. :func:`load_scene` is the door every scene comes in through; it
raises :class:`SceneError` (a ``ValueError``) with all the problems found, one per line.
"""

from __future__ import annotations

import difflib
import math
from functools import cached_property
from typing import Annotated, Any, Literal, TypeVar

import numpy as np
import shapely
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from shapely.geometry import Polygon

from .constants import EPS_MM
from .contact import penetration_mm
from .formation import Body, Formation, boundary_coords, rear_rank_files
from .pose import Pose

State = Literal["ready", "fleeing", "engaged", "disrupted", "destroyed"]


#: Bounds on a scene's numbers, far past any real table, so that no finite number can overflow
#: the geometry or the measurement uncertainty (``1e155 ** 2`` is past a float): a table up to
#: 100 m, a unit centre within 1 km of the table's corner, a facing within a million degrees
#: (beyond about 1e15 an angle loses its degrees), a base up to 1 m, a position uncertainty
#: no larger than the largest table and a facing uncertainty of at most a full turn. The HTTP
#: schema (server/models.py) states the same bounds.
MAX_TABLE_MM = 100_000.0
MAX_COORD_MM = 1_000_000.0
MAX_FACING_DEG = 1_000_000.0
MAX_BASE_MM = 1_000.0
MAX_SIGMA_MM = MAX_TABLE_MM
MAX_SIGMA_DEG = 360.0


class SceneError(ValueError):
    """A scene that breaks the contract; the message names the unit and the field."""


def _finite(v: float, what: str) -> float:
    if not math.isfinite(v):
        raise ValueError(f"{what} must be a finite number, not {v}")
    return v


def _at_most(v: float, limit: float, unit: str, why: str) -> float:
    if abs(v) > limit:
        raise ValueError(f"must be {'at most' if v > 0 else 'at least'} "
                         f"{'' if v > 0 else '-'}{limit:g} {unit} ({why}), not {v:g}")
    return v


def _number(v: Any) -> Any:
    """JSON numbers only (DESIGN.md: fields of the wrong type are rejected): pydantic's lax
    mode would read the text "90", or true, as a number."""
    if isinstance(v, str | bytes | bool):
        raise ValueError(f"must be a number, got {v!r}")
    return v


def _flag(v: Any) -> Any:
    """true or false only, not a number or a text that reads as one."""
    if not isinstance(v, bool | np.bool_):
        raise ValueError(f"must be true or false, got {v!r}")
    return v


#: A unit's or terrain piece's id, and a side: a name a player reads in every sentence.
Name = Annotated[str, Field(min_length=1, max_length=100)]
Num = Annotated[float, BeforeValidator(_number)]
Count = Annotated[int, BeforeValidator(_number)]
Flag = Annotated[bool, BeforeValidator(_flag)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True, allow_inf_nan=True)


class Table(_Model):
    width_mm: Num = 1828.8
    depth_mm: Num = 1219.2

    @field_validator("width_mm", "depth_mm")
    @classmethod
    def _positive(cls, v: float) -> float:
        _finite(v, "table size")
        if v <= 0:
            raise ValueError("must be positive")
        return _at_most(v, MAX_TABLE_MM, "mm", "100 m, far past any table")

    @cached_property
    def polygon(self) -> Polygon:
        return Polygon([(0, 0), (self.width_mm, 0), (self.width_mm, self.depth_mm),
                        (0, self.depth_mm)])


class Terrain(_Model):
    id: Name
    impassable: Flag = True
    opaque: Flag = True
    polygon: list[tuple[Num, Num]]

    @field_validator("polygon")
    @classmethod
    def _valid_polygon(cls, v: list[tuple[float, float]]) -> list[tuple[float, float]]:
        for x, y in v:
            _finite(x, "a polygon coordinate")
            _finite(y, "a polygon coordinate")
        if len(v) < 3:
            raise ValueError("needs at least 3 points")
        poly = Polygon(v)
        if not poly.is_valid:
            raise ValueError("self-intersects")
        if poly.area <= 0:
            raise ValueError("has no area")
        return v

    @cached_property
    def shape(self) -> Polygon:
        return Polygon(self.polygon)


class Unit(_Model):
    id: Name
    side: Name
    x: Num
    y: Num
    facing: Num
    base: tuple[Num, Num]
    files: Count = Field(ge=1)
    ranks: Count = Field(ge=1)
    models: Count | None = None
    rear_rank: Literal["centre", "left", "right"] | list[Count] = "centre"
    advance_in: Num | None = None
    swiftstride: Flag = False
    state: State = "ready"
    sigma_mm: Num = Field(default=0.0, ge=0)
    sigma_deg: Num = Field(default=0.0, ge=0)

    @field_validator("x", "y", "facing", "advance_in", "sigma_mm", "sigma_deg")
    @classmethod
    def _finite_numbers(cls, v: float | None) -> float | None:
        if v is not None:
            _finite(v, "value")
        return v

    @field_validator("x", "y")
    @classmethod
    def _near_table(cls, v: float) -> float:
        return _at_most(v, MAX_COORD_MM, "mm", "1 km from the table's corner")

    @field_validator("facing")
    @classmethod
    def _facing_bound(cls, v: float) -> float:
        return _at_most(v, MAX_FACING_DEG, "degrees", "far past any turn")

    @field_validator("sigma_mm")
    @classmethod
    def _sigma_mm_bound(cls, v: float) -> float:
        return _at_most(v, MAX_SIGMA_MM, "mm", "a position uncertainty larger than the "
                        "largest table means nothing")

    @field_validator("sigma_deg")
    @classmethod
    def _sigma_deg_bound(cls, v: float) -> float:
        return _at_most(v, MAX_SIGMA_DEG, "degrees", "a facing uncertainty of more than a "
                        "full turn means nothing")

    @field_validator("base")
    @classmethod
    def _positive_base(cls, v: tuple[float, float]) -> tuple[float, float]:
        for s in v:
            _finite(s, "base size")
            if s <= 0:
                raise ValueError("base width and depth must be positive")
            _at_most(s, MAX_BASE_MM, "mm", "1 m, far past any base")
        return v

    @field_validator("advance_in")
    @classmethod
    def _advance_non_negative(cls, v: float | None) -> float | None:
        if v is not None and v < 0:
            raise ValueError("must not be negative")
        return v

    @model_validator(mode="after")
    def _formation(self) -> Unit:
        full = self.files * self.ranks
        models = full if self.models is None else self.models
        if models > full:
            raise ValueError(
                f"models: {models} models do not fit {self.files} files x {self.ranks} ranks")
        if models <= self.files * (self.ranks - 1):
            raise ValueError(f"models: {models} models leave the rear rank of {self.files} files"
                             f" x {self.ranks} ranks empty (use fewer ranks)")
        rear = models - self.files * (self.ranks - 1)
        if isinstance(self.rear_rank, list):
            idx = self.rear_rank
            if len(idx) != rear:
                raise ValueError(f"rear_rank: lists {len(idx)} files but the rear rank holds "
                                 f"{rear} models")
            if len(set(idx)) != len(idx):
                raise ValueError("rear_rank: a file index appears twice")
            bad = [i for i in idx if not 0 <= i < self.files]
            if bad:
                raise ValueError(f"rear_rank: file indexes {bad} are outside 0..{self.files - 1}")
        return self

    @property
    def model_count(self) -> int:
        return self.files * self.ranks if self.models is None else self.models

    @cached_property
    def formation(self) -> Formation:
        rear = self.model_count - self.files * (self.ranks - 1)
        return Formation(float(self.base[0]), float(self.base[1]), self.files, self.ranks,
                         rear_rank_files(self.files, rear, self.rear_rank))

    @property
    def pose(self) -> Pose:
        return Pose(self.x, self.y, self.facing)

    @cached_property
    def body(self) -> Body:
        return Body(self.formation, self.pose)

    def placed(self, pose: Pose, **changes: Any) -> Unit:
        """A copy of this unit at another pose (and other changed fields)."""
        data = self.model_dump()
        data.update(x=pose.x, y=pose.y, facing=pose.facing, **changes)
        return Unit.model_validate(data)


class Scene(_Model):
    table: Table = Field(default_factory=Table)
    terrain: list[Terrain] = Field(default_factory=list)
    units: list[Unit] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> Scene:
        problems = []
        seen: set[str] = set()
        for t in self.terrain:
            if t.id in seen:
                problems.append(f"terrain '{t.id}': id is used twice")
            seen.add(t.id)
        seen = set()
        w, h = self.table.width_mm, self.table.depth_mm
        # Every unit's boundary polygon in one call (the same polygons Body.polygon builds one
        # at a time), kept on its body for the ruling that follows.
        polys = shapely.polygons(np.asarray([boundary_coords(u.formation, u.pose)
                                             for u in self.units], dtype=float).reshape(-1, 4, 2))
        for u, poly in zip(self.units, polys, strict=True):
            u.body.__dict__.setdefault("polygon", poly)
        boxes = [tuple(b) for b in shapely.bounds([u.body.polygon for u in self.units]).tolist()]
        for i, u in enumerate(self.units):
            name = f"units[{i}] '{u.id}'"
            if u.id in seen:
                problems.append(f"{name}: id: the id is used by another unit")
            seen.add(u.id)
            x0, y0, x1, y1 = boxes[i]
            # The table is the rectangle [0, w] x [0, h]: the boundary's bounds tell.
            if u.state != "destroyed" and (x0 < -EPS_MM or y0 < -EPS_MM or x1 > w + EPS_MM
                                           or y1 > h + EPS_MM):
                problems.append(f"{name}: x/y/facing: the unit is partly off the table")
        for i, a in enumerate(self.units):
            ax0, ay0, ax1, ay1 = boxes[i]
            for j in range(i + 1, len(self.units)):
                b = self.units[j]
                bx0, by0, bx1, by1 = boxes[j]
                if bx0 > ax1 or bx1 < ax0 or by0 > ay1 or by1 < ay0:
                    continue  # bounding boxes apart: no overlap possible
                if "destroyed" in (a.state, b.state):
                    continue
                depth = penetration_mm(a.body.polygon, b.body.polygon)
                if depth > EPS_MM:
                    problems.append(f"units[{i}] '{a.id}': x/y/facing: overlaps unit '{b.id}' "
                                    f"by {depth:.2f} mm")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def unit(self, unit_id: str) -> Unit:
        for u in self.units:
            if u.id == unit_id:
                return u
        raise KeyError(unit_id)

    def has_unit(self, unit_id: str) -> bool:
        return any(u.id == unit_id for u in self.units)

    def to_json(self) -> dict:
        return self.model_dump(mode="json", exclude_none=True)


def _where(loc: tuple, data: Any) -> str:
    """Human path of a pydantic error location, naming units and terrain by id."""
    label = ""
    fields: list[str] = []
    i = 0
    while i < len(loc):
        key = loc[i]
        if key in ("units", "terrain") and i + 1 < len(loc) and isinstance(loc[i + 1], int):
            idx = loc[i + 1]
            label = f"{key}[{idx}]"
            try:
                label += f" '{data[key][idx]['id']}'"
            except (KeyError, IndexError, TypeError):
                pass
            i += 2
            continue
        if isinstance(key, int):
            if fields:
                fields[-1] += f"[{key}]"
        elif not any(ch in key for ch in "[]-") and key not in ("str", "int", "float"):
            fields.append(key)
        i += 1
    return ": ".join(p for p in (label, ".".join(fields)) if p)


def format_validation_error(err: ValidationError, data: Any, prefix: str = "") -> str:
    lines = []
    for e in err.errors():
        where = _where(tuple(e["loc"]), data)
        msg = e["msg"].removeprefix("Value error, ")
        line = f"{prefix}{where}: {msg}" if where else f"{prefix}{msg}"
        if line not in lines:
            lines.append(line)
    return "\n".join(lines)


M = TypeVar("M", bound=BaseModel)

def validate_json(model: type[M], error: type[Exception], data: Any, prefix: str) -> M:
    """``data`` (a JSON object) validated into ``model``, or ``error`` naming every bad field
    under ``prefix``; an instance of ``model`` is returned as it is."""
    if isinstance(data, model):
        return data
    if not isinstance(data, dict):
        raise error(f"{prefix}must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise error(format_validation_error(err, data, prefix)) from None


def load_scene(data: Any, prefix: str = "scene: ") -> Scene:
    """Validate scene JSON (a dict) into a :class:`Scene`, or raise :class:`SceneError`."""
    return validate_json(Scene, SceneError, data, prefix)


# -- fields a scene does not know --------------------------------------------------------------
#
# The contract lets clients add fields ("add fields freely"), so a key the scene model does not
# know is never refused; but a misspelt one ("swiftstirde") would change the ruling without a
# word, so :func:`unknown_fields` names each one, as a sentence a ruling can carry in its
# ``warnings``.

#: The known keys of a JSON object, each with the shape of its value when it is itself an
#: object (or a list of objects) whose keys are checked too; None for a value taken as it is.
Shape = dict[str, "Shape | None"]


def shape_of(model: type[BaseModel], **nested: Shape | None) -> Shape:
    """The keys ``model`` reads, with ``nested`` shapes (and extra known keys) added."""
    return {name: None for name in model.model_fields} | nested


#: The scene as the rules read it, plus what the project's own tools add to a scene that the
#: rules need not read: a detected scene's ``detection`` report and each unit's
#: ``pose_evidence`` (vision.detect).
UNIT_SHAPE: Shape = shape_of(Unit, pose_evidence=None)
SCENE_SHAPE: Shape = shape_of(Scene, table=shape_of(Table), terrain=shape_of(Terrain),
                              units=UNIT_SHAPE, detection=None)


def unknown_fields(data: Any, shape: Shape, path: str, contract: str) -> list[str]:
    """One sentence per key of ``data`` (JSON) that ``shape`` does not know, naming it by its
    path from ``path``: ``scene.units[2].swiftstirde is not a field of the scene contract; it
    was ignored. Did you mean swiftstride?``. Values of the wrong type are left to
    validation."""
    out: list[str] = []
    if isinstance(data, list):
        for i, item in enumerate(data):
            out += unknown_fields(item, shape, f"{path}[{i}]", contract)
        return out
    if not isinstance(data, dict):
        return out
    for key, value in data.items():
        where = f"{path}.{key}" if path else str(key)
        if key not in shape:
            close = difflib.get_close_matches(str(key), list(shape), n=1, cutoff=0.7)
            hint = f" Did you mean {close[0]}?" if close else ""
            out.append(f"{where} is not a field of the {contract} contract; it was ignored."
                       f"{hint}")
        elif shape[key] is not None:
            out += unknown_fields(value, shape[key], where, contract)  # type: ignore[arg-type]
    return out


def scene_warnings(data: Any, path: str = "scene") -> list[str]:
    """The keys of scene JSON ``data`` that the scene contract does not know
    (:func:`unknown_fields`)."""
    return unknown_fields(data, SCENE_SHAPE, path, "scene")
