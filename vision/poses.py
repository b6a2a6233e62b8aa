"""Every found tray's pose and uncertainty: marker pose, its covariance, the outline fit, the
fusion of the two (the third step of :func:`vision.detect`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from geometry import Pose

from .fusion import Fused, fuse
from .markers import UnitMarker
from .outline import edge_points, fit_outlines, search_reach_mm
from .table import TableView
from .trays import MarkerFix
from .uncertainty import (
    FOCAL_CALIBRATED,
    FOCAL_PRIOR,
    Scatter,
    corner_scatter,
    marker_poses,
    pose_covariances,
    sigma_deg,
    sigma_mm,
    square_residuals,
    table_covariance,
    widen_facing,
)


@dataclass
class TrayPose:
    """A found unit: its marker measurement, the fused pose and what each source of error
    contributes to the position's sigma (mm)."""

    unit: UnitMarker
    fix: MarkerFix
    fused: Fused
    sigma_parts: dict[str, float]

    def scene_unit(self) -> dict[str, Any]:
        """The unit as scene JSON (DESIGN.md, Scene) with its uncertainty and evidence."""
        p, cov = self.fused.pose, self.fused.cov
        unit = self.unit.scene_fields()
        unit.update(x=round(p.x, 3), y=round(p.y, 3), facing=round(p.facing, 4),
                    sigma_mm=round(sigma_mm(cov[:2, :2]), 3),
                    sigma_deg=round(sigma_deg(cov), 4),
                    pose_evidence={"used": self.fused.evidence, "why": self.fused.why})
        return unit

    def detection(self) -> dict[str, Any]:
        """The unit's entry in the scene's ``detection.units``."""
        return {"marker": self.unit.marker, "method": self.fused.evidence,
                "why": self.fused.why,
                "marker_px": round(self.fix.px_per_mm * self.unit.marker_size_mm, 1),
                "sigma_mm_from": self.sigma_parts, **self.fused.info}


def photo_scatter(view: TableView, raws: np.ndarray, fixes: list[MarkerFix],
                  z: np.ndarray) -> tuple[Scatter, np.ndarray]:
    """The photo's corner scatter (table markers against the plane, tray markers against their
    best squares) and each tray marker's own (:meth:`Scatter.per_marker`)."""
    q = np.array([f.corners_mm for f in fixes]).reshape(-1, 4, 2)
    ss = square_residuals(view, raws, q, z)
    scatter = corner_scatter([(view.residual_ss_px, view.residual_dof)]
                             + [(float(s), 4) for s in ss])
    return scatter, scatter.per_marker(ss)


def tray_poses(gray: np.ndarray, view: TableView,
               found: list[tuple[UnitMarker, MarkerFix, np.ndarray]], *, refine: bool = True,
               calibrated: bool = False) -> tuple[list[TrayPose], Scatter, dict[str, float]]:
    """Pose, covariance and evidence of every found tray (unit, its marker fix, raw corners),
    the photo's corner scatter, and the time (ms) the outline's edges took."""
    import time

    units = [um for um, _, _ in found]
    fixes = [fix for _, fix, _ in found]
    raws = np.array([raw for _, _, raw in found], np.float64).reshape(-1, 4, 2)
    z = np.array([u.height_mm for u in units], np.float64)
    off = np.array([u.marker_offset_mm for u in units], np.float64).reshape(-1, 2)
    scatter, own = photo_scatter(view, raws, fixes, z)
    if not units:
        return [], scatter, {"outline_edges": 0.0}
    # The table markers' own fit says how well one plane (through the lens model in use) holds
    # them: where it fits worse than the photo's corners scatter (an uncorrected lens, paper
    # that is not flat), the table's uncertainty is that worse fit's.
    own_fit = corner_scatter([(view.residual_ss_px, view.residual_dof)])
    table_scatter = own_fit if own_fit.px > scatter.px else scatter
    tcov = table_covariance(view.H, view.fit_ideal, view.fit_table, table_scatter)
    poses = marker_poses(view, raws, z, off)
    focal = view.focal_sigma or (FOCAL_CALIBRATED if calibrated else FOCAL_PRIOR)
    parts = pose_covariances(view, raws, z, off, own, tcov, focal)
    # The marker and the outline are both read through the same table plane and camera
    # centre: they are fused on what is their own (the corners, the edges), and the table's
    # and camera's errors, common to both, are added after.
    local = parts["corners"]
    common = parts["table"] + parts["lens"] + parts["camera"]
    markers = [Pose(float(p[0]), float(p[1]), float(np.degrees(p[2]))) for p in poses]
    t = time.perf_counter()
    fits = [None] * len(units)
    if refine:
        reach = np.array([search_reach_mm(um, c) for um, c in zip(units, local, strict=True)])
        edges = edge_points(gray, view, list(zip(units, markers, strict=True)), reach)
        fits = fit_outlines(edges, units, markers, np.linalg.inv(local))
    timing = {"outline_edges": (time.perf_counter() - t) * 1000}
    out = []
    for k, (um, fix) in enumerate(zip(units, fixes, strict=True)):
        fused = fuse(markers[k], local[k], fits[k], um, fix.px_per_mm)
        share = {name: round(sigma_mm(c[k][:2, :2]), 3) for name, c in parts.items()}
        share["corners"] = round(sigma_mm(fused.cov[:2, :2]), 3)
        fused.cov = fused.cov + common[k]
        if fused.evidence == "marker+outline":
            fused.cov = widen_facing(fused.cov)
        out.append(TrayPose(um, fix, fused, share))
    return out, scatter, timing
