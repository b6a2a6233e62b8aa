"""Photo -> scene (DESIGN.md, Python API: ``vision.detect``).

The steps, each timed in the result's ``detection.timings_ms``:

1. ArUco markers with OpenCV's ``ArucoDetector`` and CONTOUR corner refinement (on rendered
   tables it beat SUBPIX and NONE; APRILTAG was 15-40x slower).
2. Table calibration from the table markers (:mod:`vision.table`): homography, camera centre,
   lens distortion from a calibration or estimated from 8+ border markers.
3. Tray poses from the tray markers, parallax corrected, identity checked, then refined on the
   tray outline (:mod:`vision.trays`), each with ``sigma_mm``/``sigma_deg``.

Honest failures raise :class:`~vision.errors.DetectionError` (a ``ValueError``); a unit whose
marker is not seen is listed in ``detection.missing_units`` and left out, never guessed.
"""

from __future__ import annotations

import time
from typing import Any

import cv2
import numpy as np

from geometry import load_scene

from .camera import DEFAULT_FOV_DEG, Intrinsics
from .cautions import calibration_warnings, three_marker_warning
from .edges import EDGE_WINDOW_PX, SEARCH_PX, refine_quads
from .errors import DetectionError
from .focal import refine_focal
from .markers import MarkerSet, load_markers
from .poses import tray_poses
from .table import TableView, calibrate_table
from .trays import MarkerFix, measure_markers
from .uncertainty import corner_scatter, table_covariance


def to_gray(image: Any) -> np.ndarray:
    """A photo as 8-bit grey, or :class:`DetectionError` saying what is wrong with it."""
    if not isinstance(image, np.ndarray):
        raise DetectionError(f"image: expected a decoded image (numpy array), got "
                             f"{type(image).__name__}; unreadable or not an image file?")
    if image.size == 0 or image.ndim not in (2, 3):
        raise DetectionError(f"image: not a picture (array of shape {image.shape})")
    if image.ndim == 3 and image.shape[2] not in (1, 3, 4):
        raise DetectionError(f"image: {image.shape[2]} channels; expected grey, BGR or BGRA")
    if min(image.shape[:2]) < 64:
        raise DetectionError(f"image: {image.shape[1]}x{image.shape[0]} pixels is too small "
                             "to see a table")
    img = image
    if img.dtype != np.uint8:
        if img.dtype == np.uint16:
            img = (img >> 8).astype(np.uint8)
        elif np.issubdtype(img.dtype, np.floating):
            if not np.all(np.isfinite(img)):
                raise DetectionError("image: contains non-finite values")
            scale = 255.0 if img.max() <= 1.0 else 1.0
            img = np.clip(img * scale, 0, 255).astype(np.uint8)
        else:
            raise DetectionError(f"image: pixel type {img.dtype} is not supported")
    if img.ndim == 3:
        if img.shape[2] == 1:
            img = img[..., 0]
        elif img.shape[2] == 4:
            img = cv2.cvtColor(img, cv2.COLOR_BGRA2GRAY)
        else:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    return np.ascontiguousarray(img)


def aruco_detector(markers: MarkerSet, windows: tuple[int, int, int] = (9, 9, 10),
                   min_perimeter_rate: float = 0.012,
                   refinement: int = cv2.aruco.CORNER_REFINE_CONTOUR,
                   error_correction: float | None = None) -> cv2.aruco.ArucoDetector:
    """OpenCV's ``cv2.aruco.ArucoDetector`` (the 4.7+/5 API) with CONTOUR corner refinement,
    tuned for small tray markers (a 25 mm marker can be 30 px across at the far end of a
    tilted 4K photo). ``windows`` is (min, max, step) of the adaptive-threshold window sizes:
    one size is twice as fast as OpenCV's three and finds every marker on an evenly lit
    table. ``error_correction`` overrides OpenCV's ``errorCorrectionRate`` (0.6)."""
    p = cv2.aruco.DetectorParameters()
    p.cornerRefinementMethod = refinement
    p.minMarkerPerimeterRate = min_perimeter_rate
    p.adaptiveThreshWinSizeMin, p.adaptiveThreshWinSizeMax, p.adaptiveThreshWinSizeStep = windows
    if error_correction is not None:
        p.errorCorrectionRate = error_correction
    return cv2.aruco.ArucoDetector(markers.aruco_dictionary, p)


