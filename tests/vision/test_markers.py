"""The markers JSON is validated and every error names the bad field."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from vision import MarkersError, load_markers

SAMPLE = json.loads((Path(__file__).resolve().parents[2] / "server" / "samples" /
                     "markers.json").read_text())


def bad(**changes):
    data = copy.deepcopy(SAMPLE)
    for path, value in changes.items():
        *keys, last = path.split("__")
        d = data
        for k in keys:
            d = d[int(k)] if k.isdigit() else d[k]
        d[int(last) if last.isdigit() else last] = value
    return data


def test_the_sample_is_valid():
    ms = load_markers(SAMPLE)
    assert [u.id for u in ms.units] == ["knights", "swordsmen", "chariot", "spears", "archers",
                                        "wolves"]
    assert ms.unit_by_marker[10].height_mm == 3


@pytest.mark.parametrize("data, message", [
    (bad(dictionary="DICT_9X9_7"), "dictionary: unknown ArUco dictionary 'DICT_9X9_7'"),
    (bad(units__0__marker_size_mm=-5), "units[0] 'knights': marker_size_mm: Input should be "
                                       "greater than 0"),
    (bad(units__1__marker=10), "units[1] 'swordsmen': marker: marker 10 is also units[0]"),
    (bad(units__2__marker_size_mm=80), "does not fit on the 50 x 100 mm tray"),
    (bad(units__0__files="five"), "units[0] 'knights': files: Input should be a valid integer"),
    (bad(units__3__base=[20, 0]), "units[3] 'spears': base: "),
    (bad(table__markers__0__id=99), "id: 99 is not in DICT_4X4_50"),
    (bad(table__markers__1__x=5000), "is off the 1828.8 x 1219.2 mm table"),
    (bad(units__4__id="knights"), "units[4] 'knights': id: the id is used by another unit"),
    (bad(units__0__height_mm=float("nan")), "height_mm"),
    ([], "must be a JSON object"),
])
def test_errors_name_the_field(data, message):
    with pytest.raises(MarkersError) as e:
        load_markers(data)
    assert message in str(e.value)
    assert isinstance(e.value, ValueError)


def test_missing_table_is_named():
    data = copy.deepcopy(SAMPLE)
    del data["table"]
    with pytest.raises(MarkersError, match="table: Field required"):
        load_markers(data)
