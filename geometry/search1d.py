"""One-dimensional searches the measured rulings share: a golden-section minimum and the
bisection of a boundary, each to a stated tolerance (RULES.md 4: "measured, not sampled")."""

from __future__ import annotations

import math
from collections.abc import Callable

GOLDEN = (math.sqrt(5) - 1) / 2


def golden_min(f: Callable[[float], float], lo: float, hi: float, tol: float
               ) -> tuple[float, float]:
    """A local minimum of ``f`` on ``[lo, hi]`` by golden section, narrowed to ``tol``: the
    best point evaluated and its value (``f`` unimodal there; a cell of a coarser grid)."""
    a, b = hi - GOLDEN * (hi - lo), lo + GOLDEN * (hi - lo)
    fa, fb = f(a), f(b)
    while hi - lo > tol:
        if fa <= fb:
            hi, b, fb = b, a, fa
            a = hi - GOLDEN * (hi - lo)
            fa = f(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + GOLDEN * (hi - lo)
            fb = f(b)
    return (a, fa) if fa <= fb else (b, fb)


def bisect_edge(holds: Callable[[float], bool], lo: float, hi: float, tol: float
                ) -> tuple[float, float]:
    """The boundary between ``lo``, where ``holds`` is false, and ``hi``, where it is true (in
    either order), narrowed to ``tol``: (last false, first true)."""
    while abs(hi - lo) > tol:
        mid = (lo + hi) / 2
        if holds(mid):
            hi = mid
        else:
            lo = mid
    return lo, hi
