"""Hex-grid geometry for the hex-and-counter rulesets (HEX.md 3.1): axial coordinates, the six
directions and vertices, distance, hex lines with spine detection, pixel centres, printed map
labels and canonical hexside ids.

Conventions (HEX.md 3.1): flat-top hexes in vertical columns; x to the right, y down; bearings in
degrees clockwise from map north (the top edge). Side ``k`` = 0..5 has its outward normal at
bearing ``60*k``; vertex ``v`` lies between sides ``v`` and ``v+1`` at bearing ``60*v + 30``.
A hex is a plain ``(q, r)`` tuple of ints; the cube third is ``s = -q - r``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Hex = tuple[int, int]

#: Axial step across side k (HEX.md 3.1 table): N, NE, SE, S, SW, NW.
DIRS: tuple[Hex, ...] = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
DIR_NAMES: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")
_DIR_INDEX: dict[Hex, int] = {d: k for k, d in enumerate(DIRS)}

#: The nudge of HEX.md 3.1 that pushes a hex line off a spine, in cube (q, r, s).
_NUDGE = (1e-6, 2e-6, -3e-6)


def add(h: Hex, d: Hex, times: int = 1) -> Hex:
    """``h + times*d``.

    >>> add((0, 0), DIRS[1], 2)
    (2, -2)
    """
    return (h[0] + times * d[0], h[1] + times * d[1])


def neighbour(h: Hex, k: int) -> Hex:
    """The hex across side ``k`` of ``h``.

    >>> neighbour((0, 0), 0)
    (0, -1)
    """
    d = DIRS[k % 6]
    return (h[0] + d[0], h[1] + d[1])


def neighbours(h: Hex) -> list[Hex]:
    """The six hexes around ``h``, in side order 0..5."""
    return [(h[0] + dq, h[1] + dr) for dq, dr in DIRS]


def distance(a: Hex, b: Hex) -> int:
    """Hex distance ``max(|dq|, |dr|, |ds|)``.

    >>> distance((0, 0), (1, -3))
    3
    """
    dq = a[0] - b[0]
    dr = a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def direction(a: Hex, b: Hex) -> int | None:
    """The side ``k`` of ``a`` across which ``b`` lies, or None if they are not adjacent.

    >>> direction((0, 0), (-1, 1))
    4
    """
    return _DIR_INDEX.get((b[0] - a[0], b[1] - a[1]))


def opposite(k: int) -> int:
    """The side facing side ``k`` across the hexside: ``(k + 3) mod 6``."""
    return (k + 3) % 6


def ring(centre: Hex, radius: int) -> list[Hex]:
    """The hexes at exactly ``radius`` from ``centre`` (one hex for radius 0)."""
    if radius == 0:
        return [centre]
    out: list[Hex] = []
    h = add(centre, DIRS[4], radius)
    for k in range(6):
        for _ in range(radius):
            out.append(h)
            h = neighbour(h, k)
    return out


def disc(centre: Hex, radius: int) -> list[Hex]:
    """Every hex within ``radius`` of ``centre``."""
    return [h for r in range(radius + 1) for h in ring(centre, r)]


# ---------------------------------------------------------------------------------------------
# Hex lines (HEX.md 3.1): cube lerp with a nudge both ways; two different runs mean a spine.

def _cube_round(q: float, r: float, s: float) -> Hex:
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return (int(rq), int(rr))


def _line_run(a: Hex, b: Hex, sign: float) -> list[Hex]:
    n = distance(a, b)
    aq, ar = a[0] + sign * _NUDGE[0], a[1] + sign * _NUDGE[1]
    as_ = -a[0] - a[1] + sign * _NUDGE[2]
    bq, br, bs = b[0], b[1], -b[0] - b[1]
    if n == 0:
        return [a]
    return [_cube_round(aq + (bq - aq) * i / n, ar + (br - ar) * i / n,
                        as_ + (bs - as_) * i / n) for i in range(n + 1)]


@dataclass(frozen=True)
class HexLine:
    """A hex line from ``a`` to ``b``: ``hexes`` is one run (with the positive nudge),
    ``other`` the run with the negative nudge; ``spine`` is true when they differ, and
    ``candidates[i]`` holds the one or two hexes of step ``i``."""

    hexes: tuple[Hex, ...]
    other: tuple[Hex, ...]

    @property
    def spine(self) -> bool:
        return self.hexes != self.other

    @property
    def candidates(self) -> list[tuple[Hex, ...]]:
        return [(x,) if x == y else (x, y) for x, y in zip(self.hexes, self.other, strict=True)]

    def all_hexes(self) -> set[Hex]:
        return set(self.hexes) | set(self.other)


def first_steps(a: Hex, b: Hex) -> tuple[Hex, ...]:
    """The hex (two on a spine) that the hex line from ``a`` to ``b`` enters first; ``(b,)``
    when they are adjacent or equal. Cheaper than the whole :func:`hex_line`."""
    n = distance(a, b)
    if n <= 1:
        return (b,)
    out: list[Hex] = []
    bq, br = b[0], b[1]
    for sign in (1.0, -1.0):
        aq, ar = a[0] + sign * _NUDGE[0], a[1] + sign * _NUDGE[1]
        as_ = -a[0] - a[1] + sign * _NUDGE[2]
        h = _cube_round(aq + (bq - aq) / n, ar + (br - ar) / n, as_ + (-bq - br - as_) / n)
        if h not in out:
            out.append(h)
    return tuple(out)


def hex_line(a: Hex, b: Hex) -> HexLine:
    """The straight hex line between the centres of ``a`` and ``b`` (HEX.md 3.1).

    >>> hex_line((0, 0), (2, -1)).spine
    True
    """
    return HexLine(tuple(_line_run(a, b, 1.0)), tuple(_line_run(a, b, -1.0)))


# ---------------------------------------------------------------------------------------------
# Pixels, bearings, labels, hexsides.

def to_pixel(h: Hex, flats: float = 1.0, layout: str = "flat") -> tuple[float, float]:
    """Centre of ``h`` for hexes ``flats`` across (x right, y down), HEX.md 3.1:
    ``R = F/sqrt 3; x = 1.5 R q; y = sqrt3 R (r + q/2)`` (pointy: the same grid turned 30 deg).
    """
    radius = flats / math.sqrt(3.0)
    q, r = h
    if layout == "pointy":
        return (math.sqrt(3.0) * radius * (q + r / 2.0), 1.5 * radius * r)
    return (1.5 * radius * q, math.sqrt(3.0) * radius * (r + q / 2.0))


def bearing(a: Hex, b: Hex) -> float:
    """Bearing in degrees clockwise from north from the centre of ``a`` to that of ``b``.

    >>> round(bearing((0, 0), (1, 0)), 6)
    120.0
    """
    ax, ay = to_pixel(a)
    bx, by = to_pixel(b)
    return math.degrees(math.atan2(bx - ax, -(by - ay))) % 360.0


@dataclass(frozen=True)
class LabelOrigin:
    """Printed ``CCRR`` labels to axial (HEX.md 3.1): ``q = C - col0``,
    ``r = R - row0 - floor((q + parity) / 2)``."""

    col0: int = 0
    row0: int = 0
    parity: int = 0
    #: Digits per part of the label ("0405" has 2).
    digits: int = 2

    def to_axial(self, label: str) -> Hex:
        text = label.strip()
        if not text.isdigit() or len(text) % 2:
            raise ValueError(f"label {label!r}: must be an even number of digits, CCRR")
        half = len(text) // 2
        col, row = int(text[:half]), int(text[half:])
        q = col - self.col0
        return (q, row - self.row0 - (q + self.parity) // 2)

    def to_label(self, h: Hex) -> str:
        q, r = h
        col, row = q + self.col0, r + self.row0 + (q + self.parity) // 2
        if col < 0 or row < 0:
            raise ValueError(f"hex {list(h)}: has no printed label (column {col}, row {row})")
        return f"{col:0{self.digits}d}{row:0{self.digits}d}"


def calibrate_labels(first: tuple[str, Hex], second: tuple[str, Hex]) -> LabelOrigin:
    """The label origin that maps both (label, hex) pairs; an error when none does, or when
    the two hexes lie in columns of the same parity and so cannot tell the shove apart."""
    found = []
    for parity in (0, 1):
        label, h = first
        half = len(label.strip()) // 2
        col, row = int(label[:half]), int(label[half:])
        origin = LabelOrigin(col - h[0], row - h[1] - (h[0] + parity) // 2, parity, half)
        if all(origin.to_axial(lab) == hh for lab, hh in (first, second)):
            found.append(origin)
    if not found:
        raise ValueError("label calibration: no origin reproduces both labelled hexes")
    if len(found) == 2:
        raise ValueError("label calibration: both hexes are in columns of the same parity; "
                         "give one in a column of the other parity")
    return found[0]


def hexside_id(h: Hex, k: int) -> tuple[int, int, int]:
    """Canonical id ``(q, r, k)`` with ``k`` in 0..2 of side ``k`` of ``h`` (HEX.md 3.1).

    >>> hexside_id((0, 0), 3)
    (0, 1, 0)
    """
    k %= 6
    if k < 3:
        return (h[0], h[1], k)
    n = neighbour(h, k)
    return (n[0], n[1], k - 3)


def hexside_between(a: Hex, b: Hex) -> tuple[int, int, int] | None:
    """Canonical id of the hexside shared by adjacent ``a`` and ``b`` (None if not adjacent)."""
    k = direction(a, b)
    return None if k is None else hexside_id(a, k)
