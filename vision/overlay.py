"""Pictures of a scene and a ruling: on the photo and on a clean top-down plan.

DESIGN.md (``vision/``: "scene -> pictures") and issue 4 ("Pictures"): a ruling must be
checkable by eye, so the picture shows what the ruling says happened - the unit boundaries
(RULES.md 1), the target's four arcs as 45-degree corner rays (RULES.md 1), the closest
distance that the charge roll is compared with (RULES.md 3), the path with its wheel and align
pivots (RULES.md 4), the final aligned position with the models in base contact (RULES.md 4),
the reformed or turned target (RULES.md 4-5), the failed-charge end position (RULES.md 6) and
destroyed fleeing units (RULES.md 7).

The overlay only *reads* rulings (STYLE.md, python-chess's ``chess.svg``): every polygon comes
from ``geometry`` (the only place unit polygons are built), and the path is replayed with
``geometry.step_from_json`` / ``geometry.replay`` rather than trusting drawn coordinates.

One drawing routine serves both pictures: everything is drawn in table millimetres and mapped
to pixels by a 3x3 homography - the photo's own (table -> image) or, for the plan, a scale and
a flip of the y axis (the table frame has y up, images have y down). A homography maps straight
lines to straight lines, so polygons are exact by projecting their corners; curves (wheel arcs)
are sampled. Colours are the Okabe-Ito palette (``vision.palette``); text has a halo so it
reads on any photo.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
from shapely.geometry import LineString, Polygon
from shapely.geometry import Point as Point_
from shapely.geometry.base import BaseGeometry

import geometry as g
from charges.dice import format_chance
from geometry.moves import wheel_pivot
from vision import palette as P
from vision.labels import LabelBoard

Point = tuple[float, float]
_FONT = cv2.FONT_HERSHEY_SIMPLEX
_TITLE_FONT = cv2.FONT_HERSHEY_DUPLEX
_SHIFT = 4  # sub-pixel bits for OpenCV drawing: coordinates are exact to 1/16 px
_ONE = 1 << _SHIFT


# --------------------------------------------------------------------------- public API


def encode_png(image: np.ndarray) -> bytes:
    """PNG bytes of a BGR (or grey) image, for the CLI and the HTTP API."""
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("image could not be encoded as PNG")
    return buf.tobytes()


def plan_transform(scene: dict, ruling: dict | None = None,
                   px_per_mm: float = 0.5) -> np.ndarray:
    """The 3x3 homography from table millimetres to pixels of :func:`draw_plan`'s image.

    Public so that tests and the web page can find a table point on the plan: the plan is a
    pure scale with the y axis flipped (table y up, image y down) and a margin above for the
    title.
    """
    return _plan_layout(g.load_scene(scene), ruling, _check_scale(px_per_mm)).H


def draw_plan(scene: dict, ruling: dict | None, px_per_mm: float = 0.5) -> np.ndarray:
    """A clean top-down plan of the table (BGR image) with the ruling drawn on it.

    The table is drawn on a pale mat with a 6-inch grid, terrain, every unit, and (when a
    ruling is given) everything the ruling decided; a title line per charge gives the outcome
    and a legend below the table explains the marks.
    """
    sc = g.load_scene(scene)
    lay = _plan_layout(sc, ruling, _check_scale(px_per_mm))
    img = np.full((lay.height, lay.width, 3), 255, np.uint8)
    cv = _Canvas(img, lay.H, lay.u, sc.table.polygon)
    _draw_table(cv, sc, px_per_mm)
    items = _draw_everything(cv, sc, ruling, unit_alpha=0.35)
    _draw_title(cv, _fit_title(_title_lines(sc, ruling), lay.width - 2 * lay.margin, lay.u),
                (lay.margin, lay.margin), panel=False)
    _draw_legend(cv, items, (lay.margin, lay.legend_y), lay.width - 2 * lay.margin,
                 panel=False)
    return img


def draw_on_photo(image: np.ndarray, scene: dict, ruling: dict | None,
                  table_to_image: np.ndarray, *, label_boxes: list | None = None) -> np.ndarray:
    """The ruling drawn over the photo it was made from (a new BGR image; the input is not
    changed). ``table_to_image`` maps table millimetres to image pixels (the inverse of the
    calibration homography). ``label_boxes``, when given, receives the pixel box of every text
    placed on the table, as :func:`draw_scene_overlay` gives them."""
    sc = g.load_scene(scene)
    cv = _photo_canvas(image, table_to_image, sc)
    if label_boxes is not None:
        cv.board.boxes = label_boxes
    _draw_table_outline(cv, sc)
    items = _draw_everything(cv, sc, ruling, unit_alpha=0.2)
    _draw_photo_panels(cv, _title_lines(sc, ruling), items)
    return cv.img


def draw_scene_overlay(image: np.ndarray, scene: dict, table_to_image: np.ndarray, *,
                       label_boxes: list | None = None) -> np.ndarray:
    """What detection found, over the photo: the table outline, every unit boundary with its
    id and a facing arrow (and the detection's ``sigma_mm``/``sigma_deg`` when present).
    ``label_boxes``, when given, receives the pixel box (x0, y0, x1, y1) of every text placed
    on the table, labels last (they never overlap one another)."""
    sc = g.load_scene(scene)
    cv = _photo_canvas(image, table_to_image, sc)
    if label_boxes is not None:
        cv.board.boxes = label_boxes
    _draw_table_outline(cv, sc)
    items = _draw_everything(cv, sc, None, unit_alpha=0.2, show_sigma=True)
    title = [f"{len(sc.units)} unit{'s' if len(sc.units) != 1 else ''} detected"]
    _draw_photo_panels(cv, title, items)
    return cv.img


# --------------------------------------------------------------------------- canvas


@dataclass
class _Canvas:
    """An image, the homography from table mm to its pixels, a drawing scale ``u`` (1 = lines
    and text sized for a ~900 px wide picture) and the table region that can be drawn on."""

    img: np.ndarray
    H: np.ndarray
    u: float
    clip: Polygon
    halo: bool = False  # lines get a contrasting under-stroke (photos: any background)
    board: LabelBoard = field(default_factory=LabelBoard)  # text placed so far (no overlaps)

    def px(self, pts: Iterable[Sequence[float]]) -> np.ndarray:
        """Table mm -> float pixel coordinates, shape (n, 2)."""
        a = np.asarray(list(pts), dtype=np.float64).reshape(-1, 2)
        h = np.hstack([a, np.ones((len(a), 1))]) @ self.H.T
        return h[:, :2] / h[:, 2:3]

    def thick(self, k: float) -> int:
        return max(1, int(round(k * self.u)))

    # --- primitives, all in table mm

    def polyline(self, pts: Sequence[Point], colour: P.BGR, k: float, closed: bool = False,
                 dashed: bool = False, halo: bool = True) -> None:
        q = self.px(pts)
        if self.halo and halo:
            under = P.BLACK if sum(colour) / 3 > 150 else P.WHITE
            cv2.polylines(self.img, [_fix(q)], closed, under,
                          self.thick(k) + max(2, int(round(1.5 * self.u))), cv2.LINE_AA, _SHIFT)
        if dashed:
            _dashed(self.img, q, colour, self.thick(k), closed, 9 * self.u, 6 * self.u)
            return
        cv2.polylines(self.img, [_fix(q)], closed, colour, self.thick(k), cv2.LINE_AA, _SHIFT)

    def fill(self, pts: Sequence[Point], colour: P.BGR, alpha: float) -> None:
        _blend_poly(self.img, self.px(pts), colour, alpha)

    def polygon(self, poly: BaseGeometry, colour: P.BGR, k: float, dashed: bool = False,
                fill: P.BGR | None = None, alpha: float = 0.0, halo: bool = True) -> None:
        for part in _parts(poly):
            pts = list(part.exterior.coords)[:-1]
            if fill is not None and alpha > 0:
                self.fill(pts, fill, alpha)
            if k > 0:
                self.polyline(pts, colour, k, closed=True, dashed=dashed, halo=halo)

    def dot(self, p: Point, colour: P.BGR, r: float, ring: P.BGR | None = P.WHITE) -> None:
        c = _fix(self.px([p]))[0]
        rad = max(2, int(round(r * self.u))) * _ONE
        if ring is not None:
            cv2.circle(self.img, tuple(c), rad + self.thick(1.5) * _ONE, ring, -1, cv2.LINE_AA,
                       _SHIFT)
        cv2.circle(self.img, tuple(c), rad, colour, -1, cv2.LINE_AA, _SHIFT)

    def arrow(self, a: Point, b: Point, colour: P.BGR, k: float) -> None:
        pa, pb = self.px([a, b])
        length = float(np.hypot(*(pb - pa)))
        if length < 1:
            return
        tip = min(0.45, 9 * self.u / length)
        cv2.arrowedLine(self.img, tuple(_fix([pa])[0]), tuple(_fix([pb])[0]), colour,
                        self.thick(k), cv2.LINE_AA, _SHIFT, tip)

    def text(self, p: Point, s: str, colour: P.BGR, scale: float = 0.5,
             centre: bool = True, offset_px: tuple[float, float] = (0, 0)) -> None:
        x, y = self.px([p])[0]
        x, y = x + offset_px[0] * self.u, y + offset_px[1] * self.u
        (tw, th), _ = cv2.getTextSize(s, _FONT, scale * self.u, self.thick(1))
        if centre:
            self.board.add((x - tw / 2, y - th / 2, x + tw / 2, y + th / 2))
        else:
            self.board.add((x, y - th, x + tw, y))
        _halo_text(self.img, s, (x, y), colour, scale * self.u, self.thick(1), centre)


    def text_free(self, p: Point, s: str, colour: P.BGR, scale: float,
                  offsets: Sequence[tuple[float, float]]) -> None:
        """Centred text at the first of ``offsets`` (from ``p``, in pixels of scale ``u``)
        where it meets no text placed so far, else where it meets the least
        (:class:`vision.labels.LabelBoard`): two labels of one charge, its distance and
        tow's paid path, must not be drawn on each other."""
        x, y = self.px([p])[0]
        (tw, th), _ = cv2.getTextSize(s, _FONT, scale * self.u, self.thick(1))
        centres = [(x + ox * self.u, y + oy * self.u) for ox, oy in offsets]
        k = self.board.place(centres, (tw, th), pad=2 * self.u)
        _halo_text(self.img, s, centres[k], colour, scale * self.u, self.thick(1), True)


def _beside(cv: _Canvas, a: Point, b: Point, px: float) -> list[tuple[float, float]]:
    """Places for a segment's label, best first: ``px`` to its right on screen (where it has
    always gone), then its left, then further out on either side, then slid along it."""
    nx, ny = _side_offset(cv, a, b, 1.0)
    out = [(nx * d * side, ny * d * side) for d in (px, px + 28, px + 56, px + 90)
           for side in (1, -1)]
    pa, pb = cv.px([a, b])
    length = float(np.hypot(*(pb - pa))) / max(cv.u, 1e-9)
    tx, ty = -ny, nx  # along the segment
    for slide in (0.35 * length, -0.35 * length):
        out += [(nx * px * side + tx * slide, ny * px * side + ty * slide) for side in (1, -1)]
    return out


def _fix(q: np.ndarray | Sequence) -> np.ndarray:
    return np.round(np.asarray(q, dtype=np.float64) * _ONE).astype(np.int32).reshape(-1, 2)


def _parts(geom: BaseGeometry) -> list[Polygon]:
    if geom.is_empty:
        return []
    if isinstance(geom, Polygon):
        return [geom]
    return [p for p in getattr(geom, "geoms", []) if isinstance(p, Polygon) and not p.is_empty]


def _dashed(img: np.ndarray, q: np.ndarray, colour: P.BGR, t: int, closed: bool,
            on: float, off: float) -> None:
    """A dashed polyline in pixel space (OpenCV has none). Dashes are laid along the whole
    polyline's length, so the pattern runs on across corners and short edges still show."""
    pts = np.asarray(list(q) + ([q[0]] if closed else []), dtype=np.float64)
    if len(pts) < 2:
        return
    seg_len = np.hypot(*(pts[1:] - pts[:-1]).T)
    cum = np.concatenate([[0.0], np.cumsum(seg_len)])
    total = float(cum[-1])
    if total <= 0:
        return
    period = max(on + off, 1.0)
    n = int(math.ceil(total / period))
    if n > 20000:  # a line far longer than any picture: draw it solid rather than stall
        cv2.polylines(img, [_fix(pts)], False, colour, t, cv2.LINE_AA, _SHIFT)
        return

    def at(d: float) -> np.ndarray:
        i = min(int(np.searchsorted(cum, d, side="right")) - 1, len(seg_len) - 1)
        f = 0.0 if seg_len[i] == 0 else (d - cum[i]) / seg_len[i]
        return pts[i] + (pts[i + 1] - pts[i]) * f

    for k in range(n):
        d0, d1 = k * period, min(total, k * period + on)
        if d1 <= d0:
            continue
        inner = [at(d0)] + [pts[i] for i in range(1, len(pts) - 1) if d0 < cum[i] < d1]
        inner.append(at(d1))
        cv2.polylines(img, [_fix(inner)], False, colour, t, cv2.LINE_AA, _SHIFT)


def _blend_poly(img: np.ndarray, q: np.ndarray, colour: P.BGR, alpha: float) -> None:
    """Fill a pixel polygon with ``colour`` at opacity ``alpha``, touching only its bounding
    box (photos are up to 12 MP; blending whole images per polygon would be slow)."""
    h, w = img.shape[:2]
    x0, y0 = np.floor(q.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x0 >= x1 or y0 >= y1:
        return
    roi = img[y0:y1, x0:x1]
    mask = np.zeros(roi.shape[:2], np.uint8)
    cv2.fillPoly(mask, [_fix(q - [x0, y0])], 255, cv2.LINE_AA, _SHIFT)
    a = (mask.astype(np.float32) / 255.0 * alpha)[..., None]
    roi[:] = np.round(roi * (1 - a) + np.array(colour, np.float32) * a).astype(np.uint8)


def _halo_text(img: np.ndarray, s: str, xy: tuple[float, float], colour: P.BGR,
               scale: float, t: int, centre: bool, font: int = _FONT) -> None:
    """Text with a contrasting halo: readable on a bright mat or a dark photo alike.

    The halo is the text's own mask dilated (OpenCV 5 draws text with a font engine that does
    not grow strokes with ``thickness``, so a fat under-stroke cannot make one)."""
    (tw, th), base = cv2.getTextSize(s, font, scale, t)
    x, y = xy
    if centre:
        x, y = x - tw / 2, y + th / 2
    r = max(2, int(round(1.4 * t + scale)))
    pad = r + 2
    ox, oy = int(round(x)) - pad, int(round(y)) - th - pad
    mask = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(mask, s, (pad, pad + th), font, scale, 255, t, cv2.LINE_AA)
    halo = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    h, w = img.shape[:2]
    x0, y0 = max(ox, 0), max(oy, 0)
    x1, y1 = min(ox + mask.shape[1], w), min(oy + mask.shape[0], h)
    if x0 >= x1 or y0 >= y1:
        return
    roi = img[y0:y1, x0:x1].astype(np.float32)
    cut = (slice(y0 - oy, y1 - oy), slice(x0 - ox, x1 - ox))
    light = sum(colour) / 3 > 150
    halo_col = P.BLACK if light else P.WHITE
    for m, col, opacity in ((halo[cut], halo_col, 0.85), (mask[cut], colour, 1.0)):
        a = (m.astype(np.float32) / 255.0 * opacity)[..., None]
        roi = roi * (1 - a) + np.array(col, np.float32) * a
    img[y0:y1, x0:x1] = np.round(roi).astype(np.uint8)


# --------------------------------------------------------------------------- layout


@dataclass
class _PlanLayout:
    H: np.ndarray
    u: float
    margin: int
    width: int
    height: int
    legend_y: int


def _check_scale(px_per_mm: float) -> float:
    if not (isinstance(px_per_mm, int | float) and math.isfinite(px_per_mm)
            and 0.05 <= px_per_mm <= 5):
        raise ValueError(f"px_per_mm must be a number between 0.05 and 5, not {px_per_mm!r}")
    return float(px_per_mm)


def _plan_u(px_per_mm: float) -> float:
    # 0.5 px/mm gives a ~900 px wide table, the size the line widths and fonts are tuned for.
    return max(0.8, px_per_mm / 0.5)


def _plan_layout(sc: g.Scene, ruling: dict | None, s: float) -> _PlanLayout:
    u = _plan_u(s)
    margin = int(round(16 * u))
    tw, td = sc.table.width_mm * s, sc.table.depth_mm * s
    width = int(math.ceil(tw + 2 * margin))
    lines = len(_fit_title(_title_lines(sc, ruling), width - 2 * margin, u))
    title_h = int(round(lines * _line_h(u, title=True) + 8 * u))
    legend_rows = _legend_rows(_legend_items_for(sc, ruling), width - 2 * margin, u)
    legend_h = int(round(len(legend_rows) * _line_h(u) + 6 * u))
    top = margin + title_h
    height = int(math.ceil(top + td + 12 * u + legend_h + margin))
    H = np.array([[s, 0, margin], [0, -s, top + td], [0, 0, 1]], dtype=np.float64)
    return _PlanLayout(H, u, margin, width, height, int(math.ceil(top + td + 14 * u)))


def _photo_canvas(image: np.ndarray, table_to_image: np.ndarray, sc: g.Scene) -> _Canvas:
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise ValueError("image must be a non-empty numpy array (H x W or H x W x 3)")
    img = image.copy()
    if img.dtype != np.uint8:
        raise ValueError(f"image must be 8-bit (uint8), not {img.dtype}")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    elif img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    elif img.shape[2] != 3:
        raise ValueError(f"image must have 1, 3 or 4 channels, not {img.shape[2]}")
    H = np.asarray(table_to_image, dtype=np.float64)
    if H.shape != (3, 3) or not np.all(np.isfinite(H)) or abs(np.linalg.det(H)) < 1e-12:
        raise ValueError("table_to_image must be an invertible 3x3 homography")
    h, w = img.shape[:2]
    # Lines and text are sized for a ~720 px short side and grow with the photo.
    u = max(1.0, min(h, w) / 720)
    return _Canvas(np.ascontiguousarray(img), H, u, sc.table.polygon, halo=True)


def _line_h(u: float, title: bool = False) -> float:
    return (26 if title else 22) * u


# --------------------------------------------------------------------------- the drawing


@dataclass
class _Legend:
    """Which marks were drawn, so the legend lists exactly those."""

    sides: dict[str, P.BGR] = field(default_factory=dict)
    marks: list[str] = field(default_factory=list)

    def add(self, mark: str) -> None:
        if mark not in self.marks:
            self.marks.append(mark)


_MARKS = ("arcs", "closest", "path", "pivot", "final", "contact", "failed", "target_final",
          "destroyed")
_MARK_TEXT = {
    "arcs": "target arcs (45 deg corner rays)",
    "closest": "closest distance",
    "path": "charge path",
    "pivot": "wheel / align pivot",
    "final": "final position",
    "contact": "models in contact",
    "failed": "failed, halted or escaped charge ends",
    "target_final": "target moved to",
    "destroyed": "destroyed",
}


def _legend_items_for(sc: g.Scene, ruling: dict | None) -> _Legend:
    """The legend a ruling will produce (used for the plan's layout before drawing)."""
    leg = _Legend(sides=_sides(sc))
    if ruling:
        for ch in ruling.get("charges") or []:
            leg.add("arcs")
            leg.add("closest")
            if ch.get("path"):
                leg.add("path")
                if any(s.get("kind") in ("wheel", "align") for s in ch["path"]):
                    leg.add("pivot")
            stopped = ch.get("outcome") in ("failed", "halted", "target_escaped")
            if ch.get("final") and not stopped:
                leg.add("final")
            if ch.get("contact"):
                leg.add("contact")
            if ch.get("final") and stopped:
                leg.add("failed")
            if ch.get("target_final"):
                leg.add("target_final")
        if any(u.get("state") == "destroyed" for u in ruling.get("units") or []):
            leg.add("destroyed")
    if any(u.state == "destroyed" for u in sc.units):
        leg.add("destroyed")
    leg.marks.sort(key=_MARKS.index)
    return leg


def _sides(sc: g.Scene) -> dict[str, P.BGR]:
    return P.side_colours(u.side for u in sc.units)


def _draw_table(cv: _Canvas, sc: g.Scene, px_per_mm: float) -> None:
    """The plan's table: mat, 6-inch grid (12-inch lines darker), terrain, edge."""
    W, D = sc.table.width_mm, sc.table.depth_mm
    corners = [(0, 0), (W, 0), (W, D), (0, D)]
    cv2.fillPoly(cv.img, [_fix(cv.px(corners))], P.MAT, cv2.LINE_AA, _SHIFT)
    step = 6 * g.MM_PER_INCH
    for i in range(1, int(W // step) + 1):
        x = i * step
        if x < W - 1:
            col = (200, 208, 202) if i % 2 else (180, 190, 183)
            cv.polyline([(x, 0), (x, D)], col, 1)
            if i % 2 == 0:
                cv.text((x, 0), f'{i * 6}"', P.DARK_GREY, 0.35, offset_px=(0, 8))
    for j in range(1, int(D // step) + 1):
        y = j * step
        if y < D - 1:
            col = (200, 208, 202) if j % 2 else (180, 190, 183)
            cv.polyline([(0, y), (W, y)], col, 1)
            if j % 2 == 0:
                cv.text((0, y), f'{j * 6}"', P.DARK_GREY, 0.35, offset_px=(-9, 0))
    for t in sc.terrain:
        fillc = P.TERRAIN_IMPASSABLE if t.impassable else P.TERRAIN_PASSABLE
        cv.polygon(t.shape, P.DARK_GREY, 1, dashed=not t.impassable, fill=fillc, alpha=0.6)
        tags = [w for w, on in (("impassable", t.impassable), ("opaque", t.opaque)) if on]
        c = t.shape.representative_point()
        cv.text((c.x, c.y), t.id, P.BLACK, 0.4)
        if tags:
            cv.text((c.x, c.y), ", ".join(tags), P.BLACK, 0.32, offset_px=(0, 13))
    cv.polyline(corners, P.BLACK, 2, closed=True)


def _draw_table_outline(cv: _Canvas, sc: g.Scene) -> None:
    W, D = sc.table.width_mm, sc.table.depth_mm
    cv.polyline([(0, 0), (W, 0), (W, D), (0, D)], P.WHITE, 1.5, closed=True, dashed=True)


def _draw_everything(cv: _Canvas, sc: g.Scene, ruling: dict | None, unit_alpha: float,
                     show_sigma: bool = False) -> _Legend:
    """Bottom to top: arcs, units, distance, path, final positions, contact, labels."""
    leg = _Legend(sides=_sides(sc))
    charges = list((ruling or {}).get("charges") or [])
    after = {u.get("id"): u for u in (ruling or {}).get("units") or [] if isinstance(u, dict)}
    units = {u.id: u for u in sc.units}
    for ch in charges:
        if ch.get("target") in units and ch.get("charger") in units:
            _draw_arcs(cv, units[ch["target"]], ch.get("facing"))
            leg.add("arcs")
    for u in sc.units:
        destroyed = u.state == "destroyed" or after.get(u.id, {}).get("state") == "destroyed"
        _draw_unit(cv, u, u.formation, u.pose, leg.sides[u.side], unit_alpha, destroyed)
        if destroyed:
            leg.add("destroyed")
    for ch in charges:
        if ch.get("charger") in units and ch.get("target") in units:
            _draw_charge(cv, ch, units, after, leg)
    cv.board.obstacles = [Polygon(cv.px(u.body.polygon.exterior.coords)) for u in sc.units]
    for u in sc.units:
        destroyed = u.state == "destroyed" or after.get(u.id, {}).get("state") == "destroyed"
        colour = P.DARK_GREY if destroyed else P.BLACK
        label = u.id
        if show_sigma and (u.sigma_mm or u.sigma_deg):
            label += f" +-{u.sigma_mm:.1f}mm {u.sigma_deg:.1f}deg"
        _label_behind(cv, u.formation, u.pose, label, colour, 0.45)
    leg.marks.sort(key=_MARKS.index)
    return leg


def _draw_unit(cv: _Canvas, u: g.Unit, form: g.Formation, pose: g.Pose, colour: P.BGR,
               alpha: float, destroyed: bool = False, dashed: bool = False,
               k: float = 2.0, arrow: bool = True) -> None:
    """A unit: tinted fill, thin model bases (the short rear rank shows), the boundary in its
    side colour and an arrow out of the front facing."""
    if destroyed:
        colour = P.DESTROYED
    body = g.boundary(form, pose)
    if alpha > 0:
        cv.polygon(body, colour, 0, fill=colour, alpha=alpha)
    base_col = P.tint(colour, 0.45) if not destroyed else P.tint(P.DESTROYED, 0.3)
    for _, _, poly in g.model_bases(form, pose):
        cv.polygon(poly, base_col, 1, halo=False)
    if destroyed:
        c = list(body.exterior.coords)
        cv.polyline([c[0], c[2]], P.DARK_GREY, 1.5)
        cv.polyline([c[1], c[3]], P.DARK_GREY, 1.5)
    cv.polygon(body, colour, k, dashed=dashed)
    if arrow:
        front = g.facing_segments(form, pose)["front"]
        mid = ((front[0][0] + front[1][0]) / 2, (front[0][1] + front[1][1]) / 2)
        reach = max(18.0, 0.25 * form.depth)
        fx, fy = pose.forward
        cv.arrow(mid, (mid[0] + reach * fx, mid[1] + reach * fy), colour, 2)


def _draw_arcs(cv: _Canvas, target: g.Unit, charged: str | None) -> None:
    """The target's arcs (RULES.md 1): the charged arc tinted, the four corner rays dashed,
    each arc named."""
    form, pose = target.formation, target.pose
    reach = 2 * math.hypot(cv.clip.bounds[2], cv.clip.bounds[3]) + 1000
    arcs = g.arc_polygons(form, pose, reach)
    if charged in arcs:
        cv.polygon(arcs[charged].intersection(cv.clip), P.CHARGED_ARC, 0,  # type: ignore[index]
                   fill=P.CHARGED_ARC, alpha=0.22)
    for name in ("front", "rear"):
        c = list(arcs[name].exterior.coords)  # type: ignore[index]
        for a, b in ((c[0], c[3]), (c[1], c[2])):
            ray = LineString([a, b]).intersection(cv.clip)
            if not ray.is_empty and ray.length > 0:
                cv.polyline(list(ray.coords), P.ARCS, 1, dashed=True)
    # Far enough out that a charger standing in the arc does not hide the name.
    half = max(form.width, form.depth) / 2 + 150
    for name, text in (("front", "front"), ("rear", "rear"), ("left", "flank"),
                       ("right", "flank")):
        nx, ny = g.facing_normal(pose, name)  # type: ignore[arg-type]
        p = (pose.x + nx * half, pose.y + ny * half)
        if cv.clip.contains(Point_(p)):
            cv.text(p, text, P.BLACK if name != charged else (120, 70, 0), 0.38)


def _draw_charge(cv: _Canvas, ch: dict, units: dict[str, g.Unit], after: dict,
                 leg: _Legend) -> None:
    charger, target = units[ch["charger"]], units[ch["target"]]
    outcome = ch.get("outcome")
    start = g.Pose.from_json(ch["start"]) if ch.get("start") else charger.pose
    ccol, tcol = leg.sides[charger.side], leg.sides[target.side]
    cform = charger.formation

    # Closest distance (RULES.md 3): between the boundaries before anyone moves.
    pts = ch.get("closest_points")
    if not pts:
        c = g.closest(g.boundary(cform, start), target.body.polygon)
        pts = [c.a, c.b]
    (ax, ay), (bx, by) = pts
    dist_in = _inches(ch, "distance")
    if dist_in is None:
        dist_in = g.mm_to_in(math.dist((ax, ay), (bx, by)))
    cv.polyline([(ax, ay), (bx, by)], P.DISTANCE, 2.5)
    cv.dot((ax, ay), P.DISTANCE, 3)
    cv.dot((bx, by), P.DISTANCE, 3)
    cv.text_free(((ax + bx) / 2, (ay + by) / 2), f'{dist_in:.2f}"', P.BLACK, 0.5,
                 _beside(cv, (ax, ay), (bx, by), 30))
    leg.add("closest")

    # The path (RULES.md 4, 6): replayed with geometry, each unit from its own start.
    poses: dict[str, g.Pose] = {charger.id: start}
    forms: dict[str, g.Formation] = {charger.id: cform}
    trace: list[Point] = [_front_mid(cform, start)]
    steps = ch.get("path") or []
    pivots: list[tuple[str, Point]] = []  # drawn last, on top of the final position
    for i, sj in enumerate(steps):
        uid = sj.get("unit", charger.id)
        if uid not in units:
            continue
        unit = units[uid]
        form = forms.setdefault(uid, unit.formation)
        pose = poses.setdefault(uid, unit.pose)
        step = g.step_from_json(sj)
        new = g.replay(form, pose, [step])[0]
        if isinstance(step, g.Reform) and (step.files or step.ranks):
            form = _reformed(unit, step.files, step.ranks)
            forms[uid] = form
        col = P.PATH
        if isinstance(step, g.Wheel):
            piv = wheel_pivot(form, pose, step.pivot)
            far = g.corners(form, pose)["front_right" if step.pivot == "left" else "front_left"]
            cv.polyline(_arc(far, piv, step.angle_deg), col, 1.5, dashed=True)
            cv.polyline([piv, _arc(far, piv, 0)[0]], col, 1)
            pivots.append(("wheel", piv))
            leg.add("pivot")
        elif isinstance(step, g.Align | g.Turn):
            piv = step.pivot_point if isinstance(step, g.Align) else pose.centre
            cs = g.corners(form, pose)
            far = max((cs["front_left"], cs["front_right"]), key=lambda q: math.dist(q, piv))
            cv.polyline(_arc(far, piv, step.angle_deg), col, 1.5, dashed=True)
            if isinstance(step, g.Align):
                pivots.append(("align", piv))
                leg.add("pivot")
        if uid == charger.id:
            trace += _trace(form, pose, step)
            if i < len(steps) - 1 and not isinstance(step, g.Reform):
                cv.polygon(g.boundary(form, new), col, 1, dashed=True)
        poses[uid] = new
    if len(trace) > 1:
        cv.polyline(trace, P.PATH, 2.5)
        if math.dist(trace[-2], trace[-1]) > 1e-6:
            cv.arrow(trace[-2], trace[-1], P.PATH, 2.5)
        leg.add("path")
        paid = _inches(ch, "paid_path")
        if paid is not None:
            # tow 1.3: the roll is compared with the path paid for, so the path says it.
            seg = [math.dist(a, b) for a, b in zip(trace, trace[1:], strict=False)]
            half, k = sum(seg) / 2, 0
            while k < len(seg) - 1 and sum(seg[:k + 1]) < half:
                k += 1
            mid = ((trace[k][0] + trace[k + 1][0]) / 2, (trace[k][1] + trace[k + 1][1]) / 2)
            cv.text_free(mid, f'paid {paid:.2f}"', P.PATH, 0.45,
                         _beside(cv, trace[k], trace[k + 1], 40))

    # Where the units end.
    final = g.Pose.from_json(ch["final"]) if ch.get("final") else None
    tfinal = g.Pose.from_json(ch["target_final"]) if ch.get("target_final") else None
    tform = forms.get(target.id, _after_formation(target, after))
    disordered = ch.get("disordered") is True
    if tfinal is not None:
        _draw_unit(cv, target, tform, tfinal, tcol, 0.15, dashed=True, k=2.5)
        # tow 1.5: the target aligned to a charger that could not: the charge is disordered.
        moved = f"{target.id} aligned to the charger: disordered" if disordered else \
            f"{target.id} moved here"
        _label_behind(cv, tform, tfinal, moved, P.BLACK, 0.4)
        leg.add("target_final")
    against = ch.get("disordered_against") or []
    for sid, sj in (ch.get("secondary_final") or {}).items():
        if sid not in units or not isinstance(sj, dict):
            continue
        # tow 1.5, whfb8 2.5: another enemy touched at an angle aligned to the charger.
        su = units[sid]
        spose = g.Pose.from_json(sj)
        _draw_unit(cv, su, su.formation, spose, leg.sides[su.side], 0.15, dashed=True, k=2.5)
        said = f"{sid} aligned to the charger" + (": disordered" if sid in against else "")
        _label_behind(cv, su.formation, spose, said, P.BLACK, 0.4)
        leg.add("target_final")
    acc = ch.get("accidental_contact") if isinstance(ch.get("accidental_contact"), dict) \
        else None
    if final is not None:
        if outcome in ("failed", "halted", "target_escaped"):
            _draw_unit(cv, charger, cform, final, ccol, 0.12, dashed=True, k=2.5)
            what = {"failed": "failed charge ends here",
                    "halted": f"halted 1\" from fleeing {(acc or {}).get('unit', '?')}",
                    "target_escaped": "target escaped: full range moved"}[outcome]
            _label_behind(cv, cform, final, what, P.BLACK, 0.42)
            leg.add("failed")
        else:
            _draw_unit(cv, charger, cform, final, ccol, 0.3, k=3.5, arrow=False)
            leg.add("final")
            if disordered and tfinal is None:
                # tow 1.5: neither could align, the gap is left.
                _label_behind(cv, cform, final, "gap left: disordered", P.BLACK, 0.42)
            if outcome == "ran_down" and acc is not None:
                _label_behind(cv, cform, final, f"ran down fleeing {acc.get('unit', '?')}",
                              P.BLACK, 0.42)
    contact = ch.get("contact")
    if contact and final is not None and outcome not in ("failed", "halted"):
        _draw_contact(cv, contact, cform, final, tform, tfinal or target.pose)
        leg.add("contact")
    for kind, piv in pivots:
        if kind == "wheel":
            cv.dot(piv, P.PATH, 4.5)
        else:
            _diamond(cv, piv, P.PATH)


def _label_behind(cv: _Canvas, form: g.Formation, pose: g.Pose, s: str, colour: P.BGR,
                  scale: float) -> None:
    """A unit's label just behind its rear facing, pushed out along that direction (in pixels)
    until the text box clears the boundary, so it never hides the models or the contact. On a
    busy table, where that place is taken by another unit or label, the first free place among
    a few more (in front, to either side, further out; :class:`vision.labels.LabelBoard`), with
    a thin leader line back to the unit."""
    hw, hd = form.width / 2, form.depth / 2
    c, *edges = cv.px([pose.centre, pose.to_world(0.0, -hd), pose.to_world(0.0, hd),
                       pose.to_world(hw, 0.0), pose.to_world(-hw, 0.0),
                       pose.to_world(hw, -hd), pose.to_world(-hw, -hd),
                       pose.to_world(hw, hd), pose.to_world(-hw, hd)])
    (tw, th), _ = cv2.getTextSize(s, _FONT, scale * cv.u, cv.thick(1))
    candidates, anchors = [], []
    for step in range(6):
        for edge in edges:  # rear, front, right, left, then the four corners
            d = edge - c
            n = float(np.hypot(*d))
            d = d / n if n > 1e-9 else np.array([0.0, 1.0])
            push = abs(d[0]) * tw / 2 + abs(d[1]) * th / 2 + (6 + step * 16) * cv.u
            candidates.append(tuple(edge + d * push))
            anchors.append(edge)
    k = cv.board.place(candidates, (tw, th), pad=2 * cv.u)
    x, y = candidates[k]
    if k >= 8:  # moved away from its unit: a leader line shows whose it is
        a = anchors[k]
        b = np.array([np.clip(a[0], x - tw / 2, x + tw / 2), np.clip(a[1], y - th / 2, y + th / 2)])
        cv2.line(cv.img, tuple(int(v) for v in a), tuple(int(v) for v in b), P.DARK_GREY,
                 1, cv2.LINE_AA)
    _halo_text(cv.img, s, (x, y), colour, scale * cv.u, cv.thick(1), True)


def _reformed(unit: g.Unit, files: int | None, ranks: int | None) -> g.Formation:
    """The formation of a unit that a reform gave new files/ranks (RULES.md 5)."""
    try:
        changes = {k: v for k, v in (("files", files), ("ranks", ranks)) if v}
        return unit.placed(unit.pose, **changes).formation
    except ValueError:
        return unit.formation


def _after_formation(unit: g.Unit, after: dict) -> g.Formation:
    a = after.get(unit.id) or {}
    if (a.get("files"), a.get("ranks")) not in ((None, None), (unit.files, unit.ranks)):
        return _reformed(unit, a.get("files"), a.get("ranks"))
    return unit.formation


def _draw_contact(cv: _Canvas, contact: dict, cform: g.Formation, cpose: g.Pose,
                  tform: g.Formation, tpose: g.Pose) -> None:
    """Models in base contact (RULES.md 4), yellow with a black outline. With the slots in the
    ruling those are drawn; otherwise every model whose base touches the contact segment."""
    seg = contact.get("segment")
    seg_line = LineString(seg) if seg and len(seg) == 2 else None
    for form, pose, key in ((cform, cpose, "charger_model_slots"),
                            (tform, tpose, "target_model_slots")):
        slots = contact.get(key)
        if slots is not None:
            polys = [g.base_polygon(form, pose, int(r), int(f)) for r, f in slots
                     if form.occupied(int(r), int(f))]
        elif seg_line is not None:
            polys = [p for _, _, p in g.model_bases(form, pose)
                     if g.touching(p, seg_line, 0.05)]
        else:
            polys = []
        for p in polys:
            cv.polygon(p.buffer(-0.8, join_style="mitre"), P.BLACK, 1.2, fill=P.CONTACT,
                       alpha=0.85)
    if seg_line is not None:
        cv.polyline(list(seg_line.coords), P.BLACK, 4)
        cv.polyline(list(seg_line.coords), P.CONTACT, 2)


def _front_mid(form: g.Formation, pose: g.Pose) -> Point:
    return pose.to_world(0.0, form.depth / 2)


def _trace(form: g.Formation, pose: g.Pose, step: g.Step) -> list[Point]:
    """Where the middle of the front facing goes during a step (arcs sampled every 2 deg)."""
    p0 = _front_mid(form, pose)
    if isinstance(step, g.Wheel):
        return _arc(p0, wheel_pivot(form, pose, step.pivot), step.angle_deg)[1:]
    if isinstance(step, g.Align):
        return _arc(p0, step.pivot_point, step.angle_deg)[1:]
    if isinstance(step, g.Turn):
        return _arc(p0, pose.centre, step.angle_deg)[1:]
    return [_front_mid(form, step.apply(form, pose))]


def _arc(p: Point, centre: Point, angle_deg: float) -> list[Point]:
    n = max(2, int(math.ceil(abs(angle_deg) / 2)) + 1)
    return [g.rotate_point(p, centre, angle_deg * i / (n - 1)) for i in range(n)]


def _diamond(cv: _Canvas, p: Point, colour: P.BGR) -> None:
    x, y = cv.px([p])[0]
    r = 6 * cv.u
    q = np.array([[x, y - r], [x + r, y], [x, y + r], [x - r, y]])
    cv2.fillPoly(cv.img, [_fix(q)], P.WHITE, cv2.LINE_AA, _SHIFT)
    cv2.polylines(cv.img, [_fix(q)], True, colour, cv.thick(2), cv2.LINE_AA, _SHIFT)


def _side_offset(cv: _Canvas, a: Point, b: Point, px: float) -> tuple[float, float]:
    """A pixel offset perpendicular to a segment, for a label that must not sit on it."""
    pa, pb = cv.px([a, b])
    d = pb - pa
    n = np.array([-d[1], d[0]]) / max(1e-9, float(np.hypot(*d)))
    if n[0] < 0:  # always to the right on screen, so labels land predictably
        n = -n
    return (float(n[0] * px), float(n[1] * px))


# --------------------------------------------------------------------------- title, legend


def _fmt_in(v: float | None) -> str:
    return "?" if v is None else f'{v:.2f}"'


def _inches(ch: dict, name: str) -> float | None:
    """A ruling's length ``name`` (``distance``, ``paid_path``) in inches, from its ``_mm``
    when given: ``_in`` is already rounded to 3 places, and rounding 10.165 again to 2 gives
    10.16 where the explanation, rounding 258.194 mm, says 10.17 in."""
    v, mm = ch.get(f"{name}_in"), ch.get(f"{name}_mm")
    if not isinstance(v, int | float) or isinstance(v, bool):
        return None
    if isinstance(mm, int | float) and not isinstance(mm, bool) and math.isfinite(mm):
        return g.mm_to_in(mm)
    return v


def _title_lines(sc: g.Scene, ruling: dict | None) -> list[str]:
    """One line for the ruleset and one per charge: outcome, facing, distance, odds."""
    if not ruling:
        return [f"Table {sc.table.width_mm:.0f} x {sc.table.depth_mm:.0f} mm, "
                f"{len(sc.units)} units"]
    lines = [f"Ruling ({ruling.get('ruleset', '?')})"]
    for ch in ruling.get("charges") or []:
        who = f"{ch.get('charger', '?')} -> {ch.get('target', '?')}"
        outcome = ch.get("outcome")
        if ch.get("declarable") is False:
            head = "NOT DECLARABLE"
            reasons = ch.get("reasons") or []
            if reasons:
                head += f" ({reasons[0]})"
        else:
            head = (outcome or "odds only").upper().replace("_", " ")
        bits = [f"{who}: {head}"]
        if ch.get("facing"):
            bits.append(f"{ch['facing']} facing")
        if _inches(ch, "distance") is not None:
            bits.append(f"{_fmt_in(_inches(ch, 'distance'))} away")
        if ch.get("needed_in") is not None and ch.get("declarable") is not False:
            odds = ch.get("odds")
            bits.append(f"needs {ch['needed_in']:g}\"" +
                        (f" ({format_chance(odds, 0)})" if isinstance(odds, int | float) else ""))
        if _inches(ch, "paid_path") is not None:
            bits.append(f"paid path {_inches(ch, 'paid_path'):.2f}\"")
        if ch.get("range_in") is not None:
            bits.append(f"rolled {ch['range_in']:g}\"")
        if ch.get("disordered") is True:
            bits.append("DISORDERED")
        if ch.get("secondary_targets"):
            bits.append("also charges " + ", ".join(ch["secondary_targets"]))
        if ch.get("certain") is False:
            bits.append("TOO CLOSE TO CALL")
        lines.append(" | ".join(bits))
    return lines


def _title_scale(i: int, u: float) -> float:
    return (0.62 if i == 0 else 0.55) * u


def _fit_title(lines: list[str], max_w: float, u: float) -> list[str]:
    """The title's lines broken to fit ``max_w`` pixels: a charge's line at its " | " joins
    first, then between words, the rest indented (a 640 px photo cut "...NOT DECLARABLE (blue
    scouts is not inside red gua" off at its edge). The first line (the ruleset) keeps its
    scale, the others theirs."""
    thick = max(1, round(u))
    out: list[str] = []
    for i, line in enumerate(lines):
        scale = _title_scale(min(i, 1), u)

        def fits(text: str, scale: float = scale) -> bool:
            return cv2.getTextSize(text, _TITLE_FONT, scale, thick)[0][0] <= max_w

        if fits(line):
            out.append(line)
            continue
        cur = ""
        for piece in line.split(" | "):
            for word in piece.split(" "):
                trial = f"{cur} {word}" if cur else word
                if cur and not fits(trial):
                    out.append(cur)
                    trial = "  " + word
                cur = trial
            cur += " |"
        out.append(cur[:-2])
    return out


def _draw_title(cv: _Canvas, lines: list[str], xy: tuple[float, float], panel: bool) -> None:
    x, y = xy
    lh = _line_h(cv.u, title=True)
    for i, s in enumerate(lines):
        scale = _title_scale(i, cv.u)
        _halo_text(cv.img, s, (x, y + (i + 0.8) * lh), P.BLACK, scale, cv.thick(1), False,
                   _TITLE_FONT)


def _legend_entries(leg: _Legend) -> list[tuple[str, str, P.BGR]]:
    out: list[tuple[str, str, P.BGR]] = [("side", f"side {s}", c) for s, c in leg.sides.items()]
    colours = {"arcs": P.ARCS, "closest": P.DISTANCE, "path": P.PATH, "pivot": P.PATH,
               "final": P.BLACK, "contact": P.CONTACT, "failed": P.BLACK,
               "target_final": P.BLACK, "destroyed": P.DESTROYED}
    out += [(m, _MARK_TEXT[m], colours[m]) for m in leg.marks]
    return out


def _entry_w(text: str, u: float) -> float:
    (tw, _), _ = cv2.getTextSize(text, _FONT, 0.45 * u, max(1, round(u)))
    return 30 * u + tw + 18 * u


def _legend_rows(leg: _Legend, width: float, u: float) -> list[list[tuple[str, str, P.BGR]]]:
    rows: list[list[tuple[str, str, P.BGR]]] = [[]]
    used = 0.0
    for e in _legend_entries(leg):
        w = _entry_w(e[1], u)
        if rows[-1] and used + w > width:
            rows.append([])
            used = 0.0
        rows[-1].append(e)
        used += w
    return rows


def _draw_legend(cv: _Canvas, leg: _Legend, xy: tuple[float, float], width: float,
                 panel: bool) -> tuple[float, float]:
    """Swatch + words for every mark drawn; returns the legend's (width, height) in px."""
    u = cv.u
    rows = _legend_rows(leg, width, u)
    lh = _line_h(u)
    x0, y0 = xy
    if panel:
        w = max(sum(_entry_w(e[1], u) for e in r) for r in rows) + 8 * u
        _panel(cv.img, x0 - 6 * u, y0 - 4 * u, x0 + w, y0 + len(rows) * lh + 4 * u)
    for ri, row in enumerate(rows):
        x = x0
        yc = y0 + (ri + 0.5) * lh
        for kind, text, colour in row:
            _swatch(cv, kind, colour, x, yc)
            _halo_text(cv.img, text, (x + 30 * u, yc + 5 * u), P.BLACK, 0.45 * u,
                       cv.thick(1), False)
            x += _entry_w(text, u)
    return (width, len(rows) * lh)


def _swatch(cv: _Canvas, kind: str, colour: P.BGR, x: float, yc: float) -> None:
    u, img = cv.u, cv.img
    a, b = np.array([x, yc]), np.array([x + 24 * u, yc])
    box_q = np.array([[x, yc - 6 * u], [x + 24 * u, yc - 6 * u], [x + 24 * u, yc + 6 * u],
                      [x, yc + 6 * u]])

    def seg(c: P.BGR, k: float) -> None:
        cv2.line(img, tuple(_fix([a])[0]), tuple(_fix([b])[0]), c, cv.thick(k), cv2.LINE_AA,
                 _SHIFT)

    if kind in ("side", "final", "destroyed", "contact"):
        fillc = {"final": (235, 235, 235)}.get(kind, colour)
        _blend_poly(img, box_q, fillc, 0.4 if kind in ("side", "destroyed") else 0.85)
        edge = P.BLACK if kind == "contact" else colour
        cv2.polylines(img, [_fix(box_q)], True, edge,
                      cv.thick(3.5 if kind == "final" else 2), cv2.LINE_AA, _SHIFT)
    elif kind in ("failed", "target_final"):
        _dashed(img, box_q, colour, cv.thick(2), True, 5 * u, 4 * u)
    elif kind == "arcs":
        _dashed(img, np.array([a, b]), colour, cv.thick(1), False, 6 * u, 4 * u)
    elif kind == "pivot":
        cv2.circle(img, tuple(_fix([(a + b) / 2])[0]), int(5 * u) * _ONE, colour, -1,
                   cv2.LINE_AA, _SHIFT)
    else:
        seg(colour, 2.5)


def _panel(img: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> None:
    q = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    _blend_poly(img, q, P.WHITE, 0.78)


def _draw_photo_panels(cv: _Canvas, title: list[str], leg: _Legend) -> None:
    """Title top-left and legend bottom-left on white panels, so they read on any photo."""
    u = cv.u
    h, w = cv.img.shape[:2]
    lh = _line_h(u, title=True)
    m = 10 * u
    title = _fit_title(title, w - 2 * m - 16 * u, u)
    tw = max(cv2.getTextSize(s, _TITLE_FONT, 0.62 * u, cv.thick(1))[0][0] for s in title)
    _panel(cv.img, m, m, m + tw + 16 * u, m + len(title) * lh + 10 * u)
    _draw_title(cv, title, (m + 8 * u, m + 2 * u), panel=True)
    rows = _legend_rows(leg, w - 2 * m - 20 * u, u)
    y0 = h - m - len(rows) * _line_h(u) - 4 * u
    _draw_legend(cv, leg, (m + 8 * u, y0), w - 2 * m - 20 * u, panel=True)
