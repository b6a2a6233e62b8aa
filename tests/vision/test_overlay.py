"""Overlays and plans (DESIGN.md ``vision/`` "scene -> pictures"; issue 4, Pictures).

Rulings here are built by hand in the DESIGN.md ruling shape, but every pose in them comes from
replaying real ``geometry`` moves, so the picture is checked against the geometry it claims to
show: pixels where a boundary, a final position or a contact model must be carry its colour.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

import geometry as g
from vision import overlay, palette

SAMPLE = Path(__file__).resolve().parents[2] / "server" / "samples" / "scene.json"


def sample_scene() -> dict:
    return json.loads(SAMPLE.read_text())


def _ruling_unit(u: g.Unit, pose: g.Pose | None = None, state: str | None = None) -> dict:
    p = pose or u.pose
    return {"id": u.id, "x": p.x, "y": p.y, "facing": p.facing, "state": state or u.state}


def charge_ruling(scene: dict, charger: str, target: str, wheel: tuple[str, float] | None = None,
                  slots: bool = True) -> dict:
    """A successful front charge: optional wheel, forward to first contact (stepping by the real
    closest distance), then align about the contact point (RULES.md 4)."""
    sc = g.load_scene(scene)
    ch, tg = sc.unit(charger), sc.unit(target)
    form, start = ch.formation, ch.pose
    tpoly = tg.body.polygon
    steps: list[tuple[g.Step, g.Pose]] = []
    pose = start
    if wheel:
        st = g.Wheel(wheel[0], wheel[1])  # type: ignore[arg-type]
        pose = st.apply(form, pose)
        steps.append((st, pose))
    # The closest distance bounds the move still possible before contact, so stepping by it
    # converges on first contact from outside (no overlap ever).
    dist = 0.0
    for _ in range(500):
        gap = g.closest(g.boundary(form, g.forward(pose, dist)), tpoly).distance_mm
        if gap < 1e-7:
            break
        dist += gap
    fw = g.Forward(dist)
    pose = fw.apply(form, pose)
    steps.append((fw, pose))
    c = g.closest(g.boundary(form, pose), tpoly)
    angle = g.normalize_deg(tg.facing + 180 - pose.facing)
    al = g.Align(c.a, angle)
    pose = al.apply(form, pose)
    steps.append((al, pose))
    body = g.Body(form, pose)
    fc = g.flush_contact(body, tg.body, 1e-6)
    assert fc is not None and fc.facing_a == "front" and fc.facing_b == "front"
    mc = g.models_in_contact(body, tg.body)
    start_c = g.closest(ch.body.polygon, tpoly)
    contact = {"charger_models": len(mc.a_models), "target_models": len(mc.b_models),
               "segment": [list(fc.segment[0]), list(fc.segment[1])]}
    if slots:
        contact["charger_model_slots"] = sorted([list(s) for s in mc.a_models])
        contact["target_model_slots"] = sorted([list(s) for s in mc.b_models])
    return {
        "ruleset": "t9a-1",
        "charges": [{
            "charger": charger, "target": target, "declarable": True, "reasons": [],
            "facing": "front", "arc_shares": {"front": 1.0, "right": 0.0, "rear": 0.0,
                                              "left": 0.0},
            "distance_mm": start_c.distance_mm, "distance_in": start_c.distance_in,
            "closest_points": [list(start_c.a), list(start_c.b)],
            "needed_in": 3, "odds": 0.97, "range_in": 11, "outcome": "success",
            "margin_mm": 20.0, "certain": True, "start": start.to_json(),
            "path": [g.step_to_json(s, p) for s, p in steps],
            "final": pose.to_json(), "contact": contact, "target_final": None,
            "priorities": [0, 0, 1, mc.total], "explanation": ["hand-built for the tests"],
        }],
        "units": [_ruling_unit(u, pose if u.id == charger else None,
                               "engaged" if u.id in (charger, target) else None)
                  for u in sc.units],
    }


def failed_ruling(scene: dict, charger: str, target: str, move_mm: float) -> dict:
    """A failed charge (RULES.md 6): turn about the centre towards the target's centre, then
    straight forward."""
    sc = g.load_scene(scene)
    ch, tg = sc.unit(charger), sc.unit(target)
    bearing = math.degrees(math.atan2(tg.y - ch.y, tg.x - ch.x))
    tu = g.Turn(g.normalize_deg(bearing - ch.facing))
    p1 = tu.apply(ch.formation, ch.pose)
    fw = g.Forward(move_mm)
    p2 = fw.apply(ch.formation, p1)
    c = g.closest(ch.body.polygon, tg.body.polygon)
    return {
        "ruleset": "t9a-1",
        "charges": [{
            "charger": charger, "target": target, "declarable": True, "reasons": [],
            "facing": "front", "arc_shares": {}, "distance_mm": c.distance_mm,
            "distance_in": c.distance_in, "needed_in": 4, "odds": 0.9, "range_in": 8,
            "outcome": "failed", "margin_mm": -5.0, "certain": True,
            "start": ch.pose.to_json(),
            "path": [g.step_to_json(tu, p1), g.step_to_json(fw, p2)], "final": p2.to_json(),
            "contact": None, "target_final": None, "priorities": None, "explanation": [],
        }],
        "units": [_ruling_unit(u, p2 if u.id == charger else None,
                               "disrupted" if u.id == charger else None) for u in sc.units],
    }


def fake_photo(w: int = 1920, h: int = 1080) -> tuple[np.ndarray, np.ndarray]:
    """A textured 'photo' of the sample table seen obliquely, and its table -> image
    homography (a real perspective, not an affinity, so projection is exercised)."""
    table = np.float32([[0, 0], [1828.8, 0], [1828.8, 1219.2], [0, 1219.2]])
    quad = np.float32([[260, 1020], [1680, 1000], [1430, 170], [470, 190]])
    H = cv2.getPerspectiveTransform(table, quad).astype(np.float64)
    rng = np.random.default_rng(7)
    img = np.full((h, w, 3), (40, 45, 50), np.uint8)
    mat = rng.integers(60, 110, (h, w, 1), dtype=np.uint8) * np.array([[[0.6, 1.0, 0.7]]])
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [quad.astype(np.int32)], 255)
    img[mask > 0] = mat[mask > 0].astype(np.uint8)
    return cv2.GaussianBlur(img, (5, 5), 1.5), H


# --------------------------------------------------------------------------- helpers


def near(img: np.ndarray, xy: np.ndarray, colour: tuple[int, int, int], tol: int = 40,
         r: int = 1) -> bool:
    """Some pixel within ``r`` px of ``xy`` has ``colour`` (each channel within ``tol``)."""
    x, y = (int(round(v)) for v in xy)
    win = img[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1].astype(int)
    return bool((np.abs(win - np.array(colour)).max(axis=2) <= tol).any())


def edge_points(form: g.Formation, pose: g.Pose, fractions=(0.25, 0.75)) -> list[g.Point]:
    """Points along every facing (quarter points avoid the facing arrow and the corners)."""
    pts = []
    for a, b in g.facing_segments(form, pose).values():
        pts += [(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t) for t in fractions]
    return pts


def to_px(H: np.ndarray, pts) -> np.ndarray:
    a = np.asarray(pts, float).reshape(-1, 2)
    h = np.hstack([a, np.ones((len(a), 1))]) @ H.T
    return h[:, :2] / h[:, 2:3]


def sides(scene: dict) -> dict[str, tuple[int, int, int]]:
    return palette.side_colours(u["side"] for u in scene["units"])


# --------------------------------------------------------------------------- plan


def test_plan_draws_every_unit_boundary_in_its_side_colour():
    scene = sample_scene()
    img = overlay.draw_plan(scene, None)
    H = overlay.plan_transform(scene, None)
    # 0.5 px/mm: the table is 914 x 610 px inside the margins.
    assert np.allclose(to_px(H, [(1828.8, 0)]) - to_px(H, [(0, 1219.2)]), [[914.4, 609.6]])
    col = sides(scene)
    assert col["red"] == palette.VERMILLION and col["blue"] == palette.BLUE
    sc = g.load_scene(scene)
    for u in sc.units:
        pts = to_px(H, edge_points(u.formation, u.pose, np.linspace(0.1, 0.9, 20)))
        hits = [near(img, p, col[u.side], tol=10) for p in pts]
        assert sum(hits) >= 0.9 * len(pts), (u.id, sum(hits))
    # open mat far from every unit keeps the mat colour
    assert near(img, to_px(H, [(1700, 1100)])[0], palette.MAT, tol=3, r=0)


def test_plan_scale_follows_px_per_mm():
    scene = sample_scene()
    img = overlay.draw_plan(scene, None, px_per_mm=1.0)
    H = overlay.plan_transform(scene, None, px_per_mm=1.0)
    assert H[0, 0] == 1.0 and H[1, 1] == -1.0  # y flipped: table y up, image y down
    knights = g.load_scene(scene).unit("knights")
    for p in to_px(H, edge_points(knights.formation, knights.pose)):
        assert near(img, p, palette.VERMILLION, tol=10)
    assert img.shape[1] >= 1828


def test_plan_shows_final_position_contact_models_and_pivot():
    scene = sample_scene()
    ruling = charge_ruling(scene, "knights", "spears")
    ch = ruling["charges"][0]
    img = overlay.draw_plan(scene, ruling, px_per_mm=1.0)
    H = overlay.plan_transform(scene, ruling, px_per_mm=1.0)
    bare = overlay.draw_plan(scene, None, px_per_mm=1.0)
    knights = g.load_scene(scene).unit("knights")
    final = g.Pose.from_json(ch["final"])
    assert final.facing == pytest.approx(85.0)  # flush with spears facing -95 (RULES.md 4)
    form = knights.formation
    rear, left, right = (g.facing_segments(form, final)[k] for k in ("rear", "left", "right"))
    for a, b in (rear, left, right):
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        assert near(img, to_px(H, [mid])[0], palette.VERMILLION, tol=10), mid
    # contact models: the ruling's slots filled yellow; the others of the front rank are not
    spears = g.load_scene(scene).unit("spears")
    slots = {tuple(s) for s in ch["contact"]["charger_model_slots"]}
    assert len(slots) == ch["contact"]["charger_models"] == 3
    for f in range(form.files):
        c = g.base_polygon(form, final, 0, f).centroid
        assert near(img, to_px(H, [(c.x, c.y)])[0], palette.CONTACT, tol=45, r=0) == \
            ((0, f) in slots), f
    pivot = ch["path"][-1]["pivot_point"]
    for r, f in ch["contact"]["target_model_slots"]:
        c = g.base_polygon(spears.formation, spears.pose, r, f).centroid
        if math.dist((c.x, c.y), pivot) < 16:  # under the align pivot's diamond
            continue
        assert near(img, to_px(H, [(c.x, c.y)])[0], palette.CONTACT, tol=45, r=1)
    # the align pivot: a white diamond edged with the path colour
    piv = to_px(H, [ch["path"][-1]["pivot_point"]])[0]
    assert near(img, piv, palette.WHITE, tol=10, r=0)
    assert near(img, piv, palette.PATH, tol=30, r=6)
    # the closest-distance line, a quarter of the way along, in the distance colour
    (ax, ay), (bx, by) = ch["closest_points"]
    q = to_px(H, [(ax + (bx - ax) * 0.25, ay + (by - ay) * 0.25)])[0]
    assert near(img, q, palette.DISTANCE, tol=20) and not near(bare, q, palette.DISTANCE)


def test_contact_falls_back_to_the_segment_and_closest_points_to_geometry():
    """Without the slots, the models whose bases touch the contact segment are highlighted;
    without ``closest_points`` the line comes from geometry.closest - the same picture."""
    scene = sample_scene()
    full = charge_ruling(scene, "knights", "spears")
    bare = charge_ruling(scene, "knights", "spears", slots=False)
    del bare["charges"][0]["closest_points"]
    a, b = overlay.draw_plan(scene, full), overlay.draw_plan(scene, bare)
    H = overlay.plan_transform(scene, full)
    final = g.Pose.from_json(full["charges"][0]["final"])
    form = g.load_scene(scene).unit("knights").formation
    for r, f in full["charges"][0]["contact"]["charger_model_slots"]:
        c = g.base_polygon(form, final, r, f).centroid
        assert near(b, to_px(H, [(c.x, c.y)])[0], palette.CONTACT, tol=45, r=0)
    # the distance line is identical pixel for pixel
    (ax, ay), (bx, by) = full["charges"][0]["closest_points"]
    for t in (0.2, 0.4, 0.8):
        p = to_px(H, [(ax + (bx - ax) * t, ay + (by - ay) * t)])[0]
        x, y = (int(round(v)) for v in p)
        assert np.array_equal(a[y - 2:y + 3, x - 2:x + 3], b[y - 2:y + 3, x - 2:x + 3])


def test_path_is_replayed_not_read():
    """The recorded step poses are ignored for drawing: geometry replays the steps, so a
    ruling with garbled step poses draws the very same picture."""
    scene = sample_scene()
    ruling = charge_ruling(scene, "knights", "spears")
    garbled = json.loads(json.dumps(ruling))
    for st in garbled["charges"][0]["path"]:
        st["pose"] = {"x": 1.0, "y": 1.0, "facing": 0.0}
    assert np.array_equal(overlay.draw_plan(scene, ruling), overlay.draw_plan(scene, garbled))


def test_wheel_pivot_and_intermediate_boundary():
    scene = sample_scene()
    ruling = charge_ruling(scene, "knights", "spears", wheel=("right", -5.0))
    ch = ruling["charges"][0]
    assert ch["path"][0]["kind"] == "wheel"
    img = overlay.draw_plan(scene, ruling, px_per_mm=1.0)
    H = overlay.plan_transform(scene, ruling, px_per_mm=1.0)
    knights = g.load_scene(scene).unit("knights")
    pivot = knights.body.corners["front_right"]  # the wheel turns about the right front corner
    assert near(img, to_px(H, [pivot])[0], palette.PATH, tol=10, r=1)
    # the pose after the wheel (not the last step) is drawn as a faint dashed boundary
    after = g.wheel(knights.formation, knights.pose, "right", -5.0)
    pts = to_px(H, edge_points(knights.formation, after, np.linspace(0.05, 0.95, 40)))
    hits = sum(near(img, p, palette.PATH, tol=25) for p in pts)
    assert hits > 0.3 * len(pts)


def test_failed_charge_end_position_is_drawn_dashed():
    scene = sample_scene()
    ruling = failed_ruling(scene, "swordsmen", "archers", 60.0)
    img = overlay.draw_plan(scene, ruling, px_per_mm=1.0)
    H = overlay.plan_transform(scene, ruling, px_per_mm=1.0)
    sw = g.load_scene(scene).unit("swordsmen")
    final = g.Pose.from_json(ruling["charges"][0]["final"])
    pts = to_px(H, edge_points(sw.formation, final, np.linspace(0.05, 0.95, 40)))
    hits = [near(img, p, palette.VERMILLION, tol=10) for p in pts]
    assert 0.3 * len(pts) < sum(hits) < len(pts)  # dashed: some, not all


def test_target_final_and_destroyed_units():
    scene = sample_scene()
    ruling = charge_ruling(scene, "knights", "spears")
    ch = ruling["charges"][0]
    spears = g.load_scene(scene).unit("spears")
    moved = g.Pose(spears.x - 40, spears.y + 30, spears.facing)
    ch["path"].append({"kind": "reform", "to": moved.to_json(), "pose": moved.to_json(),
                       "unit": "spears"})
    ch["target_final"] = moved.to_json()
    for u in ruling["units"]:
        if u["id"] == "archers":
            u["state"] = "destroyed"
    img = overlay.draw_plan(scene, ruling, px_per_mm=1.0)
    H = overlay.plan_transform(scene, ruling, px_per_mm=1.0)
    pts = to_px(H, edge_points(spears.formation, moved, np.linspace(0.05, 0.95, 40)))
    assert sum(near(img, p, palette.BLUE, tol=10) for p in pts) > 0.3 * len(pts)
    archers = g.load_scene(scene).unit("archers")
    for p in to_px(H, edge_points(archers.formation, archers.pose)):
        assert near(img, p, palette.DESTROYED, tol=10) and not near(img, p, palette.BLUE)


def test_title_and_legend_change_with_the_outcome():
    scene = sample_scene()
    ok = overlay.draw_plan(scene, charge_ruling(scene, "knights", "spears"))
    failed = overlay.draw_plan(scene, failed_ruling(scene, "swordsmen", "archers", 60.0))
    assert ok.shape[1] == failed.shape[1]
    assert overlay._title_lines(g.load_scene(scene),
                                charge_ruling(scene, "knights", "spears"))[1].startswith(
        "knights -> spears: SUCCESS | front facing | 10.17\" away")
    assert not np.array_equal(ok[:60], failed[:60])


# --------------------------------------------------------------------------- photo


def test_photo_overlay_lands_on_the_projected_boundaries():
    scene = sample_scene()
    photo, H = fake_photo()
    before = photo.copy()
    ruling = charge_ruling(scene, "knights", "spears")
    img = overlay.draw_on_photo(photo, scene, ruling, H)
    assert np.array_equal(photo, before) and img.shape == photo.shape
    col = sides(scene)
    sc = g.load_scene(scene)
    for u in sc.units:
        pts = to_px(H, edge_points(u.formation, u.pose, np.linspace(0.1, 0.9, 20)))
        hits = [near(img, p, col[u.side], tol=25) for p in pts]
        # the target's front is under the contact marks, the charger's under the path
        share = 0.6 if u.id in ("knights", "spears") else 0.85
        assert sum(hits) >= share * len(pts), (u.id, sum(hits))
    final = g.Pose.from_json(ruling["charges"][0]["final"])
    a, b = g.facing_segments(sc.unit("knights").formation, final)["rear"]
    assert near(img, to_px(H, [((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)])[0], col["red"], tol=25)


def test_scene_overlay_and_png():
    scene = sample_scene()
    photo, H = fake_photo(1280, 720)
    H = np.diag([1280 / 1920, 720 / 1080, 1.0]) @ H
    img = overlay.draw_scene_overlay(cv2.resize(photo, (1280, 720)), scene, H)
    spears = g.load_scene(scene).unit("spears")
    for p in to_px(H, edge_points(spears.formation, spears.pose)):
        assert near(img, p, palette.BLUE, tol=25, r=1)
    png = overlay.encode_png(img)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert np.array_equal(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR), img)


def test_bad_inputs_raise_value_errors():
    scene = sample_scene()
    photo, H = fake_photo(320, 180)
    with pytest.raises(ValueError, match="table_to_image"):
        overlay.draw_on_photo(photo, scene, None, np.eye(2))
    with pytest.raises(ValueError, match="px_per_mm"):
        overlay.draw_plan(scene, None, px_per_mm=0)
    with pytest.raises(ValueError, match="uint8"):
        overlay.draw_scene_overlay(photo.astype(np.float32), scene, H)


def test_real_ruling_of_the_sample_scene():
    """The charge engine's own ruling (knights charging spears) drawn on the plan: its final
    pose and its contact models appear where the geometry puts them."""
    charges = pytest.importorskip("charges")
    if not hasattr(charges, "rule"):
        pytest.skip("charges.rule has not landed")
    scene = sample_scene()
    ruling = charges.rule({"ruleset": "t9a-1", "scene": scene,
                           "charges": [{"charger": "knights", "target": "spears"}],
                           "dice": {"knights": [3, 5, 2]}})
    ch = ruling["charges"][0]
    assert ch["outcome"] == "success" and ch["final"]
    img = overlay.draw_plan(scene, ruling, px_per_mm=1.0)
    H = overlay.plan_transform(scene, ruling, px_per_mm=1.0)
    knights = g.load_scene(scene).unit("knights")
    final = g.Pose.from_json(ch["final"])
    a, b = g.facing_segments(knights.formation, final)["rear"]
    assert near(img, to_px(H, [((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)])[0],
                palette.VERMILLION, tol=10)
    slots = ch["contact"].get("charger_model_slots") or []
    for r, f in slots:
        c = g.base_polygon(knights.formation, final, r, f).centroid
        assert near(img, to_px(H, [(c.x, c.y)])[0], palette.CONTACT, tol=45, r=0)


def _tow_scenario(name: str) -> tuple[dict, dict]:
    import charges

    path = Path(__file__).parents[1] / "scenarios" / "tow" / name
    request = json.loads(path.read_text())["request"]
    return request["scene"], charges.rule(request)


def test_tow_title_gives_the_paid_path_and_the_fallback():
    """tow 1.3 and 1.5: the overlay says what the roll was compared with, and when the target
    had to align (disordered) or a fleeing unit halted the charge."""
    scene, ruling = _tow_scenario("26_unable_to_align_target_aligns_disordered.json")
    line = overlay._title_lines(g.load_scene(scene), ruling)[1]
    assert "paid path 0.00\"" in line and line.endswith("DISORDERED")
    scene, ruling = _tow_scenario("43_roll_too_short_to_go_round_halts.json")
    line = overlay._title_lines(g.load_scene(scene), ruling)[1]
    assert line.startswith("a -> t: HALTED") and "paid path 3.23\"" in line
    plain = overlay.draw_plan(scene, {**ruling, "charges": [
        {k: v for k, v in ruling["charges"][0].items() if k != "paid_path_in"}]})
    labelled = overlay.draw_plan(scene, ruling)
    # The paid length is written beside the path, in the path's colour.
    assert (np.all(labelled == palette.PATH, axis=-1).sum() >
            np.all(plain == palette.PATH, axis=-1).sum())


def test_a_long_title_line_is_broken_to_fit_a_small_photo():
    """On 640 px photos the summary line ran off the right edge (outside testing, round 2):
    it is broken at its ' | ' joins, then between words, every piece within the width."""
    import cv2

    from vision.overlay import _TITLE_FONT, _fit_title, _title_scale

    lines = ["Ruling (tow)", "centre -> north: NOT DECLARABLE (blue scouts is not inside red "
             "guards' front arc) | front facing | 10.16\" away | needs 3\" (83%) | paid path "
             "2.00\" | TOO CLOSE TO CALL"]
    fitted = _fit_title(lines, 600.0, 1.0)
    assert len(fitted) >= 3 and fitted[0] == "Ruling (tow)"
    for i, s in enumerate(fitted):
        assert cv2.getTextSize(s, _TITLE_FONT, _title_scale(i, 1.0), 1)[0][0] <= 600
    words = " ".join(" ".join(fitted[1:]).replace("|", " ").split())
    assert words == " ".join(lines[1].replace("|", " ").split())  # nothing lost
