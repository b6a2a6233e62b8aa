"""Photo -> scene (DESIGN.md, Python API: ``vision.detect``).

The steps, each timed in the result's ``detection.timings_ms``:

1. ArUco markers with OpenCV's ``ArucoDetector`` and CONTOUR corner refinement (on rendered
   tables it beat SUBPIX and NONE; APRILTAG was 15-40x slower), in the passes of
   :mod:`vision.marker_search`, corners refined on the markers' edges.
2. Table calibration from the table markers (:mod:`vision.table`): homography, camera centre,
   lens distortion from a calibration or estimated from 8+ border markers, the focal length
   from the table's perspective (:mod:`vision.focal`).
3. Tray poses from the tray markers, parallax corrected, identity checked, fused with the tray
   outline's facing (:mod:`vision.poses`, :mod:`vision.fusion`), each with the covariance of
   :mod:`vision.uncertainty` as ``sigma_mm``/``sigma_deg`` and the evidence used.

Honest failures raise :class:`~vision.errors.DetectionError` (a ``ValueError``); a unit whose
marker is not seen is listed in ``detection.missing_units`` and left out, never guessed.
"""

from __future__ import annotations

import copy
import math
import time
from typing import Any

import cv2
import numpy as np

from geometry import load_scene

from .camera import DEFAULT_FOV_DEG, Intrinsics
from .cautions import (
    USUAL_TABLE_RESIDUAL_PX,
    assumed_focal_warning,
    calibration_warnings,
    lens_bend_warning,
    three_marker_warning,
)
from .errors import DetectionError
from .focal import check_calibrated_focal, refine_focal
from .lens import MODEL_SHARE, LensFit, fit_k1, unexplained_k1
from .marker_search import aruco_detector, find_markers
from .markers import MarkerSet, load_markers
from .poses import tray_poses
from .table import TableView, apply_h, calibrate_table
from .trays import MarkerFix, measure_markers
from .uncertainty import (
    CORNER_FLOOR_PX,
    Scatter,
    corner_scatter,
    square_residuals,
    table_covariance,
)

__all__ = ["detect", "detect_with_view", "find_markers", "aruco_detector", "to_gray"]


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


CUT_SHORT_SHARE = 0.02
"""A photo whose bottom rows (at least this share of its height) are all one flat mid grey was
decoded from a file cut short or corrupt: libjpeg warns ("premature end of data segment"),
fills the rest with grey and OpenCV returns the picture as if nothing happened."""


def _cut_short(gray: np.ndarray) -> float:
    """The share of the photo's height, at its bottom, that is one flat grey (a decoder's
    filling), or 0."""
    flat = gray.max(axis=1) == gray.min(axis=1)
    n = int(np.argmin(flat[::-1])) if not flat.all() else len(flat)
    if n < max(8, CUT_SHORT_SHARE * len(flat)):
        return 0.0
    level = int(gray[-1, 0])
    if not 64 <= level <= 192 or np.any(gray[-n:, 0] != level):
        return 0.0
    return n / len(flat)


SIDE_MISFIT_PX = 0.25
"""Table markers' corners misfitting their plane by more than this (per degree of freedom,
px) ..."""
SIDE_MISFIT_SHARE = 4.0
"""... and by this many times more than once one or two markers' single sides are left out:
those sides are hidden (a hand or a book over the marker) or not straight, not a lens: a lens
bends every marker, and the plane through the others keeps bending them (outside testing
round 4: a quad 43 x 50 px in a photo where every other marker was square read as a bent
table, and the sigmas went to 21 mm)."""


#: The sides, best alone, whose pairs :func:`_covered_sides` tries.
PAIR_SIDES = 6


def _plane_rms(ideal: np.ndarray, table: np.ndarray, keep: np.ndarray
               ) -> tuple[float, np.ndarray | None]:
    H, _ = cv2.findHomography(table[keep], ideal[keep], 0)
    if H is None:
        return math.inf, None
    d2 = np.sum((apply_h(H, table[keep]) - ideal[keep]) ** 2)
    return float(np.sqrt(d2 / max(2 * int(keep.sum()) - 8, 1))), H


