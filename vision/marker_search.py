"""Finding the markers of a marker set in a photo (step 1 of :func:`vision.detect`).

OpenCV's ``cv2.aruco.ArucoDetector`` (the 4.7+/5 API) finds and decodes the markers; this module
decides which passes to make and puts the corners on the photo's edges:

- Large photos (4K, 12 MP) are searched at half size first, with several threshold windows in
  turn, and at full size only when a missing marker could be too small at half size.
- Then the full photo, one threshold window after another (:data:`WINDOWS`), while a marker of
  the set is missing.
- Then the quads ArUco found but could not read are read again for the missing markers,
  correcting as many bit errors as the dictionary allows (:func:`read_missing`).
- Every corner is refined on the marker's edges (:func:`vision.edges.refine_quads`).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from .edges import EDGE_WINDOW_PX, SEARCH_PX, refine_quads
from .markers import MarkerSet

WINDOWS = (9, 15, 7, 25, 5, 35, 13, 3)
"""Adaptive-threshold window sizes (px) tried one after the other on the full photo until
every marker of the set is found. One window finds every marker of a clean photo; in a blurred,
noisy one a small marker can fail to decode at one size and decode at the next, so one more
~8 ms pass (1080p) usually completes the set, where a single pass with OpenCV's several windows
cost four. 13 and 3 are OpenCV's own (its default detector found a far 16 x 21 px marker of a
real photo that the others missed). 15 before 7: a marker on a white sticker margin in a
model's shadow (the club appearance) wants the wider window; over 36 rendered 1080p photos of
both appearances the mean went from 1.44 to 1.33 passes, the same markers found. Only a marker
that really is not there pays for all."""
HALF_SIZE_MIN_PX = 3000
"""Photos at least this long (4K, 12 MP) are searched for markers at half size first: ArUco's
thresholding and contour search cost ~45 ms on 12 MP and ~15 ms at half size, and a 25 mm
marker is still 14-26 px across there. The corners are then put back on the full photo by the
edge fits of :func:`~vision.edges.refine_quads`, first with a wide search (a half-size corner
can be 2 px off in the photo) and then as for any marker."""
HALF_WINDOWS = (5, 9, 3, 13)  # at half size: 10, 18, 6 and 26 px in the photo
HALF_ENOUGH_PX = 18.0
"""A missing marker that would be at least this many pixels across at half size (the table's
scale at its far corners, from the table markers found) is not looked for at full size: the
half-size passes see it as well, and a 12 MP pass costs three of them."""
COARSE_SEARCH_PX = 4.0
WIDE_EDGE_MIN_CELL_PX = 6.0  # cells of >= 6 px: room for the wide edge window
MID_EDGE_MIN_CELL_PX = 5.0  # cells of >= 5 px: room for a middle one
MID_SEARCH_PX = 3.0
MID_EDGE_WINDOW_PX = 2.0
NARROW_SEARCH_PX = 2.5
NARROW_EDGE_WINDOW_PX = 1.5
FIRST_SAMPLES = 12
"""Profiles per side of the first edge fit, which only has to bring the detector's corners onto
the edges for the last one (24 per side, centroid windows centred again): half the profiles
and one window each, a third of the time."""
FIRST_ENDS = 0.15
FINAL_ENDS = 0.10
"""The last edge fit starts from corners already on the edges and samples each side to within
a tenth of its length of the corners (the first stops at :data:`FIRST_ENDS`: the detector's
corners can be a pixel or more off). A small blurred marker's edge position scatters by ~0.13
px per profile, so its side's direction is read better from a longer stretch: on 10 rendered
tables per setting, club 4K tilt 40 degraded pose p95 0.231 -> 0.190 mm and 0.276 -> 0.248
deg, 12 MP 0.240 -> 0.191 mm and 0.271 -> 0.235 deg, 4K tilt 20 facing 0.251 -> 0.173 deg,
classic 1080p tilt 20 degraded 0.128 -> 0.111 mm and 0.197 -> 0.129 deg; on the real photos
three table markers' position p95 1.84 -> 1.71 mm (four: 0.77 -> 0.79). To 7% of the length
was a little better again on renderings and worse on the real photos (four-marker facing p95
0.45 -> 0.53 deg)."""
READ_CELL_PX = 8  # a quad read again is resampled at this many pixels per cell

Found = list[tuple[int, np.ndarray]]


def aruco_detector(markers: MarkerSet, windows: tuple[int, int, int] = (9, 9, 10),
                   min_perimeter_rate: float = 0.012,
                   refinement: int = cv2.aruco.CORNER_REFINE_CONTOUR) -> cv2.aruco.ArucoDetector:
    """OpenCV's ArUco detector with CONTOUR corner refinement, tuned for small tray markers
    (a 25 mm marker can be 30 px across at the far end of a tilted 4K photo). ``windows`` is
    (min, max, step) of the adaptive-threshold window sizes: one size is twice as fast as
    OpenCV's three and finds every marker on an evenly lit table."""
    p = cv2.aruco.DetectorParameters()
    p.cornerRefinementMethod = refinement
    p.minMarkerPerimeterRate = min_perimeter_rate
    p.adaptiveThreshWinSizeMin, p.adaptiveThreshWinSizeMax, p.adaptiveThreshWinSizeStep = windows
    return cv2.aruco.ArucoDetector(markers.aruco_dictionary, p)


