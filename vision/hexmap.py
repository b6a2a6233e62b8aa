"""A hex position as a picture's layout (HEX.md 3, 4; the web page's hex view): where each hex,
hexside feature, counter, facing arrow, stack, leader and assault marker is drawn.

The page draws what this returns as SVG and adds nothing of its own, so the picture follows
``geometry.hexgrid`` exactly: hex centres are :func:`geometry.hexgrid.to_pixel` for the map's
hex size (``hex_flats_mm``) and layout, and every corner, hexside and facing direction is
derived from the six neighbour directions through that same function (a pointy map is the
flat one turned, with no second formula to keep in step). Lengths are millimetres on the
printed map, x to the right, y down (HEX.md 3.1).

Which hexes are drawn: the map's rectangle of printed columns and rows around everything the
position puts on it (units, leaders, listed terrain and hexsides, assault targets) grown by one
hex, clipped to the map's bounds. A position whose pieces lie so far apart that the rectangle
would hold more than :data:`MAX_DRAWN_HEXES` draws those hexes and their neighbours only.
"""

from __future__ import annotations

import math
from typing import Any

from geometry.hexgrid import DIRS, Hex, neighbours, to_pixel
from vision.palette import side_colours

#: Enough for any real map sheet (a La Bataille map is about 50 x 35 hexes); beyond it a page
#: would be asked to draw a picture nobody can read.
MAX_DRAWN_HEXES = 2500
#: A counter's side as a share of the hex's width across flats (counters sit inside the hex).
COUNTER = 0.62
#: How far each unit under the top one is shifted, as a share of the hex's width, so a stack
#: shows its depth and every counter of it can be tapped.
STACK_STEP = 0.1

#: Terrain fills for the names the samples and the usual terrain charts use; any other terrain
#: gets :data:`OTHER_TERRAIN` and its name in the legend.
TERRAIN_FILL = {"clear": "#efeccd", "open": "#efeccd", "woods": "#9cc28a", "forest": "#9cc28a",
                "village": "#d9b38c", "town": "#d9b38c", "hill": "#e0c98f", "marsh": "#b6d3cf",
                "orchard": "#c4dc9f", "rough": "#d3c7a5", "road": "#e3d6b5",
                "bridge": "#bfa78a", "water": "#8fb8de", "river": "#8fb8de"}
OTHER_TERRAIN = "#d8d2c2"
#: Hexside feature strokes.
FEATURE_STROKE = {"hedge": "#2f7d32", "stream": "#1f6fc0", "river": "#1f6fc0",
                  "wall": "#5d5d58", "slope": "#8a5a2b", "bridge": "#7a4f1f", "road": "#a07840"}
OTHER_FEATURE = "#444444"


def _bgr_to_css(bgr: tuple[int, int, int]) -> str:
    b, g, r = bgr
    return f"#{r:02x}{g:02x}{b:02x}"


