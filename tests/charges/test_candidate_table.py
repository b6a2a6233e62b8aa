"""The candidate table (RULES.md 4, the move search): solving only the (offset, wheel angle)
pairs whose forward distances can both be non-negative gives exactly the table that solving
every pair gives, row for row and in the same order."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import geometry as g
from tests.charges.engine import (
    _COLUMNS,
    candidate_table,
    facing_frame,
    offset_candidates,
    straight_offsets,
)


@given(st.integers(2, 8), st.floats(-180, 180), st.integers(1, 6), st.sampled_from(
    [20.0, 25.0, 50.0]), st.floats(400, 1400), st.floats(150, 550),
    st.one_of(st.floats(-180, 180), st.sampled_from([90.0, 60.0, 120.0])),
    st.sampled_from(["front", "left", "right", "rear"]))
@settings(max_examples=60, deadline=None)
def test_selected_rows_equal_every_row(tfiles, tfacing, files, base_w, x, y, facing, side):
    target = g.Body(g.Formation.full((20, 20), tfiles, 3), g.Pose(900, 700, tfacing))
    form = g.Formation.full((base_w, 50), files, 2)
    start = g.Pose(x, y, facing)
    frame = facing_frame(target, side)
    offs = offset_candidates(frame, form, tuple(straight_offsets(frame, form, start)))
    fast = candidate_table(form, start, frame, offs)
    full = candidate_table(form, start, frame, offs, select_rows=False)
    assert len(fast) == len(full)
    for col in _COLUMNS:
        np.testing.assert_array_equal(getattr(fast, col), getattr(full, col), err_msg=col)
