"""The hex positions and rules data the server ships (``server/samples/hex/``), found by bare
name only.

A position may name its rules data as a file (HEX.md 4, ``"rules_data": "tables.json"``). On
the command line that is a file beside the position; over HTTP the server must never read a
path a client chose, so a name is looked up among the shipped files listed here, and nothing
else is opened. The files are read once and kept (:func:`_read`, keyed by file name); every
caller gets its own copy, so no request can change what the next one sees.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

SAMPLE_DIR = Path(__file__).parent / "samples" / "hex"
POSITION_SCHEMA = "umpire.hex-position/1"
RULES_DATA_SCHEMA = "umpire.hex-rules-data/1"


@cache
def _read(name: str) -> dict[str, Any]:
    return json.loads((SAMPLE_DIR / name).read_text(encoding="utf-8"))


@cache
def _catalogue() -> dict[str, dict[str, str]]:
    """schema -> {bare name: file name} of every shipped file."""
    found: dict[str, dict[str, str]] = {POSITION_SCHEMA: {}, RULES_DATA_SCHEMA: {}}
    for path in sorted(SAMPLE_DIR.glob("*.json")):
        schema = _read(path.name).get("schema")
        if schema in found:
            found[schema][path.stem] = path.name
    return found


def positions() -> list[dict[str, str]]:
    """Every shipped position: its name, title and ruleset."""
    out = []
    for name, file in _catalogue()[POSITION_SCHEMA].items():
        doc = _read(file)
        out.append({"name": name, "title": str(doc.get("title") or name),
                    "ruleset": str(doc.get("ruleset"))})
    return out


def position(name: str) -> dict[str, Any] | None:
    """The shipped position ``name`` (a copy), or None."""
    file = _catalogue()[POSITION_SCHEMA].get(name)
    return None if file is None else copy.deepcopy(_read(file))


def rules_data(name: Any) -> dict[str, Any] | None:
    """The shipped rules data a position names (``"rules-data-illustrative.json"``, with or
    without ``.json``), or None for any other value: a path, an unknown name, an object."""
    if not isinstance(name, str):
        return None
    stem = name[:-5] if name.endswith(".json") else name
    file = _catalogue()[RULES_DATA_SCHEMA].get(stem)
    return None if file is None else copy.deepcopy(_read(file))


def rules_data_for(pos: dict[str, Any], given: dict[str, Any] | None) -> dict[str, Any] | None:
    """The rules data for a ruling: the request's, else the shipped file the position names."""
    return given if given is not None else rules_data(pos.get("rules_data"))
