"""Camera calibration from photos of a ChArUco board (``umpire calibrate``).

A calibration removes the lens distortion (a mild barrel lens, k1 = -0.05, moves table points by
about 5 mm at the edges if ignored) and gives the true focal length for the parallax
correction. ChArUco boards give identified, sub-pixel chessboard corners even when only part of
the board is visible, which is how phone photos of a board usually come out.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .camera import Intrinsics
from .errors import CalibrationError

MIN_VIEWS = 3
MIN_CORNERS = 8


@dataclass(frozen=True)
class BoardSpec:
    """A ChArUco board: squares across and down, square and marker sides (mm), dictionary."""

    squares_x: int = 7
    squares_y: int = 5
    square_mm: float = 30.0
    marker_mm: float = 22.0
    dictionary: str = "DICT_4X4_50"

    def board(self) -> cv2.aruco.CharucoBoard:
        if not hasattr(cv2.aruco, self.dictionary):
            raise CalibrationError(f"unknown ArUco dictionary '{self.dictionary}'")
        if self.marker_mm >= self.square_mm:
            raise CalibrationError("marker_mm must be smaller than square_mm")
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard((self.squares_x, self.squares_y), self.square_mm,
                                      self.marker_mm, d)


def board_views(images: list[np.ndarray], spec: BoardSpec,
                ) -> tuple[list[np.ndarray], list[np.ndarray], tuple[int, int], list[int]]:
    """Object and image points of every photo where enough board corners are seen; also the
    image size and how many corners each photo gave (0 for unusable photos)."""
    board = spec.board()
    detector = cv2.aruco.CharucoDetector(board)
    obj_pts, img_pts, counts = [], [], []
    size: tuple[int, int] | None = None
    for k, img in enumerate(images):
        if not isinstance(img, np.ndarray) or img.ndim not in (2, 3):
            raise CalibrationError(f"photo {k + 1}: not an image")
        gray = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        s = (gray.shape[1], gray.shape[0])
        if size is None:
            size = s
        elif s != size:
            raise CalibrationError(f"photo {k + 1}: {s[0]}x{s[1]} pixels, but the first photo "
                                   f"is {size[0]}x{size[1]}; use one camera setting")
        ch_corners, ch_ids, _, _ = detector.detectBoard(gray)
        n = 0 if ch_ids is None else len(ch_ids)
        counts.append(n)
        if n < MIN_CORNERS:
            continue
        obj, imgp = board.matchImagePoints(ch_corners, ch_ids)
        obj_pts.append(obj.reshape(-1, 3).astype(np.float32))
        img_pts.append(imgp.reshape(-1, 2).astype(np.float32))
    if size is None:
        raise CalibrationError("no photos given")
    return obj_pts, img_pts, size, counts


HINT_FAMILIES = ("DICT_4X4", "DICT_5X5", "DICT_6X6", "DICT_7X7")
HINT_RATIOS = (0.5, 0.6, 0.7, 0.75, 0.8)  # marker side / square side of common boards


def _gray(img: np.ndarray) -> np.ndarray:
    return img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)


def _markers_seen(grays: list[np.ndarray], dictionary: str) -> tuple[set[int], float]:
    """The ids of a dictionary's markers in the photos, and the marker/square ratio their
    spacing suggests (on a ChArUco board a marker's nearest neighbour sits one square's
    diagonal away)."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    det = cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters())
    ids: set[int] = set()
    ratios = []
    for g in grays:
        corners, found, _ = det.detectMarkers(g)
        if found is None:
            continue
        ids |= set(found.ravel().tolist())
        quads = np.array([c.reshape(4, 2) for c in corners])
        if len(quads) >= 2:
            centres = quads.mean(axis=1)
            dist = np.linalg.norm(centres[:, None] - centres[None], axis=2)
            np.fill_diagonal(dist, np.inf)
            side = np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2).mean(axis=1)
            ratios += list(side / (dist.min(axis=1) / np.sqrt(2)))
    return ids, float(np.median(ratios)) if ratios else 0.7


