"""Colours for every picture umpire draws (DESIGN.md, ``vision/``: overlays and plans).

The Okabe-Ito palette (Okabe & Ito, "Color Universal Design", 2008) stays distinguishable under
the common colour-vision deficiencies, which matters because players argue over who is red
and who is blue. OpenCV wants BGR, so every colour here is a BGR tuple. Roles get fixed
colours; sides take the remaining palette entries in order of first appearance, with the
conventional names ``red`` and ``blue`` mapped to vermillion and blue so a "red" army looks red.
"""

from __future__ import annotations

from collections.abc import Iterable

BGR = tuple[int, int, int]


def _hex(rgb: str) -> BGR:
    r, g, b = (int(rgb[i:i + 2], 16) for i in (1, 3, 5))
    return (b, g, r)


BLACK = _hex("#000000")
ORANGE = _hex("#E69F00")
SKY_BLUE = _hex("#56B4E9")
BLUISH_GREEN = _hex("#009E73")
YELLOW = _hex("#F0E442")
BLUE = _hex("#0072B2")
VERMILLION = _hex("#D55E00")
REDDISH_PURPLE = _hex("#CC79A7")
WHITE = (255, 255, 255)
GREY = (150, 150, 150)
DARK_GREY = (90, 90, 90)

#: Roles in a ruling picture.
DISTANCE = ORANGE  # the closest-distance line and its length
PATH = REDDISH_PURPLE  # the charge path: intermediate boundaries, wheel and align arcs, pivots
CONTACT = YELLOW  # models in base contact (filled, outlined in black)
ARCS = BLACK  # the target's arc rays
CHARGED_ARC = SKY_BLUE  # tint of the arc the charge hits
DESTROYED = GREY
TERRAIN_IMPASSABLE = (120, 120, 120)
TERRAIN_PASSABLE = (185, 200, 185)
MAT = (226, 234, 228)  # plan background: a pale, neutral mat

_NAMED_SIDES: dict[str, BGR] = {"red": VERMILLION, "blue": BLUE}
_SIDE_CYCLE: tuple[BGR, ...] = (VERMILLION, BLUE, BLUISH_GREEN, ORANGE, REDDISH_PURPLE, SKY_BLUE)


def side_colours(sides: Iterable[str]) -> dict[str, BGR]:
    """A distinct colour per side: ``red``/``blue`` by name, the others in order of appearance
    from the palette entries not yet taken. Sides are told apart exactly as the rules tell
    them, by exact name ("red" and "Red" are enemies, so they get two colours; an outside
    tester found them drawn as one)."""
    out: dict[str, BGR] = {}
    ordered: list[str] = []
    for s in sides:
        if s not in ordered:
            ordered.append(s)
    for s in ordered:
        if s in _NAMED_SIDES:
            out[s] = _NAMED_SIDES[s]
    free = [c for c in _SIDE_CYCLE if c not in out.values()]
    for s in ordered:
        if s not in out:
            out[s] = free.pop(0) if free else _SIDE_CYCLE[len(out) % len(_SIDE_CYCLE)]
    return out


def tint(colour: BGR, amount: float) -> BGR:
    """``colour`` mixed with white (``amount`` 0 = colour, 1 = white)."""
    return tuple(int(round(c + (255 - c) * amount)) for c in colour)  # type: ignore[return-value]
