"""The overlay fixes of outside report 3 (vision/overlay.py): a charge's labels are never drawn
on one another (tow's paid path was on the distance, finding 3), and a distance reads as the
explanation rounds it (10.17", not 10.16", from 258.194 mm; finding 8)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import charges
import geometry as g
import vision
from vision import overlay
from vision.labels import overlap

SAMPLES = Path(__file__).resolve().parents[2] / "server" / "samples"


@pytest.fixture(scope="module")
def sample() -> tuple[np.ndarray, dict, np.ndarray]:
    image = cv2.imread(str(SAMPLES / "table.jpg"), cv2.IMREAD_COLOR)
    scene = vision.detect(image, json.loads((SAMPLES / "markers.json").read_text()))
    H = np.asarray(scene.pop("detection")["table_to_image"], dtype=float)
    return image, scene, H


@pytest.mark.parametrize(("charger", "target", "dice"), [
    ("knights", "spears", [3, 5]), ("wolves", "knights", [4, 4])])
def test_no_label_of_a_tow_ruling_on_another(sample, charger, target, dice):
    image, scene, H = sample
    ruling = charges.rule({"ruleset": "tow", "scene": scene,
                           "charges": [{"charger": charger, "target": target}],
                           "dice": {charger: dice}})
    assert "paid_path_in" in ruling["charges"][0]
    boxes: list = []
    overlay.draw_on_photo(image, scene, ruling, H, label_boxes=boxes)
    assert len(boxes) >= 2 + len(scene["units"])
    for a, b in itertools.combinations(boxes, 2):
        assert overlap(a, b) == 0.0, (a, b)


def test_a_distance_reads_as_the_explanation_rounds_it():
    ch = {"distance_mm": 258.194, "distance_in": 10.165}
    assert overlay._fmt_in(overlay._inches(ch, "distance")) == '10.17"'
    assert f"{g.mm_to_in(258.194):.2f}" == "10.17"  # the explanation's rounding
    assert overlay._inches({"distance_in": 10.165}, "distance") == 10.165
    assert overlay._inches({"distance_mm": 258.194}, "distance") is None  # no _in: not given