def board_hint(images: list[np.ndarray], spec: BoardSpec) -> str:
    """What the photos show when the board of ``spec`` is not found: the dictionary whose
    markers they carry, and the board sizes (squares across x down, marker/square ratio) with
    which ChArUco corners are found, as the options of ``umpire calibrate`` to try."""
    grays = [_gray(img) for img in images[:3] if isinstance(img, np.ndarray) and img.ndim in (2, 3)]
    best: tuple[str, set[int], float] = ("", set(), 0.7)
    for family in HINT_FAMILIES:
        ids, ratio_seen = _markers_seen(grays, family + "_1000")
        if len(ids) > len(best[1]):
            best = (family, ids, ratio_seen)
    family, ids, ratio_seen = best
    if len(ids) < 4:
        return ("no ArUco markers of the 4x4 to 7x7 dictionaries are seen either: is the board "
                "in the photos, sharp and well lit?")
    n = max(ids) + 1  # a ChArUco board numbers its markers from 0
    size = next(k for k in (50, 100, 250, 1000) if k >= n)
    dictionary = f"{family}_{size}"
    text = (f"the photos show {len(ids)} markers of {family}_* (ids {min(ids)}-{max(ids)}): "
            f"try --dictionary {dictionary}")
    tried = []
    for a in range(3, 16):
        for b in range(3, 16):
            if (a * b) // 2 != n:
                continue
            for ratio in HINT_RATIOS:
                trial = BoardSpec(a, b, spec.square_mm, spec.square_mm * ratio, dictionary)
                counts = board_views(grays, trial)[3]
                tried.append((sum(counts), -abs(ratio - ratio_seen), a, b, ratio))
    if tried:
        corners, _, a, b, ratio = max(tried)
        if corners >= MIN_CORNERS:
            text += (f" --squares {a}x{b} with markers {ratio:g} of the square (e.g. "
                     f"--square-mm 40 --marker-mm {40 * ratio:g}: {corners} corners found)")
        else:
            text += f" and --squares with {n} markers (e.g. {tried[0][2]}x{tried[0][3]})"
    return text


def calibrate(images: list[np.ndarray], spec: BoardSpec = BoardSpec(),
              model: str = "k1k2") -> tuple[Intrinsics, float, list[int]]:
    """Intrinsics from ChArUco photos, the RMS reprojection error (px) and the corners found per
    photo. ``model``: ``k1k2`` (radial only, robust with few photos) or ``full`` (k1, k2, p1,
    p2, k3)."""
    obj_pts, img_pts, size, counts = board_views(images, spec)
    if len(obj_pts) < MIN_VIEWS:
        looked = (f"a ChArUco board of {spec.squares_x}x{spec.squares_y} squares "
                  f"({spec.square_mm:g} mm squares, {spec.marker_mm:g} mm markers, "
                  f"{spec.dictionary})")
        if not any(counts):
            raise CalibrationError(f"looked for {looked} and found none in {len(images)} "
                                   f"photos; {board_hint(images, spec)}")
        raise CalibrationError(f"looked for {looked}: it is seen in {len(obj_pts)} of "
                               f"{len(images)} photos (corners per photo: {counts}); at least "
                               f"{MIN_VIEWS} photos from different angles are needed")
    flags = cv2.CALIB_FIX_ASPECT_RATIO
    if model == "k1k2":
        flags |= cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K3
    elif model != "full":
        raise CalibrationError(f"unknown distortion model '{model}' (k1k2 or full)")
    w, h = size
    f0 = max(w, h)
    K0 = np.array([[f0, 0, (w - 1) / 2], [0, f0, (h - 1) / 2], [0, 0, 1]], float)
    rms, K, dist, _, _ = cv2.calibrateCamera(obj_pts, img_pts, size, K0, np.zeros(5),
                                             flags=flags | cv2.CALIB_USE_INTRINSIC_GUESS)
    if not np.isfinite(rms) or K[0, 0] <= 0:
        raise CalibrationError("calibration did not converge; take photos from more angles")
    return Intrinsics(K, np.asarray(dist, float).ravel()[:5], size), float(rms), counts
