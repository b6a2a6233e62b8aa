"""Pinhole camera with OpenCV's lens-distortion model, and calibration files.

The detector works on *ideal* (undistorted) pixel coordinates: a calibration file, or the
radial term estimated from the table markers, maps raw detections there first. Without either,
intrinsics are nominal: principal point at the image centre, square pixels and a focal length
from a horizontal field of view, which is all the parallax correction needs (it only uses the
camera centre, and a 10% focal error moves a 2 mm parallax shift by 0.2 mm).

Calibration JSON (written by ``umpire calibrate``)::

    {"image_size": [w, h], "camera_matrix": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]],
     "dist_coeffs": [k1, k2, p1, p2, k3], "rms_px": 0.4}
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .errors import CalibrationError

DEFAULT_FOV_DEG = 65.0
"""Horizontal field of view assumed without a calibration: a phone's main camera or a webcam."""

PRINCIPAL_POINT_SHARE = 0.25
"""A calibration's principal point further than this share of the image's width (height) from
its centre is refused: real cameras put it within a few percent, and a wrong one moves every
unit by millimetres with no sign in the table's fit (outside testing round 4: cx = 5000 in a
1920-wide photo put units 12 mm off, all "certain")."""
DIST_LIMITS = (10.0, 100.0, 1.0, 1.0)
"""The largest k1, k2, p1, p2 a calibration file may give (OpenCV's normalised model): strong
wide-angle lenses calibrate to |k1| < 1, |k2| of a few, |p1|, |p2| < 0.05."""


