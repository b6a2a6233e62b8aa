"""Routes of a La Bataille rally move (HEX.md 8.3, D-18 to D-20): movement-point costs from the
rules data (``tec_mp``, ``tec_mp_hexside``, ``go_terrain``), a Dijkstra search forward from the
unit and backward from the hexes within the leader's command range, and the most-straight
least-cost route (D-19)."""

from __future__ import annotations

import heapq
from functools import cache

from geometry import hexgrid as hg

from .position import HexUnit
from .ruling import Context

INF = float("inf")
GO_EXEMPT = ("skirmish", "road_column", "disordered", "pgd")
#: How far beyond the straight distance to the leader an unbounded map is searched (hexes).
SEARCH_MARGIN = 6


def _dijkstra(sources: list[hg.Hex], expand) -> dict[hg.Hex, float]:
    """Least cost from ``sources`` to every hex; ``expand(h)`` yields ``(next, cost)`` with
    cost None for a step that may not be taken."""
    dist: dict[hg.Hex, float] = {h: 0 for h in sources}
    heap = [(0, h) for h in sources]
    while heap:
        d, h = heapq.heappop(heap)
        if d > dist[h]:
            continue
        for n, c in expand(h):
            if c is not None and d + c < dist.get(n, INF):
                dist[n] = d + c
                heapq.heappush(heap, (d + c, n))
    return dist


