"""Accuracy and speed of photo -> scene on rendered tables (issue 4; figures in BENCHMARKS.md).

For every setting, ``--tables`` random tables (16 trays, 3 mm high with a dark rim, miniatures)
are rendered by ``vision.synth`` and detected by ``vision.detect``; errors are against the
renderer's exact ground truth. Reported per setting: detection rate, position error p50/p95
(mm), facing error p50/p95 (deg), worst tray-corner error p95 (mm), detection time p50 (ms,
JPEG decoding excluded and reported separately; wall clock and the process's CPU time, which
other jobs on the machine do not inflate), and the share of errors within 3 sigma.

    .venv/bin/python bench/vision.py            # 20 tables per setting (slow: ~1 h)
    .venv/bin/python bench/vision.py --quick    # 3 tables per setting
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from datetime import date
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from geometry import load_scene  # noqa: E402
from geometry.formation import corners  # noqa: E402
from vision import detect  # noqa: E402
from vision.camera import Intrinsics  # noqa: E402
from vision.synth import Shot, random_table, render  # noqa: E402

RES = {"1920x1080": (1920, 1080), "3840x2160": (3840, 2160), "4032x3024": (4032, 3024)}


def run(label: str, tables: int, res: str, tilt: float, marker: float, degraded: bool,
        k1: float = 0.0, table_markers: int = 4, **detect_kw) -> dict:
    w, h = RES[res]
    pos, face, corner, t_det, t_cpu, t_dec, within = [], [], [], [], [], [], []
    found = total = 0
    for seed in range(tables):
        scene, markers = random_table(1000 + seed, 16, marker, table_markers=table_markers)
        kw = dict(width=w, height=h, tilt_deg=tilt, seed=seed, k1=k1)
        shot = Shot.degraded(**kw) if degraded else Shot(**kw)
        r = render(scene, markers, shot)
        ok, buf = cv2.imencode(".jpg", r.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        t = time.perf_counter()
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        t_dec.append((time.perf_counter() - t) * 1000)
        kw2 = dict(detect_kw)
        if kw2.pop("calibrated", False):
            kw2["calibration"] = Intrinsics.from_json(r.camera.intr.to_json())
        t, c = time.perf_counter(), time.process_time()
        out = detect(img, markers, **kw2)
        t_det.append((time.perf_counter() - t) * 1000)
        t_cpu.append((time.process_time() - c) * 1000)
        truth = {u["id"]: u for u in r.scene["units"]}
        total += len(truth)
        found += len(out["units"])
        for u in out["units"]:
            tr = truth[u["id"]]
            su, tu = load_scene({"units": [u]}).units[0], load_scene({"units": [tr]}).units[0]
            a, b = corners(su.formation, su.pose), corners(tu.formation, tu.pose)
            pe = math.hypot(u["x"] - tr["x"], u["y"] - tr["y"])
            fe = abs((u["facing"] - tr["facing"] + 180) % 360 - 180)
            pos.append(pe)
            face.append(fe)
            corner.append(max(math.dist(a[k], b[k]) for k in a))
            within.append(pe <= 3 * u["sigma_mm"] + 1e-9 and fe <= 3 * u["sigma_deg"] + 1e-9)

    def p(v: list[float], q: float) -> float:
        return float(np.percentile(v, q)) if v else float("nan")

    return dict(label=label, res=res, tilt=tilt, marker=marker,
                cond="degraded" if degraded else "clean", found=f"{found}/{total}",
                pos50=p(pos, 50), pos95=p(pos, 95), face50=p(face, 50), face95=p(face, 95),
                corner95=p(corner, 95), ms=p(t_det, 50), cpu=p(t_cpu, 50), dec=p(t_dec, 50),
                sig3=float(np.mean(within)) if within else float("nan"))


def table(rows: list[dict]) -> str:
    head = ("| setting | res | tilt | marker mm | photo | found | pos p50/p95 mm | "
            "facing p50/p95 deg | corner p95 mm | detect ms p50 (wall / CPU) | JPEG decode ms | "
            "within 3 sigma |")
    lines = [head, "|" + "---|" * 12]
    for r in rows:
        lines.append(f"| {r['label']} | {r['res']} | {r['tilt']:g} | {r['marker']:g} | "
                     f"{r['cond']} | {r['found']} | {r['pos50']:.3f} / {r['pos95']:.3f} | "
                     f"{r['face50']:.3f} / {r['face95']:.3f} | {r['corner95']:.3f} | "
                     f"{r['ms']:.0f} / {r['cpu']:.0f} | {r['dec']:.0f} | {r['sig3']:.0%} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 tables per setting")
    ap.add_argument("--tables", type=int, default=None)
    ap.add_argument("--only", choices=["grid", "parallax", "lens"], default=None)
    a = ap.parse_args()
    n = a.tables or (3 if a.quick else 20)
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text()
                .splitlines() if ln.startswith("model name")), platform.processor())
    print(f"# {date.today()} · {os.cpu_count()} cores · {cpu} · OpenCV {cv2.__version__} · "
          f"{n} tables per setting, 16 trays each")
    rows: list[dict] = []
    if a.only in (None, "grid"):
        for res in RES:
            marker = 40.0 if res == "1920x1080" else 25.0
            for tilt in (0, 20, 40):
                for degraded in (False, True):
                    rows.append(run("grid", n, res, tilt, marker, degraded))
                    print(table(rows[-1:]).splitlines()[-1], flush=True)
    if a.only in (None, "parallax"):
        for corrected in (True, False):
            rows.append(run("parallax " + ("corrected" if corrected else "NOT corrected"), n,
                            "3840x2160", 20, 25.0, False, parallax=corrected))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    if a.only in (None, "lens"):
        for how, kw in (("k1=-0.05 ignored", dict(estimate_distortion=False)),
                        ("k1=-0.05 self-estimated (8 markers)", {}),
                        ("k1=-0.05 calibration file", dict(calibrated=True))):
            rows.append(run(how, n, "3840x2160", 20, 25.0, False, k1=-0.05, table_markers=8,
                            **kw))
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
