"""Errors of the vision package: all ``ValueError`` subclasses, so callers (CLI exit code 2,
HTTP 4xx) treat them as bad input, and every message names what is wrong."""

from __future__ import annotations


class VisionError(ValueError):
    """Base of the vision errors."""


class MarkersError(VisionError):
    """The markers JSON breaks the contract; the message names the field."""


class DetectionError(VisionError):
    """The photo cannot be turned into a scene: unreadable image, no or too few table markers,
    a tray marker seen twice. The message says which markers were seen and which are missing."""


class CalibrationError(VisionError):
    """A camera calibration (file or ChArUco photos) is unusable; the message says why."""