def _detect(gray: np.ndarray, markers: MarkerSet, window: int,
            refinement: int = cv2.aruco.CORNER_REFINE_CONTOUR) -> tuple[Any, Any, Any]:
    """One ArUco pass. OpenCV's CONTOUR refinement can fail an assertion on a tiny marker
    (``_interpolate2Dline``: fewer than two contour points on a side); the pass is then made
    without it (the edge fits of :func:`~vision.edges.refine_quads` place the corners anyway)."""
    try:
        return aruco_detector(markers, (window, window, 10), refinement=refinement
                              ).detectMarkers(gray)
    except cv2.error:
        return aruco_detector(markers, (window, window, 10),
                              refinement=cv2.aruco.CORNER_REFINE_NONE).detectMarkers(gray)


def _add(found: Found, corners: Any, ids: Any) -> None:
    """Add a pass's markers not already found (by id and place): more than 3 px from the
    centre of every marker found before the pass (one array operation for the pass: a loop over
    markers and found markers cost ~2 ms per 1080p photo)."""
    if ids is None:
        return
    quads = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    keep = np.ones(len(quads), bool)
    if found:
        centres = np.array([c for _, c in found], np.float64).reshape(-1, 4, 2).mean(axis=1)
        gap = np.linalg.norm(quads.mean(axis=1)[:, None] - centres[None], axis=2)
        keep = gap.min(axis=1) > 3
    for i, q, k in zip(ids.ravel().tolist(), quads, keep, strict=True):
        if k:
            found.append((int(i), q))


def _half_size(gray: np.ndarray, markers: MarkerSet, expected: set[int],
               ) -> tuple[Found, list[np.ndarray]]:
    """Markers found on the photo at half size (window after window while one is missing),
    corners fitted on the full photo with a wide search; and the unread quads (photo px)."""
    h, w = gray.shape[0] // 2, gray.shape[1] // 2
    small = cv2.resize(gray[:2 * h, :2 * w], (w, h), interpolation=cv2.INTER_AREA)
    found: Found = []
    rejected: list[np.ndarray] = []
    for win in HALF_WINDOWS:
        if expected <= {i for i, _ in found}:
            break
        corners, ids, rej = _detect(small, markers, win, cv2.aruco.CORNER_REFINE_NONE)
        _add(found, corners, ids)
        rejected += [np.asarray(r, np.float64).reshape(4, 2) * 2 + 0.5 for r in rej]
    if not found:
        return [], rejected
    # Pixel i at half size averages photo pixels 2i and 2i + 1.
    start = np.array([c for _, c in found]) * 2 + 0.5
    quads, _ = refine_quads(gray, start, search_px=COARSE_SEARCH_PX)
    return [(i, q) for (i, _), q in zip(found, quads, strict=True)], rejected