def _covered_sides(view: TableView) -> list[tuple[int, int]]:
    """The table markers' sides (marker id, side k: corners k and k+1) whose corners alone
    make the table plane misfit (:data:`SIDE_MISFIT_SHARE`): one side, or one side each of two
    markers, whichever leaves the plane fitting best; none when the misfit is spread."""
    ideal, table = view.fit_ideal, view.fit_table
    n = len(ideal)
    if n < 12 or n != 4 * len(view.used) or len(view.fit_table) != n:
        return []
    full, _ = _plane_rms(ideal, table, np.ones(n, bool))
    if not full > SIDE_MISFIT_PX:
        return []
    sides = [(i, k) for i in range(n // 4) for k in range(4)]

    def drop(chosen: tuple[tuple[int, int], ...]) -> np.ndarray:
        keep = np.ones(n, bool)
        for i, k in chosen:
            keep[[4 * i + k, 4 * i + (k + 1) % 4]] = False
        return keep

    fits: dict[tuple[tuple[int, int], ...], float] = {}

    def fit(chosen: tuple[tuple[int, int], ...]) -> float:
        if chosen not in fits:
            keep = drop(chosen)
            fits[chosen] = _plane_rms(ideal, table, keep)[0] if keep.sum() >= 10 else math.inf
        return fits[chosen]

    tries: list[tuple[tuple[int, int], ...]] = [(a,) for a in sides]
    # Pairs only of the sides that help most alone (a covered side is among them: leaving
    # it out removes most of the misfit); every pair of a real photo's misfit costs 0.3 ms.
    helpful = sorted(sides, key=lambda a: fit((a,)))[:PAIR_SIDES]
    tries += [(a, b) for a in sides for b in sides if a[0] < b[0] and a in helpful and
              b in helpful]
    best, best_rms = None, math.inf
    for chosen in tries:
        rms = fit(chosen)
        if rms < best_rms - 1e-9:
            best, best_rms = chosen, rms
    if best is None or best_rms * SIDE_MISFIT_SHARE > full:
        return []
    # One side may be enough: take the pair only when it fits clearly better.
    singles = [c for c in tries if len(c) == 1 and set(c) <= set(best)]
    for c in singles:
        rms = fit(c)
        if rms * SIDE_MISFIT_SHARE <= full and rms <= 1.5 * best_rms:
            best = c
            break
    return [(view.used[i], k) for i, k in best]


def _mend_sides(table_seen: dict[int, np.ndarray], view: TableView,
                covered: list[tuple[int, int]]) -> dict[int, np.ndarray]:
    """The table markers' corners with each covered side's two corners put where the plane
    through every other corner places them (raw px)."""
    ideal, table = view.fit_ideal, view.fit_table
    keep = np.ones(len(ideal), bool)
    for mid, k in covered:
        i = view.used.index(mid)
        keep[[4 * i + k, 4 * i + (k + 1) % 4]] = False
    _, H = _plane_rms(ideal, table, keep)
    out = {m: c.copy() for m, c in table_seen.items()}
    if H is None:
        return out
    for mid, k in covered:
        i = view.used.index(mid)
        for j in (k, (k + 1) % 4):
            out[mid][j] = view.intr.distort(apply_h(H, table[4 * i + j][None]))[0]
    return out


def _intrinsics(shape: tuple[int, ...], fov_deg: float | None,
                calibration: Intrinsics | None) -> Intrinsics:
    h, w = shape[:2]
    if calibration is not None:
        return calibration.scaled_to(w, h)
    return Intrinsics.nominal(w, h, fov_deg or DEFAULT_FOV_DEG)


def _table(table_seen: dict[int, np.ndarray], ms: MarkerSet, shape: tuple[int, ...], *,
           fov_deg: float | None, calibration: Intrinsics | None, parallax: bool,
           estimate_distortion: bool, k1: float | None = None) -> tuple[TableView, list[str]]:
    """The table view (step 2) and what to warn about it. With a camera calibration the table
    is also fitted without one, to tell a calibration that does not fit this photo; ``k1``
    (no calibration) is the lens's radial term to use."""
    nominal = None
    if calibration is not None:
        try:
            nominal = calibrate_table(table_seen, ms, _intrinsics(shape, fov_deg, None),
                                      estimate_distortion=estimate_distortion)
        except DetectionError:
            nominal = None
    intr = _intrinsics(shape, fov_deg, calibration)
    if k1 is not None:
        intr = intr.with_dist([k1, 0, 0, 0, 0])
    try:
        view = calibrate_table(table_seen, ms, intr, estimate_distortion=estimate_distortion)
    except DetectionError as e:
        if nominal is None:
            raise
        raise DetectionError(f"{e}, through the camera calibration given; without it they "
                             "fit: is the calibration of this camera at this zoom?") from None
    if calibration is None and parallax:
        first = corner_scatter([(view.residual_ss_px, view.residual_dof)])
        view = refine_focal(view, table_covariance(view.H, view.fit_ideal, view.fit_table,
                                                   first))
    focal_warnings: list[str] = []
    if calibration is not None and parallax:
        first = corner_scatter([(view.residual_ss_px, view.residual_dof)])
        view, focal_warnings = check_calibrated_focal(
            view, table_covariance(view.H, view.fit_ideal, view.fit_table, first))
    if not parallax:
        view.centre = np.array([view.centre[0], view.centre[1], 1e12])
    warnings = []
    if view.missing:
        warnings.append(f"table markers not seen: {view.missing} (calibrated from {view.used})")
    if view.outliers:
        warnings.append(f"table markers {view.outliers} do not fit the others (moved?) and "
                        "were not used")
    warnings += calibration_warnings(calibration, (shape[1], shape[0]), view, nominal)
    warnings += focal_warnings
    if parallax:
        warnings += assumed_focal_warning(view, [u.height_mm for u in ms.units],
                                          fov_deg or DEFAULT_FOV_DEG,
                                          calibration is not None or fov_deg is not None)
    return view, warnings


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


def _lens_fit(view: TableView, tray_seen: dict[int, list[np.ndarray]], ms: MarkerSet,
              start: float | None = None) -> LensFit:
    """The lens's radial term from the table markers and every tray marker seen once."""
    quads, sizes, z = [], [], []
    for mid, qs in tray_seen.items():
        if len(qs) == 1:
            um = ms.unit_by_marker[mid]
            quads.append(qs[0])
            sizes.append(um.marker_size_mm)
            z.append(um.height_mm)
    return fit_k1(view, view.fit_raw, np.array(quads, np.float64).reshape(-1, 4, 2),
                  np.array(sizes, np.float64), np.array(z, np.float64), start)


def _lens_view(view: TableView, warnings: list[str], table_seen: dict[int, np.ndarray],
               tray_seen: dict[int, list[np.ndarray]], ms: MarkerSet, shape: tuple[int, ...],
               table_kw: dict[str, Any]) -> tuple[TableView, list[str]]:
    """The table view through the lens fitted to every marker (no calibration), started from
    the table's own estimate (8+ border markers). A fit that makes the table markers fit
    their plane worse than the table's own estimate does (or not at all) does not replace it;
    the radial term's sigma is the one of the estimate in use."""
    own = view.k1_estimated
    lens = _lens_fit(view, tray_seen, ms, own)
    if lens.measured and abs(lens.k1 - (own or 0.0)) > 0.5 * lens.sigma:
        try:
            refit, refit_warnings = _table(table_seen, ms, shape, k1=lens.k1, **table_kw)
        except DetectionError:
            refit = None
        if refit is not None and (own is None or (
                refit.residual_px <= 1.5 * view.residual_px + 0.1
                and len(refit.outliers) <= len(view.outliers))):
            view, warnings = refit, refit_warnings
        elif own is not None:
            # The table's estimate stands; its sigma is the fit's, widened by how far the
            # tray markers' fit pulls from it.
            view.k1_sigma = math.hypot(lens.sigma, MODEL_SHARE * own)
            return view, warnings
    if lens.measured:
        view.k1_estimated = lens.k1
        view.k1_sigma = lens.sigma
    else:
        view.k1_sigma = math.hypot(lens.sigma, MODEL_SHARE * (own or 0.0))
    return view, warnings


BENT_TABLE_FACTOR = 3.0
"""The table markers' corners scattering about their plane by more than this many times the
tray markers' corners about their squares (both per axis) ..."""
BENT_TABLE_MIN_PX = 0.25
"""... and by more than this (RMS, px): the plane through the lens model in use does not hold
the table (on rendered tables they scatter alike, 0.03-0.1 px; on real photos 0.1-0.45 px
against 0.23-0.42 px)."""


def _bent_table(view: TableView, found: list[tuple[Any, MarkerFix, np.ndarray]],
                calibrated: bool) -> list[str]:
    """A table plane the table markers fit far worse than the photo's corners scatter, through
    the lens model in use: the lens bends the table more than the model explains. The misfit,
    read as a radial term (:func:`vision.lens.unexplained_k1`), is added to the lens's
    uncertainty, so every unit's sigma covers the bend between the markers, and said by
    name."""
    if view.residual_px <= BENT_TABLE_MIN_PX or view.residual_dof <= 0:
        return []
    table_px = math.sqrt(view.residual_ss_px / view.residual_dof)
    tray_px = None
    if found:
        raws = np.array([raw for _, _, raw in found], np.float64).reshape(-1, 4, 2)
        q = np.array([fix.corners_mm for _, fix, _ in found]).reshape(-1, 4, 2)
        z = np.array([um.height_mm for um, _, _ in found], np.float64)
        ss = square_residuals(view, raws, q, z)
        tray_px = max(math.sqrt(float(ss.sum()) / (4 * len(ss))), CORNER_FLOOR_PX)
        # Scale-aware: the table's misfit against the corners' own scatter in this photo (an
        # upscaled or soft photo scatters every corner by more pixels, the lens has no part
        # in it: outside testing round 4 read 1.5 px of such scatter as a bent table).
        if table_px <= BENT_TABLE_FACTOR * tray_px:
            return []
    elif view.residual_px <= 3 * USUAL_TABLE_RESIDUAL_PX:
        return []
    extra = unexplained_k1(view)
    if extra <= 0:
        return []
    view.k1_sigma = math.hypot(view.k1_sigma, extra)
    if calibrated:  # calibration_warnings says so
        return []
    return [lens_bend_warning(view, tray_px)]


def _sort_found(found: list[tuple[int, np.ndarray]], ms: MarkerSet,
                ) -> tuple[dict[int, np.ndarray], dict[int, list[np.ndarray]], list[int]]:
    """The markers found, as table markers (id -> corners), tray markers (id -> every quad
    that decoded as it) and ids of neither."""
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
    return table_seen, tray_seen, unknown


def _units_found(ms: MarkerSet, tray_seen: dict[int, list[np.ndarray]], view: TableView,
                 warnings: list[str]) -> tuple[list[tuple[Any, MarkerFix, np.ndarray]],
                                               list[str], list[dict[str, Any]],
                                               set[tuple[int, int]]]:
    """Each unit's marker measured on the table: the units found (unit, fix, corners), the ids
    of those not found, the look-alikes rejected (with ``warnings`` added) and which quads
    those were (marker id, index in ``tray_seen[id]``)."""
    missing: list[str] = []
    rejected: list[dict[str, Any]] = []
    bad: set[tuple[int, int]] = set()
    looked = [(um, i, q) for um in ms.units
              for i, q in enumerate(tray_seen.get(um.marker, []))]
    measured = measure_markers([q for _, _, q in looked], view, [um for um, _, _ in looked])
    by_unit: dict[str, list[tuple[MarkerFix, np.ndarray, int]]] = {}
    for (um, i, q), fix in zip(looked, measured, strict=True):
        by_unit.setdefault(um.id, []).append((fix, q, i))
    found_units = []
    for um in ms.units:
        fixes = []
        for fix, q, i in by_unit.get(um.id, []):
            if fix.problem:
                rejected.append({"marker": um.marker, "unit": um.id, "reason": fix.problem})
                warnings.append(fix.problem)
                bad.add((um.marker, i))
            else:
                fixes.append((fix, q))
        if len(fixes) > 1:
            where = ", ".join(f"({f.centre[0]:.0f}, {f.centre[1]:.0f})" for f, _ in fixes)
            raise DetectionError(f"tray marker {um.marker} of unit '{um.id}' is seen twice (at "
                                 f"{where} mm): each tray marker must be unique")
        if not fixes:
            missing.append(um.id)
            warnings.append(f"unit '{um.id}' not found (marker {um.marker} not seen"
                            + (", a look-alike was rejected)" if tray_seen.get(um.marker)
                               else ")"))
            continue
        found_units.append((um, *fixes[0][:2]))
    return found_units, missing, rejected, bad


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
    table_seen, tray_seen, unknown = _sort_found(find_markers(gray, ms), ms)
    timings["markers"] = (time.perf_counter() - t) * 1000

    t = time.perf_counter()
    table_kw = dict(fov_deg=fov_deg, calibration=calibration, parallax=parallax,
                    estimate_distortion=estimate_distortion)
    try:
        view0, warnings0 = _table(table_seen, ms, gray.shape, **table_kw)
    except DetectionError as e:
        cut = _cut_short(gray)
        if cut:
            raise DetectionError(
                f"the photo file looks broken: the bottom {cut:.0%} of the picture is one flat "
                f"grey, as a cut-short or corrupt JPEG decodes ({e})") from None
        raise
    covered = _covered_sides(view0)
    if covered:
        table_seen = _mend_sides(table_seen, view0, covered)
        view0, warnings0 = _table(table_seen, ms, gray.shape, **table_kw)
        ids = sorted({m for m, _ in covered})
        names = ", ".join(map(str, ids))
        warnings0.append(
            f"table marker{'s' * (len(ids) > 1)} {names}: a side is hidden or not straight "
            f"(partly covered?), so {'their' if len(ids) > 1 else 'its'} other corners placed "
            "the table; uncover them for a firmer calibration")
    view, warnings = view0, list(warnings0)
    fit_lens = calibration is None and estimate_distortion
    if fit_lens:
        view, warnings = _lens_view(copy.copy(view0), list(warnings0), table_seen, tray_seen,
                                    ms, gray.shape, table_kw)
    timings["table"] = (time.perf_counter() - t) * 1000

    t = time.perf_counter()
    found_units, missing, rejected, bad = _units_found(ms, tray_seen, view, list(warnings))
    excluded: set[tuple[int, int]] = set()
    for _ in range(2):
        # A look-alike (or a marker printed at another scale) that entered the lens fit is
        # evidence of a lens that is not there: fit again without the quads rejected, and
        # measure the units through that lens (outside testing round 4, F2).
        in_fit = {(m, i) for m, qs in tray_seen.items() for i in range(len(qs))
                  if sum((m, j) not in excluded for j in range(len(qs))) == 1}
        if not fit_lens or not bad & in_fit:
            break
        excluded |= bad
        lens_seen = {m: [q for i, q in enumerate(qs) if (m, i) not in excluded]
                     for m, qs in tray_seen.items()}
        view, warnings = _lens_view(copy.copy(view0), list(warnings0), table_seen, lens_seen,
                                    ms, gray.shape, table_kw)
        found_units, missing, rejected, bad = _units_found(ms, tray_seen, view,
                                                           list(warnings))
        bad -= excluded
    found_units, missing, rejected, _ = _units_found(ms, tray_seen, view, warnings)
    warnings += _bent_table(view, found_units, calibration is not None)
    trays, scatter, t_edges = tray_poses(gray, view, found_units, refine=refine,
                                         calibrated=calibration is not None)
    timings.update(t_edges)
    warnings += three_marker_warning(view, trays)
    timings["trays"] = (time.perf_counter() - t) * 1000
    timings["total"] = (time.perf_counter() - t0) * 1000  # detection plus poses

    extra = ms.model_extra or {}
    scene: dict[str, Any] = {
        "table": {"width_mm": ms.table.width_mm, "depth_mm": ms.table.depth_mm},
        "terrain": list(extra.get("terrain", [])),
        "units": [tp.scene_unit() for tp in trays],
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
        **_view_report(view, scatter, parallax),
        "calibration": calibration is not None,
        "image_size": [int(gray.shape[1]), int(gray.shape[0])],
        "units": {tp.unit.id: tp.detection() for tp in trays},
        "table_to_image": np.round(view.Hinv / view.Hinv[2, 2], 9).tolist(),
        "timings_ms": {k: round(v, 1) for k, v in timings.items()},
    }
    return scene, view


def _view_report(view: TableView, scatter: Scatter, parallax: bool) -> dict[str, Any]:
    """What the table calibration found, for ``detection``."""
    return {
        "table_markers_used": view.used,
        "table_markers_missing": view.missing,
        "table_residual_mm": round(view.residual_mm, 3),
        "table_residual_px": round(view.residual_px, 3),
        "corner_scatter_px": {"used": round(scatter.px, 3),
                              "measured": None if scatter.measured_px is None
                              else round(scatter.measured_px, 3), "dof": scatter.dof},
        "camera_mm": [round(float(v), 1) for v in view.centre] if parallax else None,
        "lens_k1_estimated": None if view.k1_estimated is None else round(view.k1_estimated, 5),
        "lens_k1_sigma": round(view.k1_sigma, 5),
        "focal_px": round(float(view.intr.K[0, 0]), 1),
        "focal_from_table_px": None if view.focal_estimate is None
        else [round(v, 1) for v in view.focal_estimate],
    }
