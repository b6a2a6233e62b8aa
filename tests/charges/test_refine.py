"""The refinement of the chosen path (RULES.md 4: the shortest path wins ties of models): the
closed-form bound that lets rivals be passed over unchecked, and a table where a rival wins."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import charges
import geometry as g
from charges import search as S
from tests.charges.random_charges import random_facings

CASES = Path(__file__).resolve().parent / "cases"


def test_fine_shortest_is_a_lower_bound_of_every_fine_grid():
    """search._fine_shortest never exceeds the shortest path of the fine table _refine builds
    for the same row (else a rival that could win would be passed over). It drops fewer paths
    than the table (only those with a negative forward distance), so it is mostly, not
    always, equal to the table's shortest."""
    rng = np.random.default_rng(11)
    compared = tight = 0
    for _, cform, start, frame, offs in random_facings(rng, 10):
        table = S.candidate_table(cform, start, frame, offs)
        rows = np.flatnonzero(table.family != 0)
        if len(rows) == 0:
            continue
        rows = rng.choice(rows, size=min(25, len(rows)), replace=False)
        bound = S._fine_shortest(cform, start, frame, table, rows)
        for i, low in zip(rows, bound, strict=True):
            c = table.row(int(i))
            fine = S._fine_table(cform, start, frame, c)
            assert fine is not None
            if len(fine) == 0:
                continue
            shortest = float(fine.length.min())
            assert low <= shortest + 1e-9, (frame.name, c)
            tight += abs(low - shortest) < 1e-6
            compared += 1
    assert compared > 300
    assert tight > 0.8 * compared, (tight, compared)


def test_flush_rows_have_no_fine_grid():
    """A flush arrival is never refined, so as a rival it cannot win: its bound is inf."""
    tbody = g.Body(g.Formation.full((25, 25), 5, 2), g.Pose(600, 600, -90))
    cform = g.Formation.full((25, 25), 5, 2)
    start = g.Pose(600, 300, 90)
    frame = S.facing_frame(tbody, "front")
    table = S.candidate_table(cform, start, frame, [0.0, 10.0])
    flush = np.flatnonzero(table.family == 0)
    assert len(flush)
    assert np.isinf(S._fine_shortest(cform, start, frame, table, flush)).all()


def test_a_rival_that_can_win_is_refined():
    """A crowded table (bench/tables.py) where the shortest path ends at another end position
    than the first legal grid path: red4 reaches blue3's front with 9 models either way, the
    first grid path refines to 303.256 mm, a rival's to 303.230 mm (wheel 43.5 degrees).
    Refinement once stopped after seven legal rivals, counting those that could not win, and
    settled for the longer path; rivals whose fine grid holds nothing as short as the best are
    now passed over, so the shortest is found."""
    request = json.loads((CASES / "refine_rival_wins.json").read_text())
    ruling = charges.rule(request)
    ch = ruling["charges"][0]
    assert ch["outcome"] == "success"
    assert ch["priorities"]["models_in_contact"] == 9
    assert ch["priorities"]["path_mm"] == 303.23
    assert ch["priorities"]["wheel_deg"] == -43.5
