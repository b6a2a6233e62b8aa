"""Charge-engine speed (issue 3): one ruling on a 20-unit table with terrain, and a charge map
for 20 units a side. Prints figures for BENCHMARKS.md.

Usage: python bench/charges.py [--tables 30] [--seed 1] [--ruleset t9a-1 [--ruleset tow ...]]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import charges  # noqa: E402
import geometry as g  # noqa: E402
from bench.tables import random_table  # noqa: E402


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs), q))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--map-tables", type=int, default=5)
    ap.add_argument("--ruleset", action="append", default=None,
                    help="ruleset to bench (repeat; default t9a-1)")
    args = ap.parse_args()
    for name in args.ruleset or ["t9a-1"]:
        bench(args, name)


def bench(args: argparse.Namespace, name: str) -> None:
    ruleset = charges.get_ruleset(name)
    rng = np.random.default_rng(args.seed)
    times: list[float] = []
    outcomes: dict[str, int] = {}
    by_outcome: dict[str, list[float]] = {}
    for _ in range(args.tables):
        scene = random_table(rng, per_side=10, terrain=4)
        sc = g.load_scene(scene)
        # Every declarable charge on the table, each ruled on its own with random dice.
        pairs = [(m.charger, m.target) for m in charges.charge_map(sc, ruleset)
                 if m.declarable]
        for ch, tg in pairs:
            unit = sc.unit(ch)
            n = ruleset.dice_for(unit).n
            req = {"ruleset": name, "scene": scene, "charges": [{"charger": ch, "target": tg}],
                   "dice": {ch: [int(d) for d in rng.integers(1, 7, n)]}}
            t = time.perf_counter()
            try:
                ruling = charges.rule(req)
            except charges.RequestError:
                continue  # a contested whfb8 facing without its roll: not a timing
            times.append(time.perf_counter() - t)
            o = ruling["charges"][0]["outcome"]
            outcomes[o] = outcomes.get(o, 0) + 1
            by_outcome.setdefault(o, []).append(times[-1] * 1000)
    map_times = []
    entries = 0
    for _ in range(args.map_tables):
        sc = g.load_scene(random_table(rng, per_side=20, terrain=4))
        t = time.perf_counter()
        entries += len(charges.charge_map(sc, ruleset))
        map_times.append(time.perf_counter() - t)
    checked_times = []
    for _ in range(min(2, args.map_tables)):
        sc = g.load_scene(random_table(rng, per_side=20, terrain=4))
        t = time.perf_counter()
        charges.charge_map(sc, ruleset, check_moves=True)
        checked_times.append(time.perf_counter() - t)
    print(f"ruleset {name}; machine: {cpu_name()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d')}")
    print(f"single rulings on 20-unit tables with 4 terrain pieces: {len(times)} rulings "
          f"over {args.tables} tables; outcomes {outcomes}")
    ms = [t * 1000 for t in times]
    print(f"  all: median {statistics.median(ms):.1f} ms, p90 {pct(ms, 90):.1f} ms, p99 "
          f"{pct(ms, 99):.1f} ms, max {max(ms):.1f} ms")
    for o, xs in sorted(by_outcome.items()):
        print(f"  {o}: {len(xs)} rulings, median {statistics.median(xs):.1f} ms, p99 "
              f"{pct(xs, 99):.1f} ms")
    print(f"charge map (odds only), 20 units a side: {args.map_tables} tables, {entries} "
          f"charges mapped; median {statistics.median(map_times):.3f} s, max "
          f"{max(map_times):.3f} s")
    print(f"charge map with every move searched: median {statistics.median(checked_times):.2f}"
          f" s over {len(checked_times)} tables")


if __name__ == "__main__":
    main()
