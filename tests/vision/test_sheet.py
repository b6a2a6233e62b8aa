"""Marker sheets at exact printed size (DESIGN.md ``umpire markers``; issue 4, Pictures).

The PDF is parsed back: page size, the ``cm`` scale every marker image is drawn with (its
printed width in points must be ``size_mm * 72 / 25.4``), the embedded image (it must decode
as the right ArUco id), the 100 mm scale bar on every page. Where poppler's ``pdftoppm`` is
installed, a page is rasterised and the printed markers are detected and measured in mm.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import sheet
from vision.errors import MarkersError
from vision.markers import load_markers

SAMPLE = Path(__file__).resolve().parents[2] / "server" / "samples" / "markers.json"
PT = 72 / 25.4


def fixture() -> dict:
    """Four 60 mm table markers and trays of 40, 36, 25 and 20 mm markers (the sample set
    when it exists, else the same shape written here)."""
    if SAMPLE.exists():
        return json.loads(SAMPLE.read_text())
    table = [{"id": i, "x": x, "y": y, "size_mm": 60}
             for i, (x, y) in enumerate([(40, 40), (1788.8, 40), (1788.8, 1179.2), (40, 1179.2)])]
    units = [{"marker": 10 + i, "marker_size_mm": s, "id": f"u{i}", "side": "red",
              "base": [25, 50], "files": 5, "ranks": 2} for i, s in enumerate((40, 36, 25, 20))]
    return {"dictionary": "DICT_4X4_50", "table": {"markers": table}, "units": units}


def objects(pdf: bytes) -> dict[int, bytes]:
    return {int(m.group(1)): m.group(2)
            for m in re.finditer(rb"(\d+) 0 obj\n(.*?)\nendobj\n", pdf, re.S)}


def stream_data(body: bytes) -> bytes:
    return body.split(b"stream\n", 1)[1].rsplit(b"\nendstream", 1)[0]


def pages(pdf: bytes) -> list[tuple[bytes, bytes]]:
    """(page dictionary, its content stream) for every page, in order."""
    objs = objects(pdf)
    root = int(re.search(rb"/Root (\d+) 0 R", pdf).group(1))
    tree = int(re.search(rb"/Pages (\d+) 0 R", objs[root]).group(1))
    kids = [int(k) for k in re.findall(rb"(\d+) 0 R", objs[tree].split(b"/Kids", 1)[1])]
    out = []
    for k in kids:
        content = int(re.search(rb"/Contents (\d+) 0 R", objs[k]).group(1))
        out.append((objs[k], stream_data(objs[content])))
    return out


def test_pages_are_a4_and_the_xref_is_right():
    pdf = sheet.sheet_pdf(fixture())
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    ps = pages(pdf)
    assert len(ps) == sheet.page_count(fixture()) >= 1
    for page, _ in ps:
        box = [float(v) for v in re.search(rb"/MediaBox \[([^\]]+)\]", page).group(1).split()]
        assert box[2] == pytest.approx(210 * PT, abs=1e-3)  # 595.2756 pt
        assert box[3] == pytest.approx(297 * PT, abs=1e-3)  # 841.8898 pt
    # every xref offset points at its object
    xref = int(re.search(rb"startxref\n(\d+)", pdf).group(1))
    assert pdf[xref:xref + 4] == b"xref"
    rows = pdf[xref:].split(b"\n")[3:]
    for i, row in enumerate(rows[:len(objects(pdf))], start=1):
        off = int(row[:10])
        assert pdf[off:off + len(f"{i} 0 obj")] == f"{i} 0 obj".encode()


def test_every_marker_is_drawn_at_its_exact_size_and_decodes_as_its_id():
    data = fixture()
    ms = load_markers(data)
    expected = [(m.id, m.size_mm) for m in ms.table.markers] + \
        [(u.marker, u.marker_size_mm) for u in ms.units]
    pdf = sheet.sheet_pdf(data)
    objs = objects(pdf)
    drawn = []
    for page, content in pages(pdf):
        xobjs = dict(re.findall(rb"/(Im\d+) (\d+) 0 R", page))
        for a, b, c, d, e, f, name in re.findall(
                rb"([\d.-]+) ([\d.-]+) ([\d.-]+) ([\d.-]+) ([\d.-]+) ([\d.-]+) cm /(Im\d+) Do",
                content):
            w, h = float(a), float(d)
            assert float(b) == float(c) == 0
            body = objs[int(xobjs[name])]
            side = int(re.search(rb"/Width (\d+)", body).group(1))
            img = np.frombuffer(zlib.decompress(stream_data(body)), np.uint8).reshape(side, side)
            padded = cv2.copyMakeBorder(img, side // 4, side // 4, side // 4, side // 4,
                                        cv2.BORDER_CONSTANT, value=255)
            det = cv2.aruco.ArucoDetector(ms.aruco_dictionary)
            _, ids, _ = det.detectMarkers(padded)
            assert ids is not None and len(ids) == 1
            drawn.append((int(np.ravel(ids)[0]), w, h, float(e), float(f)))
            assert b"/Interpolate false" in body
    assert [i for i, *_ in drawn] == [i for i, _ in expected]
    for (aruco_id, w, h, x, y), (_, size_mm) in zip(drawn, expected, strict=True):
        assert w == pytest.approx(size_mm * 72 / 25.4, abs=1e-3), aruco_id
        assert h == w
        # inside the page margins
        assert 12 * PT - 1e-6 <= x and x + w <= (210 - 12) * PT + 1e-6
        assert 12 * PT <= y and y + h <= (297 - 12) * PT


def test_scale_bar_of_100_mm_on_every_page():
    data = fixture()
    data["units"] = data["units"] * 1  # as given
    pdf = sheet.sheet_pdf(data)
    for _, content in pages(pdf):
        widths = [float(w) for w in re.findall(rb"[\d.]+ [\d.]+ ([\d.]+) [\d.]+ re S", content)]
        assert any(abs(w - 100 * PT) < 1e-3 for w in widths)  # 283.4646 pt
        assert b"100 mm" in content


def test_cells_do_not_overlap_and_spill_onto_more_pages():
    data = fixture()
    ms = load_markers(data)
    units = []
    for i in range(30):  # 30 trays with 40 mm markers: more than one page holds
        units.append({"marker": 4 + i, "marker_size_mm": 40, "id": f"unit{i}", "side": "blue",
                      "base": [25, 50], "files": 5, "ranks": 2})
    big = {"dictionary": "DICT_4X4_50", "table": copy.deepcopy(data["table"]), "units": units}
    places = sheet.layout(sheet.sheet_markers(load_markers(big)))
    assert max(p.page for p in places) >= 2
    by_page: dict[int, list] = {}
    for p in places:
        q = p.marker.quiet_mm
        by_page.setdefault(p.page, []).append((p.x_mm - q, p.y_mm - q, p.marker.cut_mm))
    for cuts in by_page.values():
        for i, (x0, y0, s0) in enumerate(cuts):
            for x1, y1, s1 in cuts[i + 1:]:
                assert x0 + s0 <= x1 or x1 + s1 <= x0 or y0 + s0 <= y1 or y1 + s1 <= y0
    assert sheet.page_count(big) == max(p.page for p in places) + 1
    assert ms.dictionary == "DICT_4X4_50"


def test_a_marker_too_big_for_a4_names_the_field():
    data = fixture()
    data["table"]["markers"][1]["size_mm"] = 240
    with pytest.raises(MarkersError, match=r"table\.markers\[1\]: size_mm: a 240 mm marker"):
        sheet.sheet_pdf(data)


def test_bad_markers_json_names_the_field():
    data = fixture()
    data["units"][0]["marker_size_mm"] = -5
    with pytest.raises(MarkersError, match="marker_size_mm"):
        sheet.sheet_pdf(data)
    data = fixture()
    data["dictionary"] = "DICT_9X9_1"
    with pytest.raises(MarkersError, match="dictionary"):
        sheet.sheet_pdf(data)


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils not installed")
def test_rasterised_page_measures_true(tmp_path: Path):
    """Rendered at 254 dpi (10 px per mm), the printed markers measure their size_mm and
    tray markers stand upright under their FRONT arrow (top edge = the unit's front)."""
    data = fixture()
    ms = load_markers(data)
    sizes = {m.id: m.size_mm for m in ms.table.markers} | \
        {u.marker: u.marker_size_mm for u in ms.units}
    trays = {u.marker for u in ms.units}
    pdf = tmp_path / "sheet.pdf"
    pdf.write_bytes(sheet.sheet_pdf(data))
    subprocess.run(["pdftoppm", "-r", "254", "-gray", "-png", str(pdf), str(tmp_path / "p")],
                   check=True, timeout=60)
    seen = {}
    det = cv2.aruco.ArucoDetector(ms.aruco_dictionary)
    for png in sorted(tmp_path.glob("p-*.png")):
        page = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
        assert abs(page.shape[0] - 2970) <= 1 and abs(page.shape[1] - 2100) <= 1  # 10 px/mm
        corners, ids, _ = det.detectMarkers(page)
        for c, i in zip(corners, ids.ravel(), strict=True):
            c = c.reshape(4, 2)
            side = np.mean([np.linalg.norm(c[k] - c[(k + 1) % 4]) for k in range(4)])
            seen[int(i)] = side / 10
            # upright: ArUco's first two corners (top-left, top-right) are the top of the page
            assert c[0][1] < c[3][1] and c[1][1] < c[2][1]
            if int(i) in trays:  # dark arrow pixels right above the cut line
                x = int(round((c[0][0] + c[1][0]) / 2))
                top = int(round(min(c[0][1], c[1][1])))
                quiet = int(sizes[int(i)] / 6 * 10)
                above = page[top - quiet - 80:top - quiet - 5, x - 3:x + 4]
                assert (above < 100).any()
    assert set(seen) == set(sizes)
    for i, mm in seen.items():
        assert mm == pytest.approx(sizes[i], abs=0.25), i