class _Frame:
    """Pixels of one map: centres by ``to_pixel``; unit vectors of the six sides and six
    vertices from the centres of the neighbours (so they hold for either layout)."""

    def __init__(self, flats: float, layout: str) -> None:
        self.flats, self.layout = flats, layout
        self.radius = flats / math.sqrt(3.0)  # centre to corner (HEX.md 3.1: R = F / sqrt 3)
        self.sides = [self._unit(to_pixel(d, 1.0, layout)) for d in DIRS]
        self.vertices = [self._unit((a[0] + b[0], a[1] + b[1]))
                         for a, b in zip(self.sides, self.sides[1:] + self.sides[:1], strict=True)]

    @staticmethod
    def _unit(v: tuple[float, float]) -> tuple[float, float]:
        n = math.hypot(*v)
        return (v[0] / n, v[1] / n)

    def centre(self, h: Hex) -> tuple[float, float]:
        return to_pixel(h, self.flats, self.layout)

    def corner(self, h: Hex, v: int) -> tuple[float, float]:
        """Vertex ``v`` of ``h`` (between sides ``v`` and ``v + 1``, HEX.md 3.1)."""
        x, y = self.centre(h)
        ux, uy = self.vertices[v % 6]
        return (x + self.radius * ux, y + self.radius * uy)

    def facing_vector(self, f: int) -> tuple[float, float]:
        """Facing code ``f``: even codes face side ``f/2``, odd codes vertex ``(f-1)/2``."""
        return self.sides[f // 2] if f % 2 == 0 else self.vertices[(f - 1) // 2]


def _r(v: float) -> float:
    return round(v, 3)


def _pt(p: tuple[float, float]) -> list[float]:
    return [_r(p[0]), _r(p[1])]


def _offset(h: Hex, parity: int) -> tuple[int, int]:
    """Printed (column, row) of an axial hex (HEX.md 3.1, with the map's column parity)."""
    return (h[0], h[1] + (h[0] + parity) // 2)


def _axial(col: int, row: int, parity: int) -> Hex:
    return (col, row - (col + parity) // 2)


def _pieces(pos: Any) -> set[Hex]:
    """Every hex the position puts something on."""
    found: set[Hex] = set(pos.map.terrain)
    found |= {(q, r) for (q, r, _k) in pos.map.hexsides}
    for u in pos.units:
        found |= set(u.hexes)
    for ld in pos.leaders:
        found |= set(ld.hexes)
    found |= {m.target_hex for m in pos.markers if m.target_hex is not None}
    return found


def drawn_hexes(pos: Any) -> list[Hex]:
    """The hexes to draw (see the module docstring), in printed column-then-row order."""
    parity = pos.map.labels.parity if pos.map.labels is not None else 0
    pieces = _pieces(pos) or {(0, 0)}
    cells = [_offset(h, parity) for h in pieces]
    c0, c1 = min(c for c, _ in cells) - 1, max(c for c, _ in cells) + 1
    w0, w1 = min(w for _, w in cells) - 1, max(w for _, w in cells) + 1
    if (c1 - c0 + 1) * (w1 - w0 + 1) <= MAX_DRAWN_HEXES:
        box = (_axial(c, w, parity) for c in range(c0, c1 + 1) for w in range(w0, w1 + 1))
        hexes = [h for h in box if pos.map.on_map(h)]
    else:
        near = pieces | {n for h in pieces for n in neighbours(h)}
        hexes = sorted((h for h in near if pos.map.on_map(h)),
                       key=lambda h: _offset(h, parity))[:MAX_DRAWN_HEXES]
    return hexes or sorted(pieces)[:MAX_DRAWN_HEXES]


def _label(pos: Any, h: Hex) -> str:
    if pos.map.labels is not None:
        try:
            return pos.map.labels.to_label(h)
        except ValueError:
            pass
    return f"{h[0]},{h[1]}"


def _hexes(pos: Any, fr: _Frame, hexes: list[Hex]) -> list[dict]:
    out = []
    for h in hexes:
        terrain = pos.map.terrain_of(h)
        out.append({"hex": list(h), "label": _label(pos, h), "terrain": terrain,
                    "fill": TERRAIN_FILL.get(terrain, OTHER_TERRAIN),
                    "x": _r(fr.centre(h)[0]), "y": _r(fr.centre(h)[1]),
                    "points": [_pt(fr.corner(h, v)) for v in range(6)]})
    return out


def _hexsides(pos: Any, fr: _Frame) -> list[dict]:
    """Each feature as the segment of its hexside: side ``k`` runs from vertex ``k - 1`` to
    vertex ``k``."""
    out = []
    for (q, r, k), feats in pos.map.hexsides.items():
        for feat in feats:
            name = str(feat.get("feature"))
            out.append({"hex": [q, r], "side": k, "feature": name,
                        "high_side": feat.get("high_side"),
                        "stroke": FEATURE_STROKE.get(name, OTHER_FEATURE),
                        "a": _pt(fr.corner((q, r), k - 1)), "b": _pt(fr.corner((q, r), k))})
    return out


def _unit(pos: Any, fr: _Frame, u: Any, colours: dict[str, str]) -> dict:
    """A counter: one per unit, spanning every hex of a multi-hex line, shifted by its depth
    in the stack of its first hex; the facing arrow runs from its centre to its front."""
    depth = max(pos.stack(h).index(u) for h in u.hexes)
    shift = STACK_STEP * fr.flats * depth
    pts = [fr.centre(h) for h in u.hexes]
    cx = sum(p[0] for p in pts) / len(pts) + shift
    cy = sum(p[1] for p in pts) / len(pts) + shift
    a, b = pts[0], pts[-1]
    angle = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) if len(pts) > 1 else 0.0
    length = math.hypot(b[0] - a[0], b[1] - a[1]) + COUNTER * fr.flats
    entry: dict[str, Any] = {
        "id": u.id, "side": u.side, "name": u.name or u.id, "type": u.type,
        "formation": u.formation, "facing": u.facing, "facing_model": u.model,
        "hexes": [list(h) for h in u.hexes], "x": _r(cx), "y": _r(cy),
        "width": _r(length), "height": _r(COUNTER * fr.flats), "angle": _r(angle),
        "stack_depth": depth, "stack_size": max(len(pos.stack(h)) for h in u.hexes),
        "colour": colours.get(u.side, "#777777"), "arrow": None}
    if u.facing is not None:
        vx, vy = fr.facing_vector(u.facing)
        reach = COUNTER * fr.flats * 0.75
        entry["arrow"] = [[_r(cx), _r(cy)], [_r(cx + reach * vx), _r(cy + reach * vy)]]
    return entry


def _leaders(pos: Any, fr: _Frame, colours: dict[str, str]) -> list[dict]:
    """Leaders sit on the upper-left corner of their hex, clear of the counters."""
    out = []
    for ld in pos.leaders:
        x, y = fr.corner(ld.hexes[0], 4)
        cx, cy = fr.centre(ld.hexes[0])
        out.append({"id": ld.id, "side": ld.side, "rank": ld.rank, "moved": ld.moved,
                    "hexes": [list(h) for h in ld.hexes], "colour": colours.get(ld.side, "#777"),
                    "x": _r((x + cx) / 2), "y": _r((y + cy) / 2)})
    return out


def _markers(pos: Any, fr: _Frame) -> list[dict]:
    """Assault markers (HEX.md 14) as arrows from the unit's hex to the hex it assaults."""
    out = []
    for m in pos.markers:
        if m.target_hex is None or m.unit not in pos.by_id:
            continue
        start = pos.by_id[m.unit].hexes[0]
        out.append({"kind": m.kind, "unit": m.unit, "target_hex": list(m.target_hex),
                    "distance": m.distance, "a": _pt(fr.centre(start)),
                    "b": _pt(fr.centre(m.target_hex))})
    return out


def map_layout(pos: Any) -> dict:
    """The layout of a validated position (:class:`charges.hex.Position`) as JSON: ``hexes``
    (centre, corners, terrain, printed label), ``hexsides`` (feature segments), ``units``
    (counters with facing arrows and stack depth), ``stacks`` (top first), ``leaders``,
    ``markers``, the side colours and the ``viewbox`` ``[x, y, width, height]`` in mm."""
    fr = _Frame(float(pos.map.hex_flats_mm), pos.map.layout)
    colours = {s: _bgr_to_css(c) for s, c in side_colours(pos.sides()).items()}
    hexes = _hexes(pos, fr, drawn_hexes(pos))
    xs = [p[0] for h in hexes for p in h["points"]]
    ys = [p[1] for h in hexes for p in h["points"]]
    pad = fr.flats * 0.2
    return {
        "layout": fr.layout, "hex_flats_mm": fr.flats, "radius_mm": _r(fr.radius),
        "viewbox": [_r(min(xs) - pad), _r(min(ys) - pad), _r(max(xs) - min(xs) + 2 * pad),
                    _r(max(ys) - min(ys) + 2 * pad)],
        "labels": pos.map.labels is not None,
        "hexes": hexes, "hexsides": _hexsides(pos, fr),
        "units": [_unit(pos, fr, u, colours) for u in pos.units],
        "stacks": [{"hex": list(h), "units": [u.id for u in st]}
                   for h, st in pos.stacks.items() if st],
        "leaders": _leaders(pos, fr, colours), "markers": _markers(pos, fr),
        "sides": [{"side": s, "colour": colours[s]} for s in pos.sides()],
    }
