"""Readers for the fields of a hex position or request: each names the field it reads and
raises the section-4 code (HEX.md 4) when the value is wrong."""

from __future__ import annotations

from typing import Any

from geometry.hexgrid import Hex, LabelOrigin

from .errors import HexRequestError, PositionError

#: The largest axial coordinate read (HEX.md 3.1, 14: the map may be unbounded). Printed labels
#: have at most four digits a part; a coordinate like 10**12 is a typo whose hex lines and route
#: searches would never finish, so it is refused naming the field.
MAX_COORD = 10_000


def _in_reach(h: Hex) -> bool:
    return abs(h[0]) <= MAX_COORD and abs(h[1]) <= MAX_COORD


class Reader:
    """Reads fields of one object of the position (``where`` names it in errors)."""

    def __init__(self, where: str, labels: LabelOrigin | None = None) -> None:
        self.where = where
        self.labels = labels

    def fail(self, code: str, field: str, message: str, **extra: Any) -> PositionError:
        return PositionError(code, self.where, field, message, **extra)

    def obj(self, value: Any, field: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail("FIELD_INVALID", field, "must be a JSON object")
        return value

    def required(self, data: dict, field: str) -> Any:
        if field not in data or data[field] is None:
            raise self.fail("FIELD_MISSING", field, "is required")
        return data[field]

    def string(self, data: dict, field: str, default: str | None = None,
               choices: tuple[str, ...] | list[str] | None = None) -> Any:
        value = data.get(field)
        if value is None:
            value = default
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            raise self.fail("FIELD_INVALID", field, f"must be a non-empty string, not {value!r}")
        if choices is not None and value not in choices:
            raise self.fail("FIELD_INVALID", field,
                            f"{value!r} is not one of {', '.join(choices)}")
        return value

    def name(self, data: dict, field: str) -> str:
        """A required non-empty string (an id, a side, a kind)."""
        value = self.string(data, field)
        if value is None:
            raise self.fail("FIELD_MISSING", field, "is required")
        return value

    def integer(self, data: dict, field: str, default: int | None = None,
                low: int | None = None, high: int | None = None, code: str = "FIELD_INVALID"
                ) -> Any:
        value = data.get(field)
        if value is None:
            value = default
        if value is None:
            return None
        if (isinstance(value, bool) or not isinstance(value, int | float) or value != value
                or value in (float("inf"), float("-inf")) or value != int(value)):
            raise self.fail("FIELD_INVALID", field, f"must be a whole number, not {value!r}")
        value = int(value)
        if (low is not None and value < low) or (high is not None and value > high):
            if high is None:
                raise self.fail(code, field, f"{value}: must be {low} or more")
            if low is None:
                raise self.fail(code, field, f"{value}: must be {high} or less")
            raise self.fail(code, field, f"{value} is outside {low}..{high}")
        return value

    def number(self, data: dict, field: str, default: float | None = None) -> Any:
        value = data.get(field)
        if value is None:
            value = default
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            raise self.fail("FIELD_INVALID", field, f"must be a number, not {value!r}")
        return value

    def boolean(self, data: dict, field: str, default: bool | None = False) -> Any:
        value = data.get(field)
        if value is None:
            value = default
        if value is not None and not isinstance(value, bool):
            raise self.fail("FIELD_INVALID", field, f"must be true or false, not {value!r}")
        return value

    def hex(self, value: Any, field: str) -> Hex:
        """``[q, r]``, ``{"q", "r"}`` or a printed label ``"CCRR"`` (with ``label_origin``)."""
        if isinstance(value, str) and self.labels is not None:
            try:
                return self.labels.to_axial(value)
            except ValueError as e:
                raise self.fail("FIELD_INVALID", field, str(e)) from None
        if isinstance(value, dict):
            value = [value.get("q"), value.get("r")]
        if (isinstance(value, list | tuple) and len(value) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            h = (int(value[0]), int(value[1]))
            if not _in_reach(h):
                raise self.fail("FIELD_INVALID", field, f"{list(h)}: a coordinate beyond "
                                f"+-{MAX_COORD}")
            return h
        raise self.fail("FIELD_INVALID", field, f"must be a hex [q, r], not {value!r}")

    def hex_list(self, data: dict, field: str) -> list[Hex]:
        value = self.required(data, field)
        if not isinstance(value, list) or not value:
            raise self.fail("FIELD_INVALID", field, "must be a non-empty list of hexes [q, r]")
        return [self.hex(v, f"{field}[{i}]") for i, v in enumerate(value)]

    def items(self, data: dict, field: str) -> list:
        """A list field (``units``, ``hexsides`` ...): absent or null is empty."""
        value = data.get(field)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail("FIELD_INVALID", field, "must be a list")
        return value

    def str_list(self, data: dict, field: str) -> list[str]:
        value = data.get(field) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail("FIELD_INVALID", field, "must be a list of strings")
        return list(value)


def entries(data: dict, field: str, labels: LabelOrigin | None = None):
    """``(reader, item)`` for each object of the list ``field`` of the position."""
    for i, item in enumerate(Reader("position").items(data, field)):
        rd = Reader(f"{field}[{i}]", labels)
        yield rd, rd.obj(item, field)


def parse_hex_text(text: Any, field: str) -> Hex:
    """``"Q,R"`` (the command line's form, HEX.md 14) or ``[q, r]`` -> a hex; a request error
    naming ``field`` otherwise."""
    h: Hex | None = None
    if isinstance(text, list | tuple) and len(text) == 2 and all(
            isinstance(v, int) and not isinstance(v, bool) for v in text):
        h = (int(text[0]), int(text[1]))
    if isinstance(text, str):
        parts = text.split(",")
        if len(parts) == 2:
            try:
                h = (int(parts[0]), int(parts[1]))
            except ValueError:
                pass
    if h is not None:
        if not _in_reach(h):
            raise HexRequestError(field, f"{list(h)}: a coordinate beyond +-{MAX_COORD}",
                                  "BAD_HEX")
        return h
    raise HexRequestError(field, f"{text!r} is not a hex; write it as Q,R (e.g. 0,-1)",
                          "BAD_HEX")


def map_hex(hm: Any, text: Any, field: str) -> Hex:
    """A hex of the request (:func:`parse_hex_text`) where something happens, which must be on
    the position's map (``HexMap.on_map``: its ``bounds``; HEX.md 14, unbounded without them):
    ``HEX_OFF_MAP`` naming ``field`` otherwise, as a unit off the map is ``UNIT_HEX_OFF_MAP``."""
    h = parse_hex_text(text, field)
    if not hm.on_map(h):
        raise HexRequestError(field, f"{list(h)} is off the map ({bounds_text(hm)})",
                              "HEX_OFF_MAP", hexes=[list(h)])
    return h


def bounds_text(hm: Any) -> str:
    """The map's bounds as a sentence gives them: ``q -6 to 6, r -6 to 6``."""
    parts = []
    if hm.bounds is not None:
        q0, q1, r0, r1 = hm.bounds
        parts.append(f"q {q0} to {q1}, r {r0} to {r1}")
    if hm.offset_bounds is not None:
        c0, c1, w0, w1 = hm.offset_bounds
        parts.append(f"columns {c0} to {c1}, rows {w0} to {w1}")
    return "; ".join(parts) or "the map's bounds"
