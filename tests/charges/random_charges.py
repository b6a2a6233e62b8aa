"""Random charge geometry shared by the search's geometric tests: a target at the middle of a
1.2 m square, a charger 200-550 mm away, both with random formations and facings."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

import geometry as g
from tests.charges import engine as S


def random_charge(rng: np.random.Generator) -> tuple[g.Body, g.Formation, g.Pose]:
    """(target body, charger formation, charger start pose)."""

    def form() -> g.Formation:
        return g.Formation.full((float(rng.choice([20, 25, 40, 50])),
                                 float(rng.choice([20, 25, 50]))),
                                int(rng.integers(1, 8)), int(rng.integers(1, 5)))

    tbody = g.Body(form(), g.Pose(600, 600, float(rng.uniform(-180, 180))))
    cform = form()
    ang, dist = rng.uniform(0, 2 * math.pi), rng.uniform(200, 550)
    start = g.Pose(600 + math.cos(ang) * dist, 600 + math.sin(ang) * dist,
                   float(rng.uniform(-180, 180)))
    return tbody, cform, start


def random_facings(rng: np.random.Generator, charges: int
                   ) -> Iterator[tuple[g.Body, g.Formation, g.Pose, S.FacingFrame, list[float]]]:
    """For ``charges`` random charges, each facing of the target in turn: (target body, charger
    formation, start pose, the facing's frame, the search's end offsets on it)."""
    for _ in range(charges):
        tbody, cform, start = random_charge(rng)
        for facing in g.FACINGS:
            frame = S.facing_frame(tbody, facing)
            offs = S.offset_candidates(frame, cform,
                                       tuple(S.straight_offsets(frame, cform, start)))
            yield tbody, cform, start, frame, offs
