"""The table and marker set (``markers.json``, DESIGN.md) as pydantic models.

A marker set says which ArUco dictionary is printed, where the table markers lie, and which
tray marker sits on which unit. Validation names the bad field (``units[2] 'spears':
marker_size_mm: must be positive``) so the CLI and the HTTP API can pass the message on as is.

Conventions (DESIGN.md): a marker's ``size_mm`` is the side of its black square; table markers
lie square to the table edges with their top edge towards +y; a tray marker's top edge points
to the unit's front and ``marker_offset_mm`` is its centre in the unit frame (x right, y
forward) relative to the unit boundary centre; ``height_mm`` is how far above the table the
marker's surface is (the tray's height).
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from geometry.scene import validate_json

from .errors import MarkersError


def _finite(v: float) -> float:
    if not math.isfinite(v):
        raise ValueError(f"must be a finite number, not {v}")
    return v


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class TableMarker(_Model):
    id: int = Field(ge=0)
    x: float
    y: float
    size_mm: float = Field(gt=0)

    @field_validator("x", "y", "size_mm")
    @classmethod
    def _finite(cls, v: float) -> float:
        return _finite(v)

    def corners(self) -> np.ndarray:
        """Table-frame corners in ArUco order (top-left, top-right, bottom-right, bottom-left),
        the marker's top edge towards +y."""
        h = self.size_mm / 2
        return np.array([[self.x - h, self.y + h], [self.x + h, self.y + h],
                         [self.x + h, self.y - h], [self.x - h, self.y - h]], dtype=np.float64)


class TableSpec(_Model):
    width_mm: float = Field(default=1828.8, gt=0)
    depth_mm: float = Field(default=1219.2, gt=0)
    markers: list[TableMarker]

    @field_validator("width_mm", "depth_mm")
    @classmethod
    def _finite(cls, v: float) -> float:
        return _finite(v)

    @model_validator(mode="after")
    def _on_table(self) -> TableSpec:
        for i, m in enumerate(self.markers):
            h = m.size_mm / 2
            if not (-h <= m.x <= self.width_mm + h and -h <= m.y <= self.depth_mm + h):
                raise ValueError(f"markers[{i}] (id {m.id}): x/y: centre ({m.x}, {m.y}) is off "
                                 f"the {self.width_mm} x {self.depth_mm} mm table")
        return self


class UnitMarker(_Model):
    """One unit and the marker on its tray; scene fields (rear_rank, swiftstride, state...)
    pass through untouched to the detected scene."""

    marker: int = Field(ge=0)
    marker_size_mm: float = Field(gt=0)
    marker_offset_mm: tuple[float, float] = (0.0, 0.0)
    height_mm: float = Field(default=3.0, ge=0)
    id: str = Field(min_length=1)
    side: str
    base: tuple[float, float]
    files: int = Field(ge=1)
    ranks: int = Field(ge=1)
    models: int | None = None
    advance_in: float | None = None

    @field_validator("marker_size_mm", "height_mm")
    @classmethod
    def _finite(cls, v: float) -> float:
        return _finite(v)

    @field_validator("marker_offset_mm", "base")
    @classmethod
    def _finite_pair(cls, v: tuple[float, float]) -> tuple[float, float]:
        for s in v:
            _finite(s)
        return v

    @field_validator("base")
    @classmethod
    def _positive_base(cls, v: tuple[float, float]) -> tuple[float, float]:
        if min(v) <= 0:
            raise ValueError("base width and depth must be positive")
        return v

    @property
    def width_mm(self) -> float:
        return self.files * self.base[0]

    @property
    def depth_mm(self) -> float:
        return self.ranks * self.base[1]

    @model_validator(mode="after")
    def _marker_on_tray(self) -> UnitMarker:
        ox, oy = self.marker_offset_mm
        reach = self.marker_size_mm / 2
        if abs(ox) + reach > self.width_mm / 2 + 1e-9 or abs(oy) + reach > self.depth_mm / 2 + 1e-9:
            raise ValueError(f"marker_size_mm/marker_offset_mm: a {self.marker_size_mm} mm marker"
                             f" at offset ({ox}, {oy}) does not fit on the "
                             f"{self.width_mm:g} x {self.depth_mm:g} mm tray")
        return self

    def scene_fields(self) -> dict[str, Any]:
        """The unit as scene JSON without its pose (marker fields dropped)."""
        data = self.model_dump(mode="json", exclude_none=True)
        for k in ("marker", "marker_size_mm", "marker_offset_mm", "height_mm"):
            data.pop(k, None)
        return data


class MarkerSet(_Model):
    dictionary: str = "DICT_4X4_50"
    table: TableSpec
    units: list[UnitMarker] = Field(default_factory=list)

    @field_validator("dictionary")
    @classmethod
    def _known_dictionary(cls, v: str) -> str:
        if not v.startswith("DICT_") or not hasattr(cv2.aruco, v):
            raise ValueError(f"unknown ArUco dictionary '{v}' (e.g. DICT_4X4_50)")
        return v

    @model_validator(mode="after")
    def _terrain(self) -> MarkerSet:
        """The terrain a markers file may carry for the scene (copied into it as it is) is
        scene terrain: a list of pieces, checked here so that ``umpire detect`` does not
        write a scene that only ``umpire charge`` refuses ("rocks" was read as five pieces)."""
        terrain = (self.model_extra or {}).get("terrain")
        if terrain is None:
            return self
        if not isinstance(terrain, list):
            raise ValueError("terrain: must be a list of terrain pieces, as in a scene")
        from geometry.scene import load_scene

        try:
            load_scene({"table": {"width_mm": self.table.width_mm,
                                  "depth_mm": self.table.depth_mm},
                        "terrain": terrain, "units": []})
        except ValueError as e:
            raise ValueError(str(e).removeprefix("scene: ")) from None
        return self

    @model_validator(mode="after")
    def _unique(self) -> MarkerSet:
        size = len(self.aruco_dictionary.bytesList)
        seen: dict[int, str] = {}
        for i, m in enumerate(self.table.markers):
            where = f"table.markers[{i}]"
            if m.id >= size:
                raise ValueError(f"{where}: id: {m.id} is not in {self.dictionary} "
                                 f"(ids 0..{size - 1})")
            if m.id in seen:
                raise ValueError(f"{where}: id: marker {m.id} is also {seen[m.id]}")
            seen[m.id] = where
        ids: set[str] = set()
        for i, u in enumerate(self.units):
            where = f"units[{i}] '{u.id}'"
            if u.marker >= size:
                raise ValueError(f"{where}: marker: {u.marker} is not in {self.dictionary} "
                                 f"(ids 0..{size - 1})")
            if u.marker in seen:
                raise ValueError(f"{where}: marker: marker {u.marker} is also {seen[u.marker]}")
            seen[u.marker] = where
            if u.id in ids:
                raise ValueError(f"{where}: id: the id is used by another unit")
            ids.add(u.id)
        return self

    @cached_property
    def aruco_dictionary(self) -> cv2.aruco.Dictionary:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))

    @cached_property
    def table_by_id(self) -> dict[int, TableMarker]:
        return {m.id: m for m in self.table.markers}

    @cached_property
    def unit_by_marker(self) -> dict[int, UnitMarker]:
        return {u.marker: u for u in self.units}


def load_markers(data: Any, prefix: str = "markers: ") -> MarkerSet:
    """Validate markers JSON (a dict) into a :class:`MarkerSet`, or raise :class:`MarkersError`
    naming every bad field, one per line."""
    return validate_json(MarkerSet, MarkersError, data, prefix)
