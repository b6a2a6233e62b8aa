"""Server load (issue 5; BENCHMARKS.md, "Server load").

Starts ``umpire serve`` on a free loopback port with a fresh data folder (or uses ``--url``, which
must be a loopback address), then runs ``--clients`` concurrent clients for ``--seconds``: each
loops over a mix of rulings (``POST /api/rulings`` on the bundled sample scene, a random charge
of the sample with random dice) and detections (``POST /api/detect`` of the bundled sample photo
with its markers). Prints throughput, p50/p99 latency per kind and every error.

Bounded on purpose: loopback only, a fixed duration and a hard cap on requests.

    .venv/bin/python bench/load.py                  # 50 clients, 30 s, 20% detections
    .venv/bin/python bench/load.py --clients 10 --seconds 5
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import os
import platform
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlparse

import httpx

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "server" / "samples"
MAX_REQUESTS = 200_000  # a hard stop whatever the duration


def loopback_only(url: str) -> str:
    host = urlparse(url).hostname or ""
    try:
        ok = ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = host == "localhost"
    if not ok:
        raise SystemExit(f"--url {url}: this benchmark only talks to loopback addresses")
    return url.rstrip("/")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(data: Path, log: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", "from server.cli import main; main()", "serve", "--host",
         "127.0.0.1", "--port", str(port), "--data", str(data)],
        stdout=open(log, "wb"), stderr=subprocess.STDOUT, cwd=ROOT)  # noqa: SIM115
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"umpire serve exited:\n{log.read_text()}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url + "/api/reviews?limit=1", timeout=2).status_code == 200:
                return proc, url
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("umpire serve did not start in 30 s")


def charges_of(scene: dict) -> list[tuple[str, str, int]]:
    """Every charger/target pair of enemies in the sample, with the charger's dice count."""
    out = []
    for a in scene["units"]:
        if a.get("advance_in") is None:
            continue
        for b in scene["units"]:
            if a["side"] != b["side"]:
                out.append((a["id"], b["id"], 3 if a.get("swiftstride") else 2))
    return out


async def run(url: str, clients: int, seconds: float, detect_share: float,
              samples: Path) -> dict:
    scene = json.loads((samples / "scene.json").read_text())
    photo = (samples / "table.jpg").read_bytes()
    markers = (samples / "markers.json").read_text()
    pairs = charges_of(scene)
    lat: dict[str, list[float]] = defaultdict(list)
    in_window: Counter[str] = Counter()  # answers that arrived before the deadline
    errors: Counter[str] = Counter()
    count = 0
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as c:
        # One warm-up of each kind, so imports and first-call costs are not measured.
        await c.post("/api/detect", files={"photo": ("t.jpg", photo, "image/jpeg")},
                     data={"markers": markers})
        await c.post("/api/rulings", json={"scene": scene, "charges": [
            {"charger": pairs[0][0], "target": pairs[0][1]}]})
        t0 = time.perf_counter()
        stop_at = t0 + seconds

        async def client(k: int) -> None:
            nonlocal count
            rng = random.Random(k)
            while time.perf_counter() < stop_at and count < MAX_REQUESTS:
                count += 1
                if rng.random() < detect_share:
                    kind = "detect"
                    req = c.post("/api/detect", files={"photo": ("t.jpg", photo, "image/jpeg")},
                                 data={"markers": markers})
                else:
                    kind = "ruling"
                    charger, target, n = rng.choice(pairs)
                    req = c.post("/api/rulings", json={
                        "scene": scene, "charges": [{"charger": charger, "target": target}],
                        "dice": {charger: [rng.randint(1, 6) for _ in range(n)]}})
                t = time.perf_counter()
                try:
                    r = await req
                    ok = r.status_code == 200
                    if not ok:
                        errors[f"{kind}: HTTP {r.status_code} {r.text[:120]}"] += 1
                except httpx.HTTPError as e:
                    ok = False
                    errors[f"{kind}: {type(e).__name__}"] += 1
                if ok:
                    done = time.perf_counter()
                    lat[kind].append(done - t)
                    if done <= stop_at:
                        in_window[kind] += 1

        await asyncio.gather(*(client(k) for k in range(clients)))
        elapsed = time.perf_counter() - t0
    return {"elapsed": elapsed, "window": seconds, "lat": lat, "in_window": in_window,
            "errors": errors, "sent": count}


