"""Errors of the hex rulings (HEX.md 4, 13, 14): ``ValueError`` subclasses whose message names
the unit or hex, the field and the section-4 code (exit 2 on the command line, 422 over HTTP)."""

from __future__ import annotations

from ..errors import RequestError


class PositionError(RequestError):
    """A position that breaks HEX.md 4: ``code`` is the validation code (``TWO_HEX_BAD_FACING``
    ...), ``where`` the unit or hex (``units[1] 'par-hi'``), ``field`` the field."""

    def __init__(self, code: str, where: str, field: str, message: str,
                 units: list[str] | None = None, hexes: list[list[int]] | None = None) -> None:
        self.code, self.where, self.field = code, where, field
        self.units = units or []
        self.hexes = hexes or []
        self.detail = message
        super().__init__(f"position: {where}: {field}: {code}: {message}")

    def to_json(self) -> dict:
        return {"code": self.code, "where": self.where, "field": self.field,
                "message": str(self), "units": self.units, "hexes": self.hexes}


class HexRequestError(RequestError):
    """A bad ruling request (an unknown option, a unit id not in the position ...): ``field`` is
    the option, ``code`` a short name for the fault."""

    def __init__(self, field: str, message: str, code: str = "BAD_REQUEST",
                 hexes: list[list[int]] | None = None) -> None:
        self.code, self.field = code, field
        self.where = "request"
        self.units: list[str] = []
        self.hexes: list[list[int]] = hexes or []
        super().__init__(f"{field}: {code}: {message}")

    def to_json(self) -> dict:
        return {"code": self.code, "where": self.where, "field": self.field,
                "message": str(self), "units": self.units, "hexes": self.hexes}
