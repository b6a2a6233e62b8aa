"""Printable marker sheets at exact size (DESIGN.md ``umpire markers``; issue 4, Pictures).

Detection turns marker pixels into millimetres through the printed size the markers JSON
declares (``size_mm``, ``marker_size_mm``), so a sheet that prints a 40 mm marker at 39 mm
makes every tray position and distance wrong by 2.5 %. Hence:

- every marker is placed in the PDF with an exact ``cm`` scale of ``size_mm * 72 / 25.4``
  points (no raster page in between, no resampling), its modules kept sharp
  (``/Interpolate false``);
- every page carries a 100 mm scale bar so the printer's scaling ("fit to page") is caught
  with a ruler before any marker is glued down;
- tray markers carry an arrow: a tray marker's top edge points to the unit's front
  (DESIGN.md, markers.json), and the arrow says which edge that is once the marker is cut out.

The PDF is written here (about a hundred lines, no new dependency): A4 pages, the base-14
Helvetica font (nothing to embed), one grey image per marker. Pages are laid out top to
bottom, several markers per page, table markers first.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import cv2
import numpy as np

from .errors import MarkersError
from .markers import MarkerSet, load_markers

PT_PER_MM = 72 / 25.4
A4_MM = (210.0, 297.0)
MARGIN_MM = 12.0
HEADER_MM = 12.0  # title line at the top of every page
FOOTER_MM = 24.0  # the 100 mm scale bar and the printing note
GAP_MM = 6.0  # between cells
ARROW_MM = 9.0  # room for the front arrow above a tray marker
LABEL_MM = 9.0  # two label lines under a marker
FONT_PT = 7.0
SCALE_BAR_MM = 100.0
#: Pixels per marker module in the embedded image: the image is drawn with nearest-neighbour
#: scaling anyway (/Interpolate false); 16 keeps viewers that ignore the flag sharp too.
PX_PER_MODULE = 16


@dataclass(frozen=True, slots=True)
class SheetMarker:
    """One marker to print: its ArUco id, printed side (mm) and the words under it."""

    aruco_id: int
    size_mm: float
    kind: Literal["table", "tray"]
    lines: tuple[str, str]
    field: str  # where it comes from in the markers JSON, for error messages

    @property
    def quiet_mm(self) -> float:
        """White margin kept round the black square inside the cut line: at least one module
        (ArUco needs a light border to find the square), never under 3 mm."""
        return max(3.0, self.size_mm / 6)

    @property
    def cut_mm(self) -> float:
        return self.size_mm + 2 * self.quiet_mm

    def cell_mm(self) -> tuple[float, float]:
        text_w = max(_text_width_mm(s) for s in self.lines)
        top = ARROW_MM if self.kind == "tray" else 0.0
        return (max(self.cut_mm, text_w), top + self.cut_mm + LABEL_MM)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a marker lands: page index and the lower-left corner of its black square in mm
    from the page's lower-left corner (the PDF frame)."""

    marker: SheetMarker
    page: int
    x_mm: float
    y_mm: float


def sheet_markers(ms: MarkerSet) -> list[SheetMarker]:
    """Table markers, then tray markers, each with its label."""
    out = []
    for i, m in enumerate(ms.table.markers):
        out.append(SheetMarker(
            m.id, m.size_mm, "table",
            (f"table marker {m.id}  ({ms.dictionary})",
             f"{m.size_mm:g} mm, centre at x {m.x:g}, y {m.y:g} mm, top edge to +y"),
            f"table.markers[{i}]"))
    for i, u in enumerate(ms.units):
        out.append(SheetMarker(
            u.marker, u.marker_size_mm, "tray",
            (f"tray marker {u.marker}: {u.id} ({u.side})",
             f"{u.marker_size_mm:g} mm, top edge = unit front"),
            f"units[{i}] '{u.id}'"))
    return out


def layout(markers: Sequence[SheetMarker], page_mm: tuple[float, float] = A4_MM
           ) -> list[Placement]:
    """Rows of cells, left to right and top to bottom, new page when one is full."""
    pw, ph = page_mm
    usable_w = pw - 2 * MARGIN_MM
    top, bottom = ph - MARGIN_MM - HEADER_MM, MARGIN_MM + FOOTER_MM
    out: list[Placement] = []
    page, x, y, row_h = 0, MARGIN_MM, top, 0.0
    for m in markers:
        w, h = m.cell_mm()
        if w > usable_w or h > top - bottom:
            size_field = "size_mm" if m.kind == "table" else "marker_size_mm"
            room = min(usable_w, top - bottom - LABEL_MM - ARROW_MM) - 2 * m.quiet_mm
            raise MarkersError(f"markers: {m.field}: {size_field}: a {m.size_mm:g} mm marker "
                               f"does not fit on an A4 page (at most about {room:.0f} mm)")
        if x + w > pw - MARGIN_MM + 1e-9:  # next row
            x, y, row_h = MARGIN_MM, y - row_h - GAP_MM, 0.0
        if y - h < bottom - 1e-9:  # next page
            page, x, y, row_h = page + 1, MARGIN_MM, top, 0.0
        arrow = ARROW_MM if m.kind == "tray" else 0.0
        sq_x = x + (w - m.cut_mm) / 2 + m.quiet_mm
        sq_y = y - arrow - m.quiet_mm - m.size_mm
        out.append(Placement(m, page, sq_x, sq_y))
        x += w + GAP_MM
        row_h = max(row_h, h)
    return out


