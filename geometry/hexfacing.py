"""Facing on a hex grid (HEX.md 3.2-3.3): facing codes 0-11, the facing models, and one- and
multi-hex units' front, flank and rear hexes.

A unit faces a hexside (even code ``f``, side ``f/2``) or a vertex (odd ``f``, vertex
``(f-1)/2``); its bearing is ``30*f``. The aspect of an adjacent hex in direction ``k`` depends on
``delta``, the angle between ``60*k`` and ``30*f`` folded to 0..180, through the unit's facing
model.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .hexgrid import DIRS, Hex, bearing, direction, neighbour

FRONT, FLANK, REAR = "front", "flank", "rear"

#: delta (degrees) -> aspect, per facing model (HEX.md 3.2 table). A delta absent from a model's
#: map is not a side of that model's kind (a vertex model read with a hexside code).
FACING_MODELS: dict[str, dict[int, str]] = {
    "vertex_2_2_2": {30: FRONT, 90: FLANK, 150: REAR},
    "side_3_2_1": {0: FRONT, 60: FRONT, 120: FLANK, 180: REAR},
    "side_5_0_1": {0: FRONT, 60: FRONT, 120: FRONT, 180: REAR},
    "vertex_4_2_0": {30: FRONT, 90: FRONT, 150: FLANK},
    "all_front": {d: FRONT for d in (0, 30, 60, 90, 120, 150, 180)},
    "none": {d: FRONT for d in (0, 30, 60, 90, 120, 150, 180)},
}
#: Models whose units face a vertex (odd codes) or a hexside (even codes); the others take any.
VERTEX_MODELS = frozenset({"vertex_2_2_2", "vertex_4_2_0"})
SIDE_MODELS = frozenset({"side_3_2_1", "side_5_0_1"})
#: For "attacked through" a unit without facing counts as all front (HEX.md 3.2, model none).
UNFACED = "none"


def facing_bearing(f: int) -> int:
    """Bearing of facing code ``f``: ``30*f`` degrees."""
    return 30 * (f % 12)


def delta(k: int, f: int) -> int:
    """The angle between side ``k``'s normal (``60*k``) and facing ``f`` (``30*f``), 0..180.

    >>> delta(4, 9)
    30
    """
    d = abs(60 * (k % 6) - 30 * (f % 12)) % 360
    return 360 - d if d > 180 else d


def facing_fits(model: str, f: int | None) -> bool:
    """Whether facing code ``f`` is of the kind the model needs (HEX.md 14: vertex models odd,
    side models even; all-front and unfaced units take any code or none)."""
    if model in VERTEX_MODELS:
        return f is not None and f % 2 == 1
    if model in SIDE_MODELS:
        return f is not None and f % 2 == 0
    return True


def side_aspect(model: str, f: int | None, k: int) -> str | None:
    """Aspect (``front``/``flank``/``rear``) of side ``k`` of a one-hex unit, or None when the
    model has no such side (a vertex model read with an even code)."""
    if model in ("all_front", UNFACED) or f is None:
        return FRONT
    return FACING_MODELS[model].get(delta(k, f))


def front_sides(model: str, f: int | None) -> list[int]:
    """The sides ``k`` whose aspect is front, in order 0..5."""
    return [k for k in range(6) if side_aspect(model, f, k) == FRONT]


# ---------------------------------------------------------------------------------------------
# Multi-hex units (HEX.md 3.3).

def line_axis(hexes: Sequence[Hex]) -> int | None:
    """The axis ``k`` with ``hexes[i+1] = hexes[i] + DIR[k]`` for every i, or None."""
    if len(hexes) < 2:
        return None
    k = direction(hexes[0], hexes[1])
    if k is None:
        return None
    for a, b in zip(hexes[1:], hexes[2:], strict=False):
        if direction(a, b) != k:
            return None
    return k


def line_facings(k: int) -> tuple[int, int]:
    """The two facing codes perpendicular to axis ``k``: ``2k+3`` and ``2k-3`` (mod 12)."""
    return ((2 * k + 3) % 12, (2 * k - 3) % 12)


_SEVERITY = {FRONT: 0, FLANK: 1, REAR: 2}


def aspects(hexes: Sequence[Hex], f: int | None, model: str) -> dict[Hex, str]:
    """Aspect of every hex adjacent to the unit on ``hexes`` (not one of them), HEX.md 3.3.

    Classification is per (unit hex, hexside); a hex touching several unit hexes gets the
    least severe of their aspects (the proof of 3.3 shows a straight line's halves agree; the
    fallback favours the defender, M&P 11.3.1). Hexes a model leaves without an aspect are
    absent.

    >>> sorted(h for h, a in aspects([(0, 0), (1, 0)], 1, "vertex_2_2_2").items() if a == "rear")
    [(-1, 1), (0, 1), (1, 1)]
    """
    own = set(hexes)
    out: dict[Hex, str] = {}
    for h in hexes:
        for k in range(6):
            n = neighbour(h, k)
            if n in own:
                continue
            a = side_aspect(model, f, k)
            if a is None:
                continue
            if n not in out or _SEVERITY[a] < _SEVERITY[out[n]]:
                out[n] = a
    return out


def aspect_of(hexes: Sequence[Hex], f: int | None, model: str, h: Hex) -> str | None:
    """Aspect of hex ``h`` seen from the unit, or None if ``h`` is not adjacent to it."""
    return aspects(hexes, f, model).get(h)


# ---------------------------------------------------------------------------------------------
# Sectors beyond adjacency (artillery reaction fire, M&P 9.1.2; HEX.md D-11).

def _wedge_coeffs(d: Hex, k1: int, k2: int) -> tuple[float, float]:
    (x1, y1), (x2, y2) = DIRS[k1 % 6], DIRS[k2 % 6]
    det = x1 * y2 - x2 * y1
    a = (d[0] * y2 - x2 * d[1]) / det
    b = (x1 * d[1] - d[0] * y1) / det
    return a, b


def in_wedge(origin: Hex, h: Hex, k1: int, k2: int) -> bool:
    """``h - origin = a*DIR[k1] + b*DIR[k2]`` with ``a, b >= 0`` (adjacent sides k1, k2)."""
    a, b = _wedge_coeffs((h[0] - origin[0], h[1] - origin[1]), k1, k2)
    return a >= -1e-9 and b >= -1e-9


def in_front_sector(origins: Iterable[Hex], f: int, h: Hex, model: str,
                    shape: str = "wedge60") -> bool:
    """Whether ``h`` lies in the frontal sector of a unit on ``origins`` facing ``f``.

    ``wedge60`` (D-11): the union of the 60-degree wedges between consecutive front sides,
    boundaries included. ``cone120``: the bearing from a unit hex to ``h`` lies within 60
    degrees of the facing's bearing.
    """
    fronts = front_sides(model, f)
    for o in origins:
        if h == o:
            return True
        if shape == "cone120":
            if angle_off_facing(o, h, f) <= 60.0 + 1e-9:
                return True
            continue
        for k in fronts:
            if (k + 1) % 6 in fronts and in_wedge(o, h, k, k + 1):
                return True
    return False


def angle_off_facing(o: Hex, h: Hex, f: int) -> float:
    """Degrees (0..180) between the bearing from ``o`` to ``h`` and facing ``f``."""
    return abs((bearing(o, h) - facing_bearing(f) + 180.0) % 360.0 - 180.0)


__all__ = ["FRONT", "FLANK", "REAR", "FACING_MODELS", "VERTEX_MODELS", "SIDE_MODELS", "UNFACED",
           "facing_bearing", "delta", "facing_fits", "side_aspect", "front_sides", "line_axis",
           "line_facings", "aspects", "aspect_of", "in_wedge", "in_front_sector",
           "angle_off_facing"]
