"""Photo -> scene and scene -> pictures (DESIGN.md, ``vision/``).

``detect(image, markers) -> scene dict`` is the entry point; failures are
:class:`DetectionError` / :class:`MarkersError`, both ``ValueError`` subclasses.
"""

from .camera import Camera, Intrinsics
from .detect import detect
from .errors import CalibrationError, DetectionError, MarkersError, VisionError
from .markers import MarkerSet, load_markers

__all__ = ["detect", "DetectionError", "MarkersError", "CalibrationError", "VisionError",
           "MarkerSet", "load_markers", "Intrinsics", "Camera"]