WINDOWS = (9, 7, 15, 25, 5, 35)
"""Adaptive-threshold window sizes (px) tried one after the other on the full photo until
every marker of the set is found. One window finds every marker of a clean photo; in a blurred,
noisy one a small marker can fail to decode at one size and decode at the next, so one more
~8 ms pass (1080p) usually completes the set, where a single pass with OpenCV's several windows
cost four. Only a marker that really is not there pays for all of them, and for the passes of
:data:`LAST_PASSES`."""
LAST_PASSES = (((3, 23, 10), None), ((3, 23, 10), 1.0))
"""Then, while a marker is still missing: OpenCV's own windows (3, 13 and 23 px; its default
detector found a far 16 x 21 px marker of a real photo that the windows above missed), and the
same once more correcting as many bit errors as the dictionary allows (OpenCV corrects 60% of
them by default: none at all for a 4x4 dictionary, so one blurred cell loses a marker). The
lenient pass adds only markers still missing and not on top of one found."""
HALF_SIZE_MIN_PX = 3000
"""Photos at least this long (4K, 12 MP) are searched for markers at half size first: ArUco's
thresholding and contour search cost ~45 ms on 12 MP and ~15 ms at half size, and a 25 mm
marker is still 14-26 px across there. The corners are then put back on the full photo by the
edge fits of :func:`~vision.edges.refine_quads`, first with a wide search (a half-size corner
can be 2 px off in the photo) and then as for any marker. A marker the half-size pass misses
(the smallest ones at the far end of a steep photo) sends the whole photo through the
full-size pass, so nothing is lost but time."""
HALF_WINDOWS = (5, 5, 10)  # a 5 px window at half size (10 px in the photo) finds the most
COARSE_SEARCH_PX = 4.0
WIDE_EDGE_MIN_CELL_PX = 6.0  # cells of >= 6 px: room for the wide edge window
MID_EDGE_MIN_CELL_PX = 5.0  # cells of >= 5 px: room for a middle one
MID_SEARCH_PX = 3.0
MID_EDGE_WINDOW_PX = 2.0


def _half_size_markers(gray: np.ndarray, markers: MarkerSet) -> list[tuple[int, np.ndarray]]:
    """Markers found on the photo at half size, corners (ArUco order) fitted on the full
    photo with a wide search (to be refined once more like any detection)."""
    h, w = gray.shape[0] // 2, gray.shape[1] // 2
    small = cv2.resize(gray[:2 * h, :2 * w], (w, h), interpolation=cv2.INTER_AREA)
    corners, ids, _ = aruco_detector(markers, HALF_WINDOWS,
                                     refinement=cv2.aruco.CORNER_REFINE_NONE
                                     ).detectMarkers(small)
    if ids is None:
        return []
    # Pixel i at half size averages photo pixels 2i and 2i + 1.
    start = np.array([c.reshape(4, 2) for c in corners], np.float64) * 2 + 0.5
    quads, _ = refine_quads(gray, start, search_px=COARSE_SEARCH_PX)
    return list(zip(ids.ravel().tolist(), quads, strict=True))


def _detect(gray: np.ndarray, markers: MarkerSet, windows: tuple[int, int, int],
            correction: float | None) -> tuple[Any, Any]:
    """One ArUco pass. OpenCV's CONTOUR refinement can fail an assertion on a tiny marker
    (``_interpolate2Dline``: fewer than two contour points on a side); the pass is then made
    without it (the edge fits of :func:`~vision.edges.refine_quads` place the corners anyway)."""
    try:
        c, ids, _ = aruco_detector(markers, windows,
                                   error_correction=correction).detectMarkers(gray)
    except cv2.error:
        c, ids, _ = aruco_detector(markers, windows, refinement=cv2.aruco.CORNER_REFINE_NONE,
                                   error_correction=correction).detectMarkers(gray)
    return c, ids