def marker_image(ms: MarkerSet, aruco_id: int) -> np.ndarray:
    """The marker's black square (with its one-module black border), ``PX_PER_MODULE`` pixels
    per module, from ``cv2.aruco.generateImageMarker``."""
    modules = ms.aruco_dictionary.markerSize + 2
    return cv2.aruco.generateImageMarker(ms.aruco_dictionary, aruco_id,
                                         modules * PX_PER_MODULE, borderBits=1)


def sheet_pdf(markers: dict[str, Any] | MarkerSet) -> bytes:
    """The printable sheet of every marker in a markers JSON (dict or validated set)."""
    ms = load_markers(markers)
    return _render(ms, layout(sheet_markers(ms)))


def page_count(markers: dict[str, Any] | MarkerSet) -> int:
    ms = load_markers(markers)
    places = layout(sheet_markers(ms))
    return 1 + max((p.page for p in places), default=0)


# --------------------------------------------------------------------------- drawing


def _text_width_mm(s: str, size_pt: float = FONT_PT) -> float:
    """Helvetica is about 0.52 em per character on average; labels are left-aligned, so this
    only sizes cells and never places a glyph."""
    return len(s) * 0.52 * size_pt / PT_PER_MM


def _n(v: float) -> str:
    s = f"{v:.4f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _pdf_text(s: str) -> str:
    raw = s.encode("cp1252", errors="replace").decode("latin-1")
    return "(" + raw.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


class _Page:
    """Content-stream operators, in millimetres (converted to points on the way out)."""

    def __init__(self) -> None:
        self.ops: list[str] = []

    def text(self, x: float, y: float, s: str, size: float = FONT_PT, bold: bool = False) -> None:
        font = "/F2" if bold else "/F1"
        self.ops.append(f"BT {font} {_n(size)} Tf {_n(x * PT_PER_MM)} {_n(y * PT_PER_MM)} Td "
                        f"{_pdf_text(s)} Tj ET")

    def line(self, pts: Sequence[tuple[float, float]], width_mm: float = 0.3, grey: float = 0.0,
             dash_mm: float | None = None, fill: bool = False) -> None:
        dash = f"[{_n(dash_mm * PT_PER_MM)}] 0 d" if dash_mm else "[] 0 d"
        path = " ".join(f"{_n(x * PT_PER_MM)} {_n(y * PT_PER_MM)} {'m' if i == 0 else 'l'}"
                        for i, (x, y) in enumerate(pts))
        self.ops.append(f"q {_n(width_mm * PT_PER_MM)} w {_n(grey)} G {_n(grey)} g {dash} "
                        f"{path} {'h f' if fill else 'S'} Q")

    def rect(self, x: float, y: float, w: float, h: float, grey: float, fill: bool) -> None:
        r = f"{_n(x * PT_PER_MM)} {_n(y * PT_PER_MM)} {_n(w * PT_PER_MM)} {_n(h * PT_PER_MM)} re"
        self.ops.append(f"q 0.25 w {_n(grey)} G {_n(grey)} g {r} {'f' if fill else 'S'} Q")

    def image(self, name: str, x: float, y: float, size_mm: float) -> None:
        s = _n(size_mm * PT_PER_MM)
        self.ops.append(f"q {s} 0 0 {s} {_n(x * PT_PER_MM)} {_n(y * PT_PER_MM)} cm /{name} Do Q")


def _draw_scale_bar(pg: _Page) -> None:
    """100 mm in ten alternating 10 mm blocks, outlined, with the instruction to measure."""
    x0, y0, h = MARGIN_MM, MARGIN_MM + 8.0, 4.0
    for i in range(10):
        pg.rect(x0 + 10 * i, y0, 10.0, h, 0.0 if i % 2 == 0 else 1.0, fill=True)
    pg.rect(x0, y0, SCALE_BAR_MM, h, 0.0, fill=False)
    for i in (0, 5, 10):
        pg.line([(x0 + 10 * i, y0 + h), (x0 + 10 * i, y0 + h + 1.5)], 0.25)
        pg.text(x0 + 10 * i - (0.8 if i < 10 else 1.6), y0 + h + 2.2, f"{10 * i}")
    pg.text(x0 + SCALE_BAR_MM + 4, y0 + 0.8, "mm: this bar must measure exactly 100 mm.",
            FONT_PT + 1, bold=True)
    pg.text(x0, MARGIN_MM + 2.0, "Print at 100 % (actual size, no 'fit to page'). If the bar is "
            "not 100 mm, the markers are the wrong size and every distance will be off.")