def _half_size_enough(found: Found, markers: MarkerSet, missing: set[int]) -> bool:
    """Whether every missing marker would be :data:`HALF_ENOUGH_PX` across at half size
    wherever it lies on the table (judged from the table markers found; False with fewer than
    three of them)."""
    table = [(i, q) for i, q in found if i in markers.table_by_id]
    if len(table) < 3:
        return False
    img = np.vstack([q for _, q in table])
    tab = np.vstack([markers.table_by_id[i].corners() for i, _ in table])
    H, _ = cv2.findHomography(tab, img, 0)
    if H is None:
        return False
    w, d = markers.table.width_mm, markers.table.depth_mm
    pts = np.array([[0, 0], [w, 0], [w, d], [0, d], [w / 2, d], [w / 2, 0]], np.float64)
    a = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), H).reshape(-1, 2)
    b = cv2.perspectiveTransform((pts + [10.0, 0.0]).reshape(-1, 1, 2), H).reshape(-1, 2)
    c = cv2.perspectiveTransform((pts + [0.0, 10.0]).reshape(-1, 1, 2), H).reshape(-1, 2)
    px_per_mm = min(np.linalg.norm(b - a, axis=1).min(), np.linalg.norm(c - a, axis=1).min()) / 10
    sizes = [markers.table_by_id[i].size_mm if i in markers.table_by_id
             else markers.unit_by_marker[i].marker_size_mm for i in missing]
    return min(sizes) * px_per_mm / 2 >= HALF_ENOUGH_PX


def _codes(markers: MarkerSet, ids: set[int]) -> dict[int, list[np.ndarray]]:
    """Each id's inner bits (markerSize x markerSize, 1 = white) in its four turns."""
    d = markers.aruco_dictionary
    out = {}
    for i in ids:
        bits = d.getBitsFromByteList(d.bytesList[i:i + 1], d.markerSize).astype(bool)
        out[i] = [np.rot90(bits, -k) for k in range(4)]
    return out


def read_missing(gray: np.ndarray, quads: list[np.ndarray], markers: MarkerSet,
                 missing: set[int]) -> Found:
    """Read unread quads again for the missing markers: the cells' mean grey, split into dark
    and light at the midpoint of the two clusters, a border that is dark (all but a third of
    its cells), and inner bits that match one missing id within the dictionary's correction
    capacity (``maxCorrectionBits``; OpenCV's default corrects 60% of it: none at all for a
    4x4 dictionary, so one blurred cell loses a marker) and no other within two bits more."""
    if not quads or not missing:
        return []
    d = markers.aruco_dictionary
    n = d.markerSize + 2
    codes = _codes(markers, missing)
    size = n * READ_CELL_PX
    dst = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32) - 0.5
    lo, hi = int(READ_CELL_PX * 0.25), int(READ_CELL_PX * 0.75)
    border = np.ones((n, n), bool)
    border[1:-1, 1:-1] = False
    out: Found = []
    for q in quads:
        M = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
        patch = cv2.warpPerspective(gray, M, (size, size), flags=cv2.INTER_LINEAR)
        cells = patch.reshape(n, READ_CELL_PX, n, READ_CELL_PX)[:, lo:hi, :, lo:hi]
        means = cells.mean(axis=(1, 3))
        thr = _two_means(means.ravel())
        if thr is None:
            continue
        white = means > thr
        if white[border].sum() > border.sum() / 3:
            continue
        inner = white[1:-1, 1:-1]
        scores = sorted((int((inner != code).sum()), i, k) for i, turns in codes.items()
                        for k, code in enumerate(turns))
        best, ident, turn = scores[0]
        rival = min((s for s, i, _ in scores if i != ident), default=99)
        if best <= d.maxCorrectionBits and rival >= best + 2:
            out.append((ident, np.roll(q, -turn, axis=0)))
            missing = missing - {ident}
            codes.pop(ident)
            if not codes:
                break
    return out


