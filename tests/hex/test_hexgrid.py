"""Hex geometry (HEX.md 3): properties over random hexes and the fixtures of HEX.md 9."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from geometry import hexfacing as hf
from geometry import hexgrid as hg

coord = st.integers(min_value=-40, max_value=40)
hexes = st.tuples(coord, coord)
vertex_facing = st.sampled_from([1, 3, 5, 7, 9, 11])
side_facing = st.sampled_from([0, 2, 4, 6, 8, 10])


@given(hexes, hexes, hexes)
def test_distance_is_a_metric(a, b, c):
    assert hg.distance(a, b) == hg.distance(b, a) >= 0
    assert (hg.distance(a, b) == 0) == (a == b)
    assert hg.distance(a, c) <= hg.distance(a, b) + hg.distance(b, c)


@given(hexes)
def test_six_neighbours_at_distance_one_each_side_opposite(h):
    ns = hg.neighbours(h)
    assert len(set(ns)) == 6
    assert all(hg.distance(h, n) == 1 for n in ns)
    for k, n in enumerate(ns):
        assert hg.direction(h, n) == k
        assert hg.neighbour(n, hg.opposite(k)) == h
        assert hg.hexside_id(h, k) == hg.hexside_id(n, hg.opposite(k))
        assert hg.hexside_id(h, k)[2] in (0, 1, 2)


@given(hexes, st.integers(min_value=0, max_value=6))
def test_ring_and_disc_counts(h, r):
    ring = hg.ring(h, r)
    assert len(set(ring)) == (6 * r if r else 1)
    assert all(hg.distance(h, x) == r for x in ring)
    assert len(hg.disc(h, r)) == 3 * r * (r + 1) + 1


@given(hexes, hexes)
def test_hex_line_is_connected_and_of_distance_plus_one(a, b):
    line = hg.hex_line(a, b)
    for run in (line.hexes, line.other):
        assert run[0] == a and run[-1] == b
        assert len(run) == hg.distance(a, b) + 1
        assert all(hg.distance(x, y) == 1 for x, y in zip(run, run[1:], strict=False))


def test_spine_reports_both_candidates():
    # (0,0) -> (2,-1) runs along the spine between (1,0) and (1,-1) (HEX.md 3.1).
    line = hg.hex_line((0, 0), (2, -1))
    assert line.spine
    assert line.candidates[1] in (((1, 0), (1, -1)), ((1, -1), (1, 0)))
    assert not hg.hex_line((0, 0), (0, -5)).spine


@pytest.mark.parametrize("model,facings,counts", [
    ("vertex_2_2_2", [1, 3, 5, 7, 9, 11], (2, 2, 2)),
    ("side_3_2_1", [0, 2, 4, 6, 8, 10], (3, 2, 1)),
    ("side_5_0_1", [0, 2, 4, 6, 8, 10], (5, 0, 1)),
    ("vertex_4_2_0", [1, 3, 5, 7, 9, 11], (4, 2, 0)),
    ("all_front", list(range(12)), (6, 0, 0)),
])
def test_front_flank_rear_partition_the_neighbours(model, facings, counts):
    """HEX.md 3.2: every facing model splits the six neighbours into its three classes."""
    for f in facings:
        for h in [(0, 0), (3, -7), (-5, 2)]:
            a = hf.aspects([h], f, model)
            assert set(a) == set(hg.neighbours(h))
            got = tuple(sum(1 for v in a.values() if v == c) for c in (hf.FRONT, hf.FLANK,
                                                                          hf.REAR))
            assert got == counts


@given(hexes, st.integers(min_value=0, max_value=5), st.booleans())
def test_two_hex_line_has_3_front_2_flank_3_rear(a, k, other_facing):
    """HEX.md 3.3: a two-hex line facing perpendicular to its axis."""
    b = hg.neighbour(a, k)
    f = hf.line_facings(k)[1 if other_facing else 0]
    asp = hf.aspects([a, b], f, "vertex_2_2_2")
    counts = [sum(1 for v in asp.values() if v == c) for c in (hf.FRONT, hf.FLANK, hf.REAR)]
    assert counts == [3, 2, 3]
    assert len(asp) == 8  # 10 neighbours of the pair less the two shared ones counted once


def test_fixture_d0_and_two_hex_hi_of_e7():
    assert hf.aspects([(0, 0)], 1, "vertex_2_2_2") == {
        (0, -1): "front", (1, -1): "front", (1, 0): "flank", (-1, 0): "flank",
        (0, 1): "rear", (-1, 1): "rear"}
    asp = hf.aspects([(0, 0), (1, 0)], 1, "vertex_2_2_2")
    assert {h for h, v in asp.items() if v == "front"} == {(0, -1), (1, -1), (2, -1)}
    assert {h for h, v in asp.items() if v == "flank"} == {(-1, 0), (2, 0)}
    assert {h for h, v in asp.items() if v == "rear"} == {(-1, 1), (0, 1), (1, 1)}
    assert hf.line_axis([(0, 0), (1, 0)]) == 2
    assert 0 not in hf.line_facings(2)  # E7(c): f = 0 is not perpendicular to axis SE


@given(vertex_facing, st.integers(min_value=0, max_value=5))
def test_classification_turns_with_the_unit(f, turn):
    """Rotating the unit by 60 degrees rotates its aspects with it."""
    for k in range(6):
        assert (hf.side_aspect("vertex_2_2_2", f, k)
                == hf.side_aspect("vertex_2_2_2", (f + 2 * turn) % 12, (k + turn) % 6))


def test_artillery_wedge_of_e9():
    front = [h for h in hg.disc((0, 0), 3) if h != (0, 0)
             and hf.in_front_sector([(0, 0)], 1, h, "vertex_2_2_2")]
    assert sorted(front) == sorted([(0, -1), (1, -1), (0, -2), (1, -2), (2, -2), (0, -3),
                                    (1, -3), (2, -3), (3, -3)])
    assert not hf.in_front_sector([(0, 0)], 1, (-1, -2), "vertex_2_2_2")
    assert hf.in_front_sector([(0, 0)], 1, (-1, -2), "vertex_2_2_2", shape="cone120")


@given(st.integers(min_value=1, max_value=60), st.integers(min_value=1, max_value=60),
       st.integers(min_value=-3, max_value=3), st.integers(min_value=-3, max_value=3),
       st.integers(min_value=0, max_value=1))
def test_labels_round_trip(col, row, col0, row0, parity):
    origin = hg.LabelOrigin(col0, row0, parity)
    label = f"{col:02d}{row:02d}"
    assert origin.to_label(origin.to_axial(label)) == label
    h = origin.to_axial(label)
    assert origin.to_axial(origin.to_label(h)) == h


def test_label_calibration_needs_both_parities():
    origin = hg.LabelOrigin(1, 1, 1)
    pairs = [(origin.to_label(h), h) for h in [(3, -2), (4, 0)]]
    assert hg.calibrate_labels(*pairs) == origin
    with pytest.raises(ValueError, match="same parity"):
        hg.calibrate_labels((origin.to_label((2, 0)), (2, 0)),
                            (origin.to_label((4, 1)), (4, 1)))
    with pytest.raises(ValueError, match="no origin"):
        hg.calibrate_labels(("0405", (3, -2)), ("0405", (4, 0)))


@given(hexes, hexes)
def test_pixel_distance_agrees_with_hex_distance_for_neighbours(a, b):
    ax, ay = hg.to_pixel(a)
    bx, by = hg.to_pixel(b)
    if hg.distance(a, b) == 1:
        assert abs(((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5 - 1.0) < 1e-9
    elif a != b:
        assert ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5 > 1.0 + 1e-9


@given(hexes, hexes)
def test_first_steps_agree_with_the_hex_line(a, b):
    if hg.distance(a, b) > 1:
        assert set(hg.first_steps(a, b)) == set(hg.hex_line(a, b).candidates[1])
