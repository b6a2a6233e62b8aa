"""Line of sight for reactions (M&P 9.1.3; HEX.md 6.2, D-10). The game's blocking rules are not
public, so they are data: hexes whose terrain is in the rules data's ``blocks_los`` (or that the
map marks ``"blocks_los": true``) and hexside features in the same list block; adjacent hexes
always see each other. A line along a spine is blocked only if both runs are (option
``los_spine: either``: if either is).

Speed (one ruling may ask for thousands of lines over a big map): what each listed hex and
hexside means for sight is worked out once per ruling (:class:`_Sight`); a line is only traced
when something that could block it (or need the ``blocks_los`` table) lies in the box of hexes
it can pass through; and each answer is kept per (origin hexes, target) for the ruling, so the
reaction kinds of one candidate (fire, moves, interception) share one answer."""

from __future__ import annotations

from collections.abc import Iterable

from geometry import hexgrid as hg

from .ruling import Context, MissingRulesData

#: Side of the square buckets (in q and r) that index the hexes able to block a line.
_CELL = 16


class _Sight:
    """What the map means for sight, for one ruling: per hex its ``blocks_los`` flag or its
    non-default terrain, per crossing of a listed hexside its feature names, and a coarse
    index of every hex that could block a line or need the table."""

    def __init__(self, ctx: Context) -> None:
        m = ctx.position.map
        listed = ctx.table("9.1.3", "blocks_los", required=False)
        self.blocking: set[str] | None = set(listed) if listed is not None else None
        self.flags: dict[hg.Hex, object] = {
            h: info["blocks_los"] for h, info in m.info.items()
            if info.get("blocks_los") is not None}
        self.terrain: dict[hg.Hex, str] = {h: t for h, t in m.terrain.items()
                                           if t != m.default_terrain}
        self.sides: dict[tuple[hg.Hex, hg.Hex], list] = {}
        for (q, r, k), feats in m.hexsides.items():
            a, b = (q, r), hg.neighbour((q, r), k)
            names = [f.get("feature") for f in feats]
            self.sides[(a, b)] = self.sides[(b, a)] = names
        # Hexes where a line could be blocked, or could need the table: a blocking flag, a
        # terrain that blocks (any non-default terrain while the table is missing), either
        # hex of a hexside with a feature that blocks (any feature while it is missing).
        risky: set[hg.Hex] = {h for h, f in self.flags.items() if f}
        for h, t in self.terrain.items():
            if h not in self.flags and (self.blocking is None or t in self.blocking):
                risky.add(h)
        for (a, b), names in self.sides.items():
            if self.blocking is None or any(n in self.blocking for n in names):
                risky |= {a, b}
        self.cells: set[tuple[int, int]] = {(h[0] // _CELL, h[1] // _CELL) for h in risky}
        self.risky = risky

    def may_block(self, a: hg.Hex, b: hg.Hex) -> bool:
        """False when nothing that blocks sight (or needs the table) lies in the box of hexes
        the line from ``a`` to ``b`` can pass through (each cube coordinate between the ends',
        one hex of rounding either way)."""
        if not self.risky:
            return False
        q0, q1 = sorted((a[0], b[0]))
        r0, r1 = sorted((a[1], b[1]))
        s0, s1 = sorted((-a[0] - a[1], -b[0] - b[1]))
        q0, q1, r0, r1, s0, s1 = q0 - 1, q1 + 1, r0 - 1, r1 + 1, s0 - 1, s1 + 1
        cells = range(q0 // _CELL, q1 // _CELL + 1), range(r0 // _CELL, r1 // _CELL + 1)
        if len(cells[0]) * len(cells[1]) > len(self.risky):
            return any(q0 <= h[0] <= q1 and r0 <= h[1] <= r1 and s0 <= -h[0] - h[1] <= s1
                       for h in self.risky)
        return any((cq, cr) in self.cells for cq in cells[0] for cr in cells[1])

    def run_blocked(self, ctx: Context, run: Iterable[hg.Hex], last: int) -> bool:
        """Whether the run (hexes ``0..last`` of one hex line) is blocked; it stops at the
        first blocking hex or hexside, so a lazy run is traced no further."""
        flags, terrain, sides, blocking = self.flags, self.terrain, self.sides, self.blocking
        prev = None
        for i, h in enumerate(run):
            if 0 < i < last:
                flag = flags.get(h)
                if flag is not None:
                    if flag:
                        return True
                    prev = h
                    continue
                t = terrain.get(h)
                if t is not None:
                    if blocking is None:
                        ctx.table("9.1.3", "blocks_los")
                    if t in blocking:  # type: ignore[operator]
                        return True
            if i:
                names = sides.get((prev, h))  # type: ignore[arg-type]
                if names:
                    if blocking is None:
                        ctx.table("9.1.3", "blocks_los")
                    if any(n in blocking for n in names):  # type: ignore[operator]
                        return True
            prev = h
        return False


def _run(a: hg.Hex, b: hg.Hex, sign: float):
    """The hexes of one run of :func:`geometry.hexgrid.hex_line` (``sign`` +1 or -1 for its
    nudge), the same figures in the same order, one at a time."""
    n = hg.distance(a, b)
    nudge = hg._NUDGE
    aq, ar = a[0] + sign * nudge[0], a[1] + sign * nudge[1]
    as_ = -a[0] - a[1] + sign * nudge[2]
    bq, br, bs = b[0], b[1], -b[0] - b[1]
    if n == 0:
        yield a
        return
    for i in range(n + 1):
        yield hg._cube_round(aq + (bq - aq) * i / n, ar + (br - ar) * i / n,
                             as_ + (bs - as_) * i / n)


_MISSING = object()


def clear_los(ctx: Context, origins: Iterable[hg.Hex], target: hg.Hex) -> bool:
    """True if any origin hex sees ``target``; raises ``MissingRulesData`` (after recording
    ``NEEDS_RULES_DATA``) when terrain on the line needs the ``blocks_los`` table. Answers are
    kept for the ruling by (origins, target)."""
    origins = tuple(origins)
    cache = ctx.cache.setdefault("los", {})
    key = (origins, target)
    got = cache.get(key)
    if got is None:
        try:
            got = _clear_los(ctx, origins, target)
        except MissingRulesData:
            got = _MISSING
        cache[key] = got
    if got is _MISSING:
        ctx.table("9.1.3", "blocks_los")  # records nothing new; raises MissingRulesData
        raise MissingRulesData("blocks_los")
    return bool(got)


def _clear_los(ctx: Context, origins: tuple[hg.Hex, ...], target: hg.Hex) -> bool:
    if any(hg.distance(o, target) <= 1 for o in origins):
        return True
    sight = ctx.cache.get("sight")
    if sight is None:
        sight = ctx.cache["sight"] = _Sight(ctx)
    either = ctx.opt("los_spine") == "either"
    for o in origins:
        if not sight.may_block(o, target):
            return True
        last = hg.distance(o, target)
        if sight.blocking is not None:
            # With the table nothing can be missing, so the runs are traced lazily: off a
            # spine the two runs are one, so "both" is blocked iff both runs are, "either"
            # iff either is, and the second run is traced only when it can change that.
            first = sight.run_blocked(ctx, _run(o, target, 1.0), last)
            if first == either:
                if not first:
                    return True
                continue
            if not sight.run_blocked(ctx, _run(o, target, -1.0), last):
                return True
            continue
        line = hg.hex_line(o, target)
        first = sight.run_blocked(ctx, line.hexes, last)
        if not line.spine:
            if not first:
                return True
            continue
        second = sight.run_blocked(ctx, line.other, last)
        if not ((first or second) if either else (first and second)):
            return True
    return False


__all__ = ["clear_los", "MissingRulesData"]