def _two_means(v: np.ndarray) -> float | None:
    """The midpoint between the dark and the light cluster of cell means (None when the quad
    has no contrast). The values are sorted once, and each split's two means read from their
    running sum (ten numpy means per iteration cost ~1 ms per 1080p photo)."""
    v = np.sort(np.asarray(v, np.float64).ravel())
    n = len(v)
    run = np.cumsum(v)
    t = run[-1] / n
    dark = light = t
    for _ in range(10):
        k = int(np.searchsorted(v, t, side="right"))  # how many are <= t
        if k == 0 or k == n:
            return None
        dark, light = run[k - 1] / k, (run[-1] - run[k - 1]) / (n - k)
        t = (dark + light) / 2
    return float(t) if light - dark > 30 else None


def find_markers(gray: np.ndarray, markers: MarkerSet) -> Found:
    """Every decoded marker as (id, raw 4x2 corners in ArUco order, edge-refined): the passes
    of the module's docstring, the union of what they found. A pass's unread quads are read
    again at once (after all the half-size passes for a large photo), so that a blurred marker
    does not send the photo through every pass."""
    expected = set(markers.table_by_id) | set(markers.unit_by_marker)
    found: Found = []
    full = True
    if max(gray.shape[:2]) >= HALF_SIZE_MIN_PX:
        found, rejected = _half_size(gray, markers, expected)
        _read_again(gray, markers, expected, found, rejected)
        missing = expected - {i for i, _ in found}
        full = bool(missing) and not _half_size_enough(found, markers, missing)
    for win in WINDOWS if full else ():
        if expected <= {i for i, _ in found}:
            break
        corners, ids, rej = _detect(gray, markers, win)
        _add(found, corners, ids)
        _read_again(gray, markers, expected, found,
                    [np.asarray(r, np.float64).reshape(4, 2) for r in rej])
    if not found:
        return []
    return refine_found(gray, markers, found)


def _read_again(gray: np.ndarray, markers: MarkerSet, expected: set[int], found: Found,
                rejected: list[np.ndarray]) -> None:
    """Add the missing markers that :func:`read_missing` reads among the unread quads."""
    missing = expected - {i for i, _ in found}
    if missing and rejected:
        _add_read(found, read_missing(gray, _candidates(rejected, found), markers, missing))


def _candidates(rejected: list[np.ndarray], found: Found) -> list[np.ndarray]:
    """The unread quads of every pass worth reading again: roughly square (sides within 2.5x
    of one another), not on a marker already found, each once (the same quad comes back from
    pass after pass, corners within 2 px)."""
    if not rejected:
        return []
    quads = np.asarray(rejected, np.float64).reshape(-1, 4, 2)
    sides = np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2)
    ok = (sides.min(axis=1) >= 6) & (sides.max(axis=1) <= 2.5 * sides.min(axis=1))
    if found:
        fq = np.array([q for _, q in found], np.float64).reshape(-1, 4, 2)
        gap = np.linalg.norm(quads.mean(axis=1)[:, None] - fq.mean(axis=1)[None], axis=2)
        ok &= ~(gap < np.linalg.norm(fq[:, 0] - fq[:, 2], axis=1)[None]).any(axis=1)
    picked = quads[ok]
    same = np.abs(picked[:, None] - picked[None]).max(axis=(2, 3)) < 2
    kept: list[int] = []
    for k in range(len(picked)):
        if not same[k, kept].any():
            kept.append(k)
    return [picked[k] for k in kept]


def _add_read(found: Found, read: Found) -> None:
    centres = np.array([q.mean(axis=0) for _, q in found]).reshape(-1, 2)
    for i, q in read:
        if not len(centres) or np.min(np.linalg.norm(centres - q.mean(axis=0), axis=1)) > 3:
            found.append((i, q))