def _draw_front_arrow(pg: _Page, cx: float, y_base: float) -> None:
    """An arrow pointing up from just above the cut line: the unit's front."""
    pg.line([(cx, y_base + 1.0), (cx, y_base + ARROW_MM - 3.2)], 0.6)
    pg.line([(cx - 2.2, y_base + ARROW_MM - 3.6), (cx + 2.2, y_base + ARROW_MM - 3.6),
             (cx, y_base + ARROW_MM - 0.6)], 0.1, fill=True)
    pg.text(cx + 3.2, y_base + 3.0, "FRONT", FONT_PT, bold=True)


def _render(ms: MarkerSet, places: list[Placement]) -> bytes:
    n_pages = 1 + max((p.page for p in places), default=0)
    pages = [_Page() for _ in range(n_pages)]
    images: list[tuple[str, np.ndarray]] = []
    pw, ph = A4_MM
    for i, pg in enumerate(pages):
        pg.text(MARGIN_MM, ph - MARGIN_MM - 4.0,
                f"umpire marker sheet - {ms.dictionary} - page {i + 1} of {n_pages}",
                FONT_PT + 3, bold=True)
        pg.text(MARGIN_MM, ph - MARGIN_MM - 8.5,
                "Cut along the dashed line, keeping the white border. Tray markers: "
                "the arrow (top edge) towards the unit's front.")
        _draw_scale_bar(pg)
    for k, p in enumerate(places):
        m, pg = p.marker, pages[p.page]
        name = f"Im{k}"
        images.append((name, marker_image(ms, m.aruco_id)))
        pg.image(name, p.x_mm, p.y_mm, m.size_mm)
        q = m.quiet_mm
        cx, cy0 = p.x_mm - q, p.y_mm - q
        pg.line([(cx, cy0), (cx + m.cut_mm, cy0), (cx + m.cut_mm, cy0 + m.cut_mm),
                 (cx, cy0 + m.cut_mm), (cx, cy0)], 0.2, grey=0.55, dash_mm=1.5)
        if m.kind == "tray":
            _draw_front_arrow(pg, p.x_mm + m.size_mm / 2, cy0 + m.cut_mm)
        pg.text(cx, cy0 - 3.5, m.lines[0], FONT_PT, bold=True)
        pg.text(cx, cy0 - 7.0, m.lines[1], FONT_PT)
    return _write_pdf(pages, images, places)


def _write_pdf(pages: list[_Page], images: list[tuple[str, np.ndarray]],
               places: list[Placement]) -> bytes:
    """A minimal PDF 1.4: catalog, page tree, two base-14 fonts, per page a content stream
    and its marker images (grey, Flate-compressed, nearest-neighbour)."""
    objs: list[bytes] = []

    def add(body: bytes) -> int:
        objs.append(body)
        return len(objs)

    def stream(head: str, data: bytes) -> bytes:
        return (f"<< {head} /Length {len(data)} >>\nstream\n".encode() + data
                + b"\nendstream")

    catalog = add(b"")  # filled in once the page tree exists
    tree = add(b"")
    f1 = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
             b"/Encoding /WinAnsiEncoding >>")
    f2 = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold "
             b"/Encoding /WinAnsiEncoding >>")
    img_ids: dict[str, int] = {}
    for name, img in images:
        h, w = img.shape[:2]
        data = zlib.compress(np.ascontiguousarray(img, np.uint8).tobytes(), 9)
        img_ids[name] = add(stream(
            f"/Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
            f"/BitsPerComponent 8 /Interpolate false /Filter /FlateDecode", data))
    media = f"[0 0 {_n(A4_MM[0] * PT_PER_MM)} {_n(A4_MM[1] * PT_PER_MM)}]"
    kids = []
    for i, pg in enumerate(pages):
        content = add(stream("", "\n".join(pg.ops).encode("latin-1")))
        xobj = " ".join(f"/{name} {img_ids[name]} 0 R"
                        for k, (name, _) in enumerate(images) if places[k].page == i)
        kids.append(add(
            f"<< /Type /Page /Parent {tree} 0 R /MediaBox {media} /Contents {content} 0 R "
            f"/Resources << /Font << /F1 {f1} 0 R /F2 {f2} 0 R >> "
            f"/XObject << {xobj} >> >> >>".encode()))
    objs[catalog - 1] = f"<< /Type /Catalog /Pages {tree} 0 R >>".encode()
    objs[tree - 1] = (f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] "
                      f"/Count {len(kids)} >>").encode()
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (f"trailer\n<< /Size {len(objs) + 1} /Root {catalog} 0 R >>\nstartxref\n{xref}\n"
            f"%%EOF\n").encode()
    return bytes(out)
