"""Hex-engine speed (issue 14): a Musket & Pike close-combat ruling, the reaction candidates for
a 10-hex move among 60 units, and the La Bataille chit cup of a 40-chit turn replayed. Each
figure is the whole ``charges.hex_rule`` call (position validation included). Prints figures
for BENCHMARKS.md.

Usage: python bench/hex.py [--repeat 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import charges  # noqa: E402
from bench.charges import cpu_name  # noqa: E402

SAMPLES = Path(__file__).resolve().parent.parent / "server" / "samples" / "hex"


def rules_data() -> dict:
    return json.loads((SAMPLES / "rules-data-illustrative.json").read_text())


def crowded_position(rng: random.Random, n_units: int = 60) -> tuple[dict, list[dict]]:
    """60 one-hex units on a 20x20 map with woods, half a side; one royalist cavalry unit moves
    ten hexes north through the middle of them."""
    taken = {(0, q) for q in range(-1, 11)}  # the mover's column stays clear
    units: list[dict] = []
    woods = [(rng.randrange(-9, 10), rng.randrange(-9, 10)) for _ in range(40)]
    # One entry a hex (HEX.md 14; a hex listed twice is refused): the same draws as before.
    hexes = [{"q": q, "r": r, "terrain": "woods"} for q, r in dict.fromkeys(woods)]
    while len(units) < n_units:
        q, r = rng.randrange(-9, 10), rng.randrange(-9, 10)
        if (q, r) in taken:
            continue
        taken.add((q, r))
        side = "par" if len(units) % 2 else "roy"
        typ = rng.choice(["cavalry", "heavy_infantry", "light_infantry", "dragoons",
                          "artillery"])
        u = {"id": f"u{len(units)}", "side": side, "type": typ, "hexes": [[q, r]],
             "facing": rng.choice([1, 3, 5, 7, 9, 11]), "strength_printed": 4, "morale": 6,
             "state": {"active": side == "roy"}}
        if typ == "artillery":
            u["capabilities"] = {"short_range": 3, "max_range": 8}
        units.append(u)
    units.append({"id": "mover", "side": "roy", "type": "cavalry", "hexes": [[0, 10]],
                  "facing": 11, "strength_printed": 4, "morale": 7, "state": {"active": True}})
    pos = {"schema": "umpire.hex-position/1", "ruleset": "mpbs-6",
           "map": {"default_terrain": "clear", "hexes": [h for h in hexes
                                                         if (h["q"], h["r"]) not in taken]},
           "turn": {"phase": "movement"}, "units": units}
    events = [{"kind": "enter_hex", "unit": "mover", "hex": [0, 9 - i]} for i in range(10)]
    return pos, events


def cup_position(n_chits: int = 40) -> tuple[dict, list[str]]:
    mus = [{"id": f"MU{i}", "side": "french" if i % 2 else "allied", "units": []}
           for i in range(n_chits - 4)]
    pos = {"schema": "umpire.hex-position/1", "ruleset": "lb",
           "turn": {"initiative_side": "french", "clock": "14:00"}, "units": [],
           "leaders": [{"id": "l1", "side": "french", "hexes": [[0, 0]]},
                       {"id": "l2", "side": "allied", "hexes": [[5, 5]]}],
           "maneuver_units": mus, "reinforcements": []}
    order = [m["id"] for m in mus] + ["reinforcements", "artillery", "leaders", "rally"]
    random.Random(5).shuffle(order)
    return pos, order


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    fn()  # warm
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def report(name: str, ms: list[float], target: float) -> None:
    ms = sorted(ms)
    p90 = ms[int(0.9 * (len(ms) - 1))]
    print(f"{name}: median {statistics.median(ms):.2f} ms, p90 {p90:.2f} ms, max "
          f"{ms[-1]:.2f} ms over {len(ms)} runs (target {target:g} ms)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    data = rules_data()
    print(f"machine: {cpu_name()}, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    sample = json.loads((SAMPLES / "edgehill.json").read_text())
    report("close-combat ruling (Edgehill sample, 1 attacker, pistols)",
           timed(lambda: charges.hex_rule("combat", sample, defender="par-ramsey",
                                          pistols=["roy-byron"], rules_data=data),
                 args.repeat), 5)
    pos, events = crowded_position(random.Random(args.seed))
    ruling = charges.hex_rule("reactions", pos, events=events, rules_data=data)
    eligible = sum(bool(c["eligible"]) for c in ruling["candidates"])
    report(f"reaction candidates, 10-hex move among 60 units ({len(ruling['candidates'])} "
           f"candidate entries, {eligible} eligible)",
           timed(lambda: charges.hex_rule("reactions", pos, events=events, rules_data=data),
                 max(20, args.repeat // 5)), 50)
    cpos, order = cup_position()
    report("chit cup, 40-chit turn replayed",
           timed(lambda: charges.hex_rule("cup", cpos, order=order), args.repeat), 20)


if __name__ == "__main__":
    main()