def refine_found(gray: np.ndarray, markers: MarkerSet, found: Found) -> Found:
    """Every marker's corners refined on its edges. Markers whose border cells are wide enough
    take a wider edge window (edges.EDGE_WINDOW_PX; MID_EDGE_WINDOW_PX for a little less room):
    a blurred edge cut by the narrow window is pulled towards its steepest sample, whose place
    depends on the pixel grid. On table markers that moved every tray ~0.1 mm; on tray markers
    under a 1-2.5 px motion blur (the club appearance) it doubled the 4K position and facing
    errors (p95 0.21 -> 0.13 mm, 0.28 -> 0.14 deg). A small marker (cells under
    :data:`WIDE_EDGE_MIN_CELL_PX`) is fitted twice: a quick fit (:data:`FIRST_SAMPLES`) puts
    the detector's corners on its edges, and the last one samples the sides from there to
    closer to the corners (:data:`FINAL_ENDS`); a large one has the room to be fitted so from
    the detector's corners at once (as accurate, ~1 ms less per 1080p photo). A large table
    marker's sides are sampled only as far as :data:`FIRST_ENDS`: its long sides need no more
    profiles, and its corners pin the table plane and, with the trays' sizes, the lens's radial
    term, which a barrel lens's bend of the sides moves with where they are sampled (an
    uncorrected k1 = -0.08 at 1080p, four table markers: the term read at -0.0837 instead of
    -0.0833, the true one -0.08, positions p95 0.45 -> 0.52 mm). Each fit takes every marker
    in one batch, each with its own search and window."""
    quads = np.array([c.reshape(4, 2) for _, c in found], np.float64)
    cell = np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2).min(axis=1) / (
        markers.aruco_dictionary.markerSize + 2)
    wide, mid = cell >= WIDE_EDGE_MIN_CELL_PX, cell >= MID_EDGE_MIN_CELL_PX
    search = np.where(wide, SEARCH_PX, np.where(mid, MID_SEARCH_PX, NARROW_SEARCH_PX))
    window = np.where(wide, EDGE_WINDOW_PX, np.where(mid, MID_EDGE_WINDOW_PX,
                                                     NARROW_EDGE_WINDOW_PX))
    refined, fitted = quads.copy(), wide.copy()
    small = np.flatnonzero(~wide)
    if len(small):
        refined[small], fitted[small] = refine_quads(gray, quads[small], search[small],
                                                     window_px=window[small],
                                                     samples=FIRST_SAMPLES, recentre=0)
    if not fitted.all():
        # A quad whose corners are further off than the edge search reaches (a quad read
        # again by read_missing keeps ArUco's unrefined contour corners, 2-4 px off on a
        # small blurred marker) is first put on its edges with the wide search of the
        # half-size markers, then fitted as the others.
        miss = np.flatnonzero(~fitted)
        coarse, ok = refine_quads(gray, quads[miss], search_px=COARSE_SEARCH_PX)
        sel = miss[ok]
        if len(sel):
            refined[sel], fitted[sel] = refine_quads(gray, coarse[ok], search[sel],
                                                     window_px=window[sel],
                                                     samples=FIRST_SAMPLES, recentre=0)
    table = np.array([i in markers.table_by_id for i, _ in found])
    ends = np.where(table & wide, FIRST_ENDS, FINAL_ENDS)
    final, done = refine_quads(gray, refined, search, window_px=window, ends=ends)
    redo = np.flatnonzero(~done & wide)  # large and off by more than the search: as above
    if len(redo):
        coarse, ok = refine_quads(gray, quads[redo], search_px=COARSE_SEARCH_PX)
        sel = redo[ok]
        if len(sel):
            final[sel], _ = refine_quads(gray, coarse[ok], search[sel], window_px=window[sel],
                                         ends=ends[sel])
    return [(int(i), q) for (i, _), q in zip(found, final, strict=True)]