def engine_ms(samples: Path, n: int = 40) -> float:
    """Median CPU time of one ``charges.rule`` call on the benchmark's requests, in this
    process: the floor under every ruling latency (the engine changes; the server does not)."""
    # bench/ holds a charges.py of its own (the engine's benchmark) that would shadow the
    # package when this file runs as a script.
    if str(ROOT) not in sys.path[:1]:
        sys.path.insert(0, str(ROOT))
    import charges

    scene = json.loads((samples / "scene.json").read_text())
    rng = random.Random(0)
    times = []
    for _ in range(n):
        charger, target, k = rng.choice(charges_of(scene))
        req = {"scene": scene, "charges": [{"charger": charger, "target": target}],
               "dice": {charger: [rng.randint(1, 6) for _ in range(k)]}}
        t = time.process_time()
        charges.rule(req)
        times.append(time.process_time() - t)
    return sorted(times)[len(times) // 2] * 1000


def pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def report(res: dict, clients: int, seconds: float, detect_share: float) -> str:
    # Throughput counts the answers that arrived within the window (requests still in flight
    # at the deadline are waited for, and their latency counted, but not their throughput).
    window = res["window"]
    ok_total = sum(len(v) for v in res["lat"].values())
    err_total = sum(res["errors"].values())
    lines = [
        f"date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}, "
        f"Python {platform.python_version()} (server and clients on the same machine)",
        f"load: {clients} concurrent clients for {seconds:g} s, {detect_share:.0%} detections, "
        f"the rest rulings with random dice",
        "",
        "| kind | requests ok | throughput (req/s) | p50 (ms) | p99 (ms) | max (ms) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for kind in ("ruling", "detect"):
        xs = res["lat"].get(kind, [])
        lines.append(f"| {kind} | {len(xs)} | {res['in_window'][kind] / window:.1f} | "
                     f"{pct(xs, 50) * 1e3:.0f} "
                     f"| {pct(xs, 99) * 1e3:.0f} | {max(xs, default=float('nan')) * 1e3:.0f} |")
    all_ = [x for v in res["lat"].values() for x in v]
    total_in = sum(res["in_window"].values())
    lines.append(f"| all | {ok_total} | {total_in / window:.1f} | {pct(all_, 50) * 1e3:.0f} | "
                 f"{pct(all_, 99) * 1e3:.0f} | {max(all_, default=float('nan')) * 1e3:.0f} |")
    lines.append("")
    lines.append(f"errors: {err_total} (of {res['sent']} requests sent; the last answers came "
                 f"{res['elapsed'] - window:.1f} s after the window closed)")
    for e, n in res["errors"].most_common():
        lines.append(f"  {n} x {e}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--detect-share", type=float, default=0.2,
                    help="fraction of requests that are detections (default 0.2)")
    ap.add_argument("--url", help="a running server on loopback (default: start one)")
    ap.add_argument("--samples", type=Path, default=SAMPLES,
                    help="folder with table.jpg, markers.json and scene.json")
    args = ap.parse_args()
    if not 1 <= args.clients <= 500 or not 0 < args.seconds <= 600:
        raise SystemExit("--clients must be 1..500 and --seconds 0..600")
    proc = None
    tmp = tempfile.TemporaryDirectory(prefix="umpire-load-")
    try:
        if args.url:
            url = loopback_only(args.url)
        else:
            proc, url = start_server(Path(tmp.name) / "data", Path(tmp.name) / "server.log")
        print(f"engine alone: {engine_ms(args.samples):.0f} ms CPU per ruling (median, "
              "charges.rule in one process)")
        before = os.getloadavg()[0]
        res = asyncio.run(run(url, args.clients, args.seconds, args.detect_share,
                              args.samples))
        print(report(res, args.clients, args.seconds, args.detect_share))
        # Other work on the machine skews every figure above: say how busy it was.
        print(f"1-minute load average: {before:.1f} before, {os.getloadavg()[0]:.1f} after "
              f"({os.cpu_count()} CPUs)")
    finally:
        if proc is not None:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
            if proc.poll() is None:
                proc.kill()
        tmp.cleanup()


if __name__ == "__main__":
    main()
