"""Errors for bad requests (DESIGN.md, Python API: ValueError subclasses naming the field)."""

from __future__ import annotations


class RequestError(ValueError):
    """A ruling request that breaks the contract; the message names the field."""
