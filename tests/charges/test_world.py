"""Worlds derived from a prepared one (World.without, World.with_kind) are the worlds built
afresh: the same obstacles, the same convex pieces with the same tolerances, the same
verdicts (RULES.md 5 asks about worlds without some enemies; RULES.md 6 stops a failed charge
short of its target as of any enemy)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import geometry as g
from charges.world import World

CASES = Path(__file__).resolve().parent / "cases"


def _scene() -> g.Scene:
    return g.load_scene(json.loads((CASES / "refine_rival_wins.json").read_text())["scene"])


def _same(derived: World, fresh: World) -> None:
    assert [(o.id, o.kind) for o in derived.obstacles] == \
        [(o.id, o.kind) for o in fresh.obstacles]
    a, b = derived.parts, fresh.parts
    assert np.array_equal(a.owner, b.owner)
    assert np.array_equal(a.limit, b.limit)
    assert np.array_equal(a.whole, b.whole)
    assert np.array_equal(a.bounds, b.bounds)
    k = min(a.corners.shape[1], b.corners.shape[1])
    assert np.array_equal(a.corners[:, :k], b.corners[:, :k])
    # Footprints all over the table get the same verdicts.
    rng = np.random.default_rng(4)
    centres = rng.uniform((0, 0), (1828.8, 1219.2), size=(400, 2))
    rects = g.contact.rect_corners(centres[:, 0], centres[:, 1], rng.uniform(-180, 180, 400),
                                   125.0, 50.0)
    assert np.array_equal(derived.footprints(rects), fresh.footprints(rects))


def test_without_is_the_world_built_without():
    scene = _scene()
    charger = scene.unit("red4")
    world = World.for_unit(scene, charger, "blue3")
    assert len(world.parts.owner)  # prepared: the derived world starts from its pieces
    gone = {u.id for u in scene.units if u.side == "blue" and u.id != "blue3"}
    assert gone
    derived = world.without(gone)
    _same(derived, World.for_unit(scene, charger, "blue3", ignore=frozenset(gone)))


def test_with_kind_is_the_world_built_with_that_kind():
    scene = _scene()
    charger = scene.unit("red4")
    world = World.for_unit(scene, charger, "blue3")
    assert len(world.parts.owner)
    derived = world.with_kind({"blue3"}, "enemy")
    _same(derived, World.for_unit(scene, charger))
