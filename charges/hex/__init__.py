"""The hex-and-counter engine (HEX.md): the position model and the mechanisms the rulesets
``mpbs`` and ``lb`` compose. ``hex_rule(kind, position, **options)`` is the entry point."""

from .api import describe, hex_rule
from .errors import HexRequestError, PositionError
from .position import Position, load_position

__all__ = ["hex_rule", "describe", "HexRequestError", "PositionError", "Position", "load_position"]