@dataclass(frozen=True)
class Intrinsics:
    """Camera matrix, distortion coefficients (OpenCV order) and the image size they belong to."""

    K: np.ndarray
    dist: np.ndarray = field(default_factory=lambda: np.zeros(5))
    size: tuple[int, int] = (0, 0)

    @classmethod
    def nominal(cls, width: int, height: int, fov_deg: float = DEFAULT_FOV_DEG,
                k1: float = 0.0) -> Intrinsics:
        f = (width / 2) / math.tan(math.radians(fov_deg) / 2)
        K = np.array([[f, 0, (width - 1) / 2], [0, f, (height - 1) / 2], [0, 0, 1]], float)
        return cls(K, np.array([k1, 0, 0, 0, 0], float), (width, height))

    @property
    def f(self) -> float:
        return float((self.K[0, 0] + self.K[1, 1]) / 2)

    @property
    def distorted(self) -> bool:
        return bool(np.any(np.abs(self.dist) > 1e-12))

    def scaled_to(self, width: int, height: int) -> Intrinsics:
        """The same lens at another image size (a calibration made on 4K used on 1080p)."""
        if self.size == (width, height) or self.size == (0, 0):
            return self
        sx, sy = width / self.size[0], height / self.size[1]
        if abs(sx - sy) > 0.01 * sx:
            raise CalibrationError(f"calibration is for {self.size[0]}x{self.size[1]} images, "
                                   f"not {width}x{height} (another aspect ratio)")
        K = self.K.copy()
        K[0] *= sx
        K[1] *= sy
        # Pixel centres: (c + 0.5) * s - 0.5.
        K[0, 2] = (self.K[0, 2] + 0.5) * sx - 0.5
        K[1, 2] = (self.K[1, 2] + 0.5) * sy - 0.5
        return Intrinsics(K, self.dist.copy(), (width, height))

    def with_dist(self, dist: np.ndarray) -> Intrinsics:
        return Intrinsics(self.K.copy(), np.asarray(dist, float).ravel(), self.size)

    def undistort(self, pts: np.ndarray) -> np.ndarray:
        """Raw pixel coordinates (N, 2) to ideal pixel coordinates."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        if not self.distorted or len(pts) == 0:
            return pts.copy()
        out = cv2.undistortPoints(pts.reshape(-1, 1, 2), self.K, self.dist, P=self.K,
                                  criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS,
                                            40, 1e-10))
        return out.reshape(-1, 2)

    def distort(self, pts: np.ndarray) -> np.ndarray:
        """Ideal pixel coordinates (N, 2) to raw pixel coordinates."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        if not self.distorted or len(pts) == 0:
            return pts.copy()
        Kinv = np.linalg.inv(self.K)
        n = np.c_[pts, np.ones(len(pts))] @ Kinv.T
        raw, _ = cv2.projectPoints(n.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), self.K,
                                   self.dist)
        return raw.reshape(-1, 2)

    def to_json(self, rms_px: float | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"image_size": list(self.size),
                                "camera_matrix": self.K.tolist(),
                                "dist_coeffs": self.dist.ravel().tolist()}
        if rms_px is not None:
            data["rms_px"] = rms_px
        return data

    @classmethod
    def from_json(cls, data: Any, what: str = "calibration") -> Intrinsics:
        if not isinstance(data, dict):
            raise CalibrationError(f"{what}: must be a JSON object")
        try:
            K = np.array(data["camera_matrix"], float)
            dist = np.array(data.get("dist_coeffs", [0, 0, 0, 0, 0]), float).ravel()
            size = tuple(int(v) for v in data["image_size"])
        except KeyError as e:
            raise CalibrationError(f"{what}: {e.args[0]}: missing") from None
        except (TypeError, ValueError) as e:
            raise CalibrationError(f"{what}: not numbers ({e})") from None
        if K.shape != (3, 3) or not np.all(np.isfinite(K)) or K[0, 0] <= 0 or K[1, 1] <= 0 \
                or not np.allclose(K[2], [0, 0, 1]) or K[1, 0] != 0:
            raise CalibrationError(f"{what}: camera_matrix: must be a 3x3 camera matrix "
                                   "[[fx, s, cx], [0, fy, cy], [0, 0, 1]] with positive focal "
                                   "lengths")
        if dist.size not in (4, 5, 8, 12, 14) or not np.all(np.isfinite(dist)):
            raise CalibrationError(f"{what}: dist_coeffs: must be 4, 5, 8, 12 or 14 numbers")
        if len(size) != 2 or min(size) <= 0:
            raise CalibrationError(f"{what}: image_size: must be [width, height]")
        w, h = size
        cx, cy = float(K[0, 2]), float(K[1, 2])
        if abs(cx - (w - 1) / 2) > PRINCIPAL_POINT_SHARE * w \
                or abs(cy - (h - 1) / 2) > PRINCIPAL_POINT_SHARE * h:
            where = "outside the image" if not (0 <= cx < w and 0 <= cy < h) else \
                f"more than {PRINCIPAL_POINT_SHARE:.0%} of the image from its centre"
            raise CalibrationError(
                f"{what}: camera_matrix: the principal point (cx, cy) = ({cx:g}, {cy:g}) is "
                f"{where} ({w}x{h}, centre ({(w - 1) / 2:g}, {(h - 1) / 2:g})); no camera "
                "is like that: is the file edited, or of another image size?")
        worst = [(name, float(v), limit) for name, v, limit in
                 zip(("k1", "k2", "p1", "p2"), dist[:4], DIST_LIMITS, strict=False)
                 if abs(v) > limit]
        if worst:
            name, v, limit = worst[0]
            raise CalibrationError(
                f"{what}: dist_coeffs: {name} = {v:g} is not a lens (|{name}| above {limit:g}; "
                "even a fisheye webcam's is within a few units): is the file edited, or "
                "the coefficients in another order or model?")
        return cls(K, dist, (w, h))

    @classmethod
    def load(cls, path: str | Path) -> Intrinsics:
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8-sig"))
        except OSError as e:
            raise CalibrationError(f"calibration {p}: cannot read ({e.strerror})") from None
        except json.JSONDecodeError as e:
            raise CalibrationError(f"calibration {p}: not valid JSON ({e.msg})") from None
        return cls.from_json(data, f"calibration {p}")


@dataclass(frozen=True)
class Camera:
    """Intrinsics plus pose: world (table mm, z up) to camera is ``x_c = R @ X + t``."""

    intr: Intrinsics
    R: np.ndarray
    t: np.ndarray

    @property
    def centre(self) -> np.ndarray:
        return -self.R.T @ self.t

    def project(self, pts3: np.ndarray, distort: bool = True) -> np.ndarray:
        """World points (N, 3) to pixels; ideal pixels with ``distort=False``."""
        pts3 = np.asarray(pts3, np.float64).reshape(-1, 3)
        pc = pts3 @ self.R.T + self.t
        uv = pc[:, :2] / pc[:, 2:3]
        px = uv @ self.intr.K[:2, :2].T + self.intr.K[:2, 2]
        return self.intr.distort(px) if distort else px

    def plane_homography(self, z: float = 0.0) -> np.ndarray:
        """Homography from table coordinates at height ``z`` to ideal pixels."""
        M = np.c_[self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + self.t]
        return self.intr.K @ M

    def depth(self, pts3: np.ndarray) -> np.ndarray:
        pts3 = np.asarray(pts3, np.float64).reshape(-1, 3)
        return (pts3 @ self.R.T + self.t)[:, 2]