def find_markers(gray: np.ndarray, markers: MarkerSet) -> list[tuple[int, np.ndarray]]:
    """Every decoded marker as (id, raw 4x2 corners in ArUco order, edge-refined).

    Large photos first at half size (:data:`HALF_SIZE_MIN_PX`); then, while any marker of the
    set is missing, the full photo with one threshold window after another (:data:`WINDOWS`:
    blur, uneven light, deep shadow); the union of the passes."""
    expected = set(markers.table_by_id) | set(markers.unit_by_marker)
    found: list[tuple[int, np.ndarray]] = []
    if max(gray.shape[:2]) >= HALF_SIZE_MIN_PX:
        found = _half_size_markers(gray, markers)
    passes = [((w, w, 10), None) for w in WINDOWS] + list(LAST_PASSES)
    for windows, correction in passes:
        have = {i for i, _ in found}
        if expected <= have:
            break
        c2, ids2 = _detect(gray, markers, windows, correction)
        if ids2 is None:
            continue
        centres = np.array([c.reshape(4, 2).mean(axis=0) for _, c in found]).reshape(-1, 2)
        for i, c in zip(ids2.ravel().tolist(), c2, strict=True):
            m = c.reshape(4, 2).mean(axis=0)
            if correction is not None and (i in have or i not in expected):
                continue
            if not len(centres) or np.min(np.linalg.norm(centres - m, axis=1)) > 3:
                found.append((i, c))
    if not found:
        return []
    quads = np.array([c.reshape(4, 2) for _, c in found], np.float64)
    # Markers whose border cells are wide enough take a wider edge window (edges.EDGE_WINDOW_PX;
    # MID_EDGE_WINDOW_PX for a little less room): a blurred edge cut by the narrow window is
    # pulled towards its steepest sample, whose place depends on the pixel grid. On table
    # markers that moved every tray ~0.1 mm; on tray markers under a 1-2.5 px motion blur (the
    # club appearance) it doubled the 4K position and facing errors (p95 0.21 -> 0.13 mm,
    # 0.28 -> 0.14 deg).
    cell = np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2).min(axis=1) / (
        markers.aruco_dictionary.markerSize + 2)
    refined = quads.copy()
    for lo, hi, kw in ((0.0, MID_EDGE_MIN_CELL_PX, {}),
                       (MID_EDGE_MIN_CELL_PX, WIDE_EDGE_MIN_CELL_PX,
                        dict(search_px=MID_SEARCH_PX, window_px=MID_EDGE_WINDOW_PX)),
                       (WIDE_EDGE_MIN_CELL_PX, np.inf,
                        dict(search_px=SEARCH_PX, window_px=EDGE_WINDOW_PX))):
        pick = (cell >= lo) & (cell < hi)
        if pick.any():
            refined[pick], _ = refine_quads(gray, quads[pick], **kw)
    return [(int(i), q) for (i, _), q in zip(found, refined, strict=True)]


def _intrinsics(shape: tuple[int, ...], fov_deg: float | None,
                calibration: Intrinsics | None) -> Intrinsics:
    h, w = shape[:2]
    if calibration is not None:
        return calibration.scaled_to(w, h)
    return Intrinsics.nominal(w, h, fov_deg or DEFAULT_FOV_DEG)


def detect(image: np.ndarray, markers: dict[str, Any] | MarkerSet, *,
           fov_deg: float | None = None, calibration: Intrinsics | None = None,
           refine: bool = True, parallax: bool = True,
           estimate_distortion: bool = True) -> dict[str, Any]:
    """The scene JSON of a photo of the table (DESIGN.md, Scene) plus a ``detection`` report.

    ``fov_deg`` is the horizontal field of view assumed without ``calibration`` (a camera
    calibration, :meth:`vision.camera.Intrinsics.load`). ``refine``, ``parallax`` and
    ``estimate_distortion`` switch the accuracy steps off for comparison (benchmarks).
    ``detection.table_to_image`` is the 3x3 homography from table mm to (undistorted) pixels,
    for drawing overlays.
    """
    return detect_with_view(image, markers, fov_deg=fov_deg, calibration=calibration,
                            refine=refine, parallax=parallax,
                            estimate_distortion=estimate_distortion)[0]