class Routes:
    """The least-cost routes from the unit's hex to its leader's command range."""

    def __init__(self, ctx: Context, unit: HexUnit, leader: hg.Hex, rng: int,
                 allowance: int) -> None:
        self.ctx, self.unit, self.leader, self.rng = ctx, unit, leader, rng
        self.allowance = allowance
        self.start = unit.hexes[0]
        self.metric = ctx.opt("rally_shortest")
        pos = ctx.position
        self.enemy = {h for o in pos.enemies_of(unit.side) for h in o.hexes}
        self.near_enemy = {n for h in self.enemy for n in [h, *hg.neighbours(h)]}
        self.radius = hg.distance(self.start, leader) + max(SEARCH_MARGIN, allowance)
        self.line = hg.hex_line(self.start, leader).all_hexes() - {self.start}
        self.avoid_adjacent = ctx.opt("rally_adjacent") == "any_point"
        self.dist_s = self._forward()
        self.goals = self._goals()
        self.best = min((self.dist_s[g] for g in self.goals), default=INF)
        self.goals = {g for g in self.goals if self.dist_s[g] == self.best}
        self.dist_g = self._backward()

    # -- costs -----------------------------------------------------------------------------
    def cost(self, a: hg.Hex, b: hg.Hex) -> int | None:
        """MP to enter ``b`` from ``a`` (None: prohibited)."""
        pos = self.ctx.position
        if b in self.enemy or not pos.map.on_map(b):
            return None
        mp = self.ctx.table("movement", f"tec_mp.{pos.map.terrain_of(b)}", required=False)
        if mp is None:
            tec = self.ctx.table("movement", "tec_mp")
            if pos.map.terrain_of(b) in tec:
                return None  # listed as null: prohibited
            self.ctx.table("movement", f"tec_mp.{pos.map.terrain_of(b)}")
        extra = 0
        for feat in pos.map.features(a, hg.direction(a, b)):
            sides = self.ctx.table("movement", "tec_mp_hexside")
            name = feat.get("feature")
            if name in sides and sides[name] is None:
                return None  # listed as null: prohibited
            extra += int(self.ctx.table("movement", f"tec_mp_hexside.{name}"))
        return int(mp) + extra

    def step(self, a: hg.Hex, b: hg.Hex) -> int | None:
        c = self.cost(a, b)
        if c is None:
            return None
        return c if self.metric == "mp" else 1

    def enemy_adjacent(self, h: hg.Hex) -> bool:
        return h in self.near_enemy

    def is_go(self, h: hg.Hex) -> bool:
        m = self.ctx.position.map
        t = m.terrain_of(h)
        if t == m.default_terrain and not self.ctx.has("go_terrain"):
            return False
        return t in self.ctx.table("General Order", "go_terrain")

    def in_range(self, h: hg.Hex) -> bool:
        return hg.distance(h, self.leader) <= self.rng

    def _passable(self, h: hg.Hex) -> bool:
        return hg.distance(h, self.start) <= self.radius and not (
            self.avoid_adjacent and self.enemy_adjacent(h))

    # -- searches ----------------------------------------------------------------------------
    def _forward(self) -> dict[hg.Hex, float]:
        def expand(h: hg.Hex):
            if h != self.start and self.in_range(h):
                return  # a route ends where it enters the command range
            for n in hg.neighbours(h):
                if self._passable(n):
                    yield n, self.step(h, n)
        return _dijkstra([self.start], expand)

    def _goals(self) -> set[hg.Hex]:
        reach = [h for h in self.dist_s if h != self.start and not self.enemy_adjacent(h)]
        goals = {h for h in reach if self.in_range(h)}
        if goals:
            return goals
        if not reach:
            return set()
        # No hex in range is reachable: the reachable hexes nearest the leader.
        near = min(hg.distance(h, self.leader) for h in reach)
        return {h for h in reach if hg.distance(h, self.leader) == near}

    def _backward(self) -> dict[hg.Hex, float]:
        """Cost from each hex to the goals, over hexes a route may pass through."""
        def expand(n: hg.Hex):
            for p in hg.neighbours(n):
                if p in self.dist_s and p not in self.goals and (
                        p == self.start or not self.in_range(p)):
                    yield p, self.step(p, n)
        return _dijkstra(list(self.goals), expand)

    def _on_best(self, h: hg.Hex) -> bool:
        return self.dist_s.get(h, INF) + self.dist_g.get(h, INF) == self.best

    def _successors(self, h: hg.Hex) -> list[hg.Hex]:
        if h in self.goals:
            return []
        out = []
        for n in hg.neighbours(h):
            c = self.step(h, n) if n in self.dist_s else None
            if c is not None and self.dist_s[h] + c == self.dist_s[n] and self._on_best(n):
                out.append(n)
        return out

    def line_score(self, h: hg.Hex) -> int:
        """The most hexes on the hex line an optimal route from ``h`` can still cover."""
        @cache
        def score(x: hg.Hex) -> int:
            return max((int(n in self.line) + score(n) for n in self._successors(x)),
                       default=0)
        return score(h)

    def best_route(self) -> list[hg.Hex]:
        """D-19: the least-cost route with the most hexes on the line (first in side order
        among ties)."""
        if self.best == INF:
            return []
        route, h = [], self.start
        while h not in self.goals:
            nxt = self._successors(h)
            if not nxt:
                break
            h = max(nxt, key=lambda n: int(n in self.line) + self.line_score(n))
            route.append(h)
        return route

    def tied_count(self) -> int:
        target = self.line_score(self.start)

        @cache
        def count(x: hg.Hex, need: int) -> int:
            if x in self.goals:
                return int(need <= 0)
            return sum(count(n, need - int(n in self.line)) for n in self._successors(x))
        return count(self.start, target) if self.best != INF else 0

    # -- the move along a route ---------------------------------------------------------------
    def stop_reason(self, h: hg.Hex, i: int, go_start: bool) -> tuple[str, str] | None:
        """Why the move must end at ``h`` (the ``i``-th hex entered), if it must."""
        if self.in_range(h):
            return ("RALLY_DID_NOT_STOP", f"it entered its leader's command range at {list(h)} "
                    f"and must stop there")
        if self.unit.formation in GO_EXEMPT:
            return None
        if go_start and i == 0 and self.is_go(h):
            return ("RALLY_GO_TO_GO_MORE_THAN_ONE", f"from General Order into General Order "
                    f"terrain at {list(h)}: it stops after one hex")
        if self.is_go(h) and self.ctx.opt("go_entry") == "stop":
            return ("RALLY_ENTERED_GO_CONTINUED", f"it entered General Order terrain at "
                    f"{list(h)} and stops there")
        return None

    def move_along(self, route: list[hg.Hex]) -> list[hg.Hex]:
        out, spent, prev = [], 0, self.start
        go_start = self.unit.formation == "general_order"
        for i, h in enumerate(route):
            c = self.cost(prev, h)
            if c is None or spent + c > self.allowance:
                break
            spent += c
            out.append(h)
            if self.stop_reason(h, i, go_start):
                break
            prev = h
        return out

    def judge_prefix(self, path: list[hg.Hex]) -> str:
        """``ok``, ``not_shortest`` or ``not_straight`` for a proposed path (D-19)."""
        total, prev = 0, self.start
        for h in path:
            c = self.step(prev, h)
            if c is None:
                return "not_shortest"
            total += c
            if self.dist_s.get(h) != total or not self._on_best(h):
                return "not_shortest"
            prev = h
        covered = sum(1 for h in path if h in self.line)
        if covered + self.line_score(path[-1] if path else self.start) < self.line_score(
                self.start):
            return "not_straight"
        return "ok"

    def formation_after(self, end: hg.Hex, walked: dict) -> str:
        u = self.unit
        if end == self.start:
            return u.formation
        if u.formation not in GO_EXEMPT and self.is_go(end) and (
                self.ctx.opt("go_entry") == "stop" or u.formation == "general_order"):
            return "general_order"
        if u.formation == "general_order":
            return "column"
        return u.formation

    def metric_words(self) -> str:
        return "movement points" if self.metric == "mp" else "hexes"


__all__ = ["Routes", "GO_EXEMPT"]
