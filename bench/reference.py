"""Reference rulings: a large fixed set of requests whose rulings a refactor must keep byte for
byte (the developers' guide: "compare the full set of reference rulings byte for byte before and
after").

The set: every declarable charge on the bench's random 20-unit tables (each with random dice, as
``bench/charges.py`` draws them), the same charges without dice (odds only), multiple charges
(two or three chargers that can all declare against one target), every scenario request under
``tests/scenarios/`` and the bundled sample.

Usage::

    python bench/reference.py write OUT.jsonl [--tables 12] [--ruleset t9a-1]
    python bench/reference.py compare A.jsonl B.jsonl

``compare`` prints every request whose ruling differs (with the first differing keys) and exits
1 when any does. Errors (bad requests) are recorded as their message, so a changed error
message shows up too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import charges  # noqa: E402
import geometry as g  # noqa: E402
from bench.tables import random_table  # noqa: E402


def requests(tables: int, seed: int, ruleset: str) -> Iterator[tuple[str, dict]]:
    rng = np.random.default_rng(seed)
    for t in range(tables):
        scene = random_table(rng, per_side=10, terrain=4)
        sc = g.load_scene(scene)
        pairs = [(m.charger, m.target) for m in charges.charge_map(sc) if m.declarable]
        for ch, tg in pairs:
            n = 3 if sc.unit(ch).swiftstride else 2
            dice = [int(d) for d in rng.integers(1, 7, n)]
            base = {"ruleset": ruleset, "scene": scene, "charges": [{"charger": ch, "target": tg}]}
            yield f"table{t}/{ch}>{tg}/dice", {**base, "dice": {ch: dice}}
            yield f"table{t}/{ch}>{tg}/odds", base
        by_target: dict[str, list[str]] = {}
        for ch, tg in pairs:
            by_target.setdefault(tg, []).append(ch)
        for tg, chs in sorted(by_target.items()):
            if len(chs) < 2:
                continue
            for group in (chs[:2], chs[:3]) if len(chs) > 2 else (chs[:2],):
                dice = {c: [int(d) for d in rng.integers(1, 7, 3 if sc.unit(c).swiftstride
                                                        else 2)] for c in group}
                base = {"ruleset": ruleset, "scene": scene,
                        "charges": [{"charger": c, "target": tg} for c in group]}
                yield f"table{t}/{'+'.join(group)}>{tg}/dice", {**base, "dice": dice}
                yield f"table{t}/{'+'.join(group)}>{tg}/odds", base
    for path in sorted((ROOT / "tests" / "scenarios").glob("*/*.json")):
        data = json.loads(path.read_text())
        req = data.get("request")
        if isinstance(req, dict) and req.get("ruleset", "t9a-1") == ruleset:
            yield f"scenario/{path.name}", req
    sample = json.loads((ROOT / "server" / "samples" / "scene.json").read_text())
    if ruleset == "t9a-1":
        yield "sample", {"scene": sample, "charges": [{"charger": "knights", "target": "spears"}],
                         "dice": {"knights": [3, 5, 2]}}


def write(out: Path, tables: int, seed: int, ruleset: str) -> None:
    t0 = time.perf_counter()
    n = 0
    with out.open("w") as f:
        for key, req in requests(tables, seed, ruleset):
            try:
                result: object = charges.rule(req)
            except ValueError as e:
                result = {"error": str(e)}
            f.write(json.dumps({"key": key, "ruling": result}, sort_keys=True) + "\n")
            n += 1
    print(f"{n} rulings written to {out} in {time.perf_counter() - t0:.0f} s")


def _diff(a: object, b: object, path: str = "") -> list[str]:
    if type(a) is not type(b):
        return [path or "."]
    if isinstance(a, dict):
        out: list[str] = []
        for k in sorted(set(a) | set(b)):  # type: ignore[arg-type]
            if k not in a or k not in b:
                out.append(f"{path}.{k}")
            else:
                out += _diff(a[k], b[k], f"{path}.{k}")  # type: ignore[index]
        return out
    if isinstance(a, list):
        if len(a) != len(b):  # type: ignore[arg-type]
            return [f"{path}[len]"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))  # type: ignore[arg-type]
                for d in _diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [path]


def compare(a: Path, b: Path) -> int:
    left = [json.loads(line) for line in a.read_text().splitlines()]
    right = [json.loads(line) for line in b.read_text().splitlines()]
    rmap = {r["key"]: r["ruling"] for r in right}
    differ = 0
    for row in left:
        other = rmap.pop(row["key"], None)
        if other is None:
            print(f"only in {a.name}: {row['key']}")
            differ += 1
        elif json.dumps(other, sort_keys=True) != json.dumps(row["ruling"], sort_keys=True):
            keys = _diff(row["ruling"], other)
            print(f"differs: {row['key']}: {', '.join(keys[:6])}"
                  f"{' ...' if len(keys) > 6 else ''}")
            differ += 1
    for key in rmap:
        print(f"only in {b.name}: {key}")
        differ += 1
    print(f"{len(left)} rulings compared, {differ} differ")
    return 1 if differ else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("out", type=Path)
    w.add_argument("--tables", type=int, default=12)
    w.add_argument("--seed", type=int, default=1)
    w.add_argument("--ruleset", default="t9a-1")
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = ap.parse_args()
    if args.cmd == "write":
        write(args.out, args.tables, args.seed, args.ruleset)
    else:
        sys.exit(compare(args.a, args.b))


if __name__ == "__main__":
    main()
