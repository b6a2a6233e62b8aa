"""What a marker set holds that detection does not read: each key its contract does not know,
named as a sentence for the detection report's warnings (the contract lets clients add fields,
so none is refused; a misspelt one, ``swiftstirde``, would otherwise be dropped without a
word). The scene's and the ruling request's are found in geometry/scene.py and
charges/request.py."""

from __future__ import annotations

from typing import Any

from geometry.scene import SCENE_SHAPE, UNIT_SHAPE, shape_of, unknown_fields
from vision.markers import MarkerSet, TableMarker, TableSpec, UnitMarker

#: The keys of a marker set (DESIGN.md, Table and marker set): a unit's may be any of its
#: scene fields too (they pass through to the detected scene), and ``terrain`` is the scene's.
MARKERS_SHAPE = shape_of(MarkerSet, table=shape_of(TableSpec, markers=shape_of(TableMarker)),
                         units=shape_of(UnitMarker) | UNIT_SHAPE, terrain=SCENE_SHAPE["terrain"])


def markers_warnings(marker_doc: Any) -> list[str]:
    """Each key of a marker set that its contract does not know, as a sentence naming it
    (``markers.units[0].swiftstirde is not a field ...``): ignored, not refused."""
    return unknown_fields(marker_doc, MARKERS_SHAPE, "markers", "marker set")