def detect_with_view(image: np.ndarray, markers: dict[str, Any] | MarkerSet, *,
                     fov_deg: float | None = None, calibration: Intrinsics | None = None,
                     refine: bool = True, parallax: bool = True,
                     estimate_distortion: bool = True) -> tuple[dict[str, Any], TableView]:
    """:func:`detect` plus the :class:`~vision.table.TableView` it calibrated."""
    t0 = time.perf_counter()
    ms = load_markers(markers)
    gray = to_gray(image)
    timings: dict[str, float] = {}
    t = time.perf_counter()
    found = find_markers(gray, ms)
    timings["markers"] = (time.perf_counter() - t) * 1000

    warnings: list[str] = []
    table_seen: dict[int, np.ndarray] = {}
    tray_seen: dict[int, list[np.ndarray]] = {}
    unknown: list[int] = []
    for mid, c in found:
        if mid in ms.table_by_id:
            if mid in table_seen:
                raise DetectionError(f"table marker {mid} is seen twice in the photo; each "
                                     "table marker must be unique")
            table_seen[mid] = c
        elif mid in ms.unit_by_marker:
            tray_seen.setdefault(mid, []).append(c)
        else:
            unknown.append(mid)

    t = time.perf_counter()
    intr = _intrinsics(gray.shape, fov_deg, calibration)
    view = calibrate_table(table_seen, ms, intr, estimate_distortion=estimate_distortion)
    if calibration is None and parallax:
        first = corner_scatter([(view.residual_ss_px, view.residual_dof)])
        view = refine_focal(view, table_covariance(view.H, view.fit_ideal, view.fit_table,
                                                   first))
    if not parallax:
        view.centre = np.array([view.centre[0], view.centre[1], 1e12])
    timings["table"] = (time.perf_counter() - t) * 1000
    if view.missing:
        warnings.append(f"table markers not seen: {view.missing} (calibrated from {view.used})")
    if view.outliers:
        warnings.append(f"table markers {view.outliers} do not fit the others (moved?) and "
                        "were not used")
    if calibration is not None:
        nominal = calibrate_table(table_seen, ms, _intrinsics(gray.shape, fov_deg, None),
                                  estimate_distortion=False).residual_px
        warnings += calibration_warnings(calibration, (gray.shape[1], gray.shape[0]), view,
                                         nominal)

    t = time.perf_counter()
    missing: list[str] = []
    rejected: list[dict[str, Any]] = []
    looked = [(um, q) for um in ms.units for q in tray_seen.get(um.marker, [])]
    measured = measure_markers([q for _, q in looked], view, [um for um, _ in looked])
    by_unit: dict[str, list[tuple[MarkerFix, np.ndarray]]] = {}
    for (um, q), fix in zip(looked, measured, strict=True):
        by_unit.setdefault(um.id, []).append((fix, q))
    found_units = []
    for um in ms.units:
        quads = tray_seen.get(um.marker, [])
        fixes = []
        for fix, q in by_unit.get(um.id, []):
            if fix.problem:
                rejected.append({"marker": um.marker, "unit": um.id, "reason": fix.problem})
                warnings.append(fix.problem)
            else:
                fixes.append((fix, q))
        if len(fixes) > 1:
            where = ", ".join(f"({f.centre[0]:.0f}, {f.centre[1]:.0f})" for f, _ in fixes)
            raise DetectionError(f"tray marker {um.marker} of unit '{um.id}' is seen twice (at "
                                 f"{where} mm): each tray marker must be unique")
        if not fixes:
            missing.append(um.id)
            warnings.append(f"unit '{um.id}' not found (marker {um.marker} not seen"
                            + (", a look-alike was rejected)" if quads else ")"))
            continue
        found_units.append((um, *fixes[0]))
    trays, scatter, t_edges = tray_poses(gray, view, found_units, refine=refine,
                                         calibrated=calibration is not None)
    timings.update(t_edges)
    units = [tp.scene_unit() for tp in trays]
    per_unit = {tp.unit.id: tp.detection() for tp in trays}
    warnings += three_marker_warning(view, trays)
    timings["trays"] = (time.perf_counter() - t) * 1000
    timings["total"] = (time.perf_counter() - t0) * 1000  # detection plus poses

    extra = ms.model_extra or {}
    scene: dict[str, Any] = {
        "table": {"width_mm": ms.table.width_mm, "depth_mm": ms.table.depth_mm},
        "terrain": list(extra.get("terrain", [])),
        "units": units,
    }
    t = time.perf_counter()
    try:
        load_scene(scene)
    except ValueError as e:
        warnings.append(f"the detected scene does not validate: {e}")
    timings["validate"] = (time.perf_counter() - t) * 1000
    scene["detection"] = {
        "warnings": warnings,
        "missing_units": missing,
        "rejected_markers": rejected,
        "unknown_markers": sorted(unknown),
        "table_markers_used": view.used,
        "table_markers_missing": view.missing,
        "table_residual_mm": round(view.residual_mm, 3),
        "table_residual_px": round(view.residual_px, 3),
        "corner_scatter_px": {"used": round(scatter.px, 3),
                              "measured": None if scatter.measured_px is None
                              else round(scatter.measured_px, 3), "dof": scatter.dof},
        "camera_mm": [round(float(v), 1) for v in view.centre] if parallax else None,
        "lens_k1_estimated": None if view.k1_estimated is None else round(view.k1_estimated, 5),
        "focal_px": round(float(view.intr.K[0, 0]), 1),
        "focal_from_table_px": None if view.focal_estimate is None
        else [round(v, 1) for v in view.focal_estimate],
        "calibration": calibration is not None,
        "image_size": [int(gray.shape[1]), int(gray.shape[0])],
        "units": per_unit,
        "table_to_image": np.round(view.Hinv / view.Hinv[2, 2], 9).tolist(),
        "timings_ms": {k: round(v, 1) for k, v in timings.items()},
    }
    return scene, view

