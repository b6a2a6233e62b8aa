"""Routes of a La Bataille rally move (HEX.md 8.3, D-18 to D-20): movement-point costs from the
rules data (``tec_mp``, ``tec_mp_hexside``, ``go_terrain``), a Dijkstra search forward from the
unit and backward from the hexes within the leader's command range, and the most-straight
least-cost route (D-19)."""

from __future__ import annotations

import heapq

from geometry import hexgrid as hg

from .errors import HexRequestError
from .position import HexUnit
from .ruling import Context

INF = float("inf")
GO_EXEMPT = ("skirmish", "road_column", "disordered", "pgd")
#: How many hexes of detour the search allows on each side of the straight way to the leader
#: (HEX.md 14: the map is unbounded unless it gives bounds): at least this many ...
SEARCH_MARGIN = 6
#: ... and at most this many, however large the allowance: the search region is the ellipse of
#: hexes ``h`` with ``d(start, h) + d(h, leader) <= d(start, leader) + 2 * margin``, so its
#: size depends on the distance to the leader and this margin, never on the allowance alone.
MAX_MARGIN = 12


def _dijkstra(sources: list[hg.Hex], expand, until=None) -> dict[hg.Hex, float]:
    """Least cost from ``sources`` to every hex; ``expand(h)`` yields ``(next, cost)`` with
    cost None for a step that may not be taken. ``until(h)`` true for a popped hex fixes the
    best cost: the search stops once every hex of that cost has been settled (each hex of
    cost <= the best is then final)."""
    dist: dict[hg.Hex, float] = {h: 0 for h in sources}
    heap = [(0, h) for h in sources]
    best = INF
    while heap:
        d, h = heapq.heappop(heap)
        if d > dist[h]:
            continue
        if d > best:
            break
        if until is not None and best == INF and until(h):
            best = d
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
        margin = min(max(SEARCH_MARGIN, allowance), MAX_MARGIN)
        self.reach = hg.distance(self.start, leader) + 2 * margin
        self._costs: dict[tuple[hg.Hex, hg.Hex], int | None] = {}
        self._stack_ok: dict[hg.Hex, str | None] = {}
        self._succ: dict[hg.Hex, list[hg.Hex]] = {}
        self._score: tuple[dict[hg.Hex, int], dict[hg.Hex, int]] | None = None
        self.line = hg.hex_line(self.start, leader).all_hexes() - {self.start}
        self.avoid_adjacent = ctx.opt("rally_adjacent") == "any_point"
        self.dist_s = self._forward()
        self.goals = self._goals()
        self.best = min((self.dist_s[g] for g in self.goals), default=INF)
        self.goals = {g for g in self.goals if self.dist_s[g] == self.best}
        self.dist_g = self._backward()

    # -- costs -----------------------------------------------------------------------------
    def cost(self, a: hg.Hex, b: hg.Hex) -> int | None:
        """MP to enter ``b`` from ``a`` (None: prohibited), worked out once per step."""
        key = (a, b)
        if key not in self._costs:
            self._costs[key] = self._cost(a, b)
        return self._costs[key]

    def _cost(self, a: hg.Hex, b: hg.Hex) -> int | None:
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
            extra += _mp(self.ctx.table("movement", f"tec_mp_hexside.{name}"),
                         f"tec_mp_hexside.{name}", 0)
        return _mp(mp, f"tec_mp.{pos.map.terrain_of(b)}", 1) + extra

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
        return (hg.distance(h, self.start) + hg.distance(h, self.leader) <= self.reach
                and not (self.avoid_adjacent and self.enemy_adjacent(h)))

    def stacking_fault(self, h: hg.Hex) -> str | None:
        """Why the unit may not end its move in ``h`` (HEX.md 8.3 D-19: the route honours
        stacking; section 4: cavalry never stacks with infantry, ``stacking_limits.units``
        of the rules data), or None. Without ``stacking_limits`` the count is not checked and
        ``NEEDS_RULES_DATA`` says so."""
        if h not in self._stack_ok:
            self._stack_ok[h] = self._stacking(h)
        return self._stack_ok[h]

    def _stacking(self, h: hg.Hex) -> str | None:
        u = self.unit
        here = [o for o in self.ctx.position.stack(h) if o is not u and o.side == u.side]
        if not here:
            return None
        kinds = {o.type for o in here if o.type != "artillery"}
        if u.type != "artillery" and ({u.type} | kinds) >= {"cavalry", "infantry"}:
            return (f"LB_CAVALRY_WITH_INFANTRY: {list(h)} holds "
                    f"{', '.join(o.id for o in here)}; cavalry never stacks with infantry")
        limits = self.ctx.table("Reagrupamiento", "stacking_limits", required=False)
        if limits is None:
            self.ctx.need("Reagrupamiento", "stacking_limits", units=[u.id])
            return None
        cap = limits.get("units") if isinstance(limits, dict) else None
        if isinstance(cap, int) and not isinstance(cap, bool) and len(here) + 1 > cap:
            return (f"stacking_limits.units: {list(h)} holds {len(here)} units already; with "
                    f"{u.id} it would hold {len(here) + 1}, over the limit of {cap}")
        return None

    def may_end(self, h: hg.Hex) -> bool:
        return self.stacking_fault(h) is None

    # -- searches ----------------------------------------------------------------------------
    def _forward(self) -> dict[hg.Hex, float]:
        def expand(h: hg.Hex):
            if h != self.start and self.in_range(h):
                return  # a route ends where it enters the command range
            for n in hg.neighbours(h):
                if self._passable(n):
                    yield n, self.step(h, n)
        return _dijkstra([self.start], expand, until=self._is_goal)

    def _is_goal(self, h: hg.Hex) -> bool:
        return h != self.start and self.in_range(h) and not self.enemy_adjacent(h) \
            and self.may_end(h)

    def _goals(self) -> set[hg.Hex]:
        reach = [h for h in self.dist_s if h != self.start and not self.enemy_adjacent(h)
                 and self.may_end(h)]
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
        """The next hexes of least-cost routes from ``h`` (worked out once per hex)."""
        if h in self._succ:
            return self._succ[h]
        out = []
        if h not in self.goals:
            for n in hg.neighbours(h):
                c = self.step(h, n) if n in self.dist_s else None
                if c is not None and self.dist_s[h] + c == self.dist_s[n] and self._on_best(n):
                    out.append(n)
        self._succ[h] = out
        return out

    def _scores(self) -> tuple[dict[hg.Hex, int], dict[hg.Hex, int]]:
        """For each hex on a least-cost route: the most hexes on the hex line a route from it
        can still cover, and how many routes from it cover that many. Worked out once, from
        the goals back (every step costs at least 1 MP, so a successor is always dearer):
        no recursion, so a long route cannot overflow the stack."""
        if self._score is None:
            score: dict[hg.Hex, int] = {}
            count: dict[hg.Hex, int] = {}
            nodes = [h for h in self.dist_s if self._on_best(h)]
            if self.start not in nodes:
                nodes.append(self.start)
            for x in sorted(nodes, key=lambda h: -self.dist_s.get(h, 0)):
                if x in self.goals:
                    score[x], count[x] = 0, 1
                    continue
                opts = [(int(n in self.line) + score.get(n, 0), count.get(n, 0))
                        for n in self._successors(x)]
                best = max((v for v, _ in opts), default=0)
                score[x] = best
                count[x] = sum(c for v, c in opts if v == best)
            self._score = (score, count)
        return self._score

    def line_score(self, h: hg.Hex) -> int:
        """The most hexes on the hex line an optimal route from ``h`` can still cover."""
        return self._scores()[0].get(h, 0)

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
        """How many least-cost routes keep the most hexes on the line (D-19: all legal)."""
        return self._scores()[1].get(self.start, 0) if self.best != INF else 0

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
        while out and not self.may_end(out[-1]):
            out.pop()  # D-19 honours stacking: it goes as far as a hex it may end in
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


def _mp(value: object, key: str, low: int) -> int:
    """A movement-point cost of the rules data (HEX.md 14 ``tec_mp``): a whole number of at
    least ``low`` (1 for a hex, 0 for a hexside); anything else (a fraction truncated to 0, a
    negative, Infinity) would make zero-cost loops or crash the search, so it is refused."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value \
            or value in (INF, -INF) or value != int(value) or value < low:
        raise HexRequestError(f"rules_data.{key}", f"{value!r} is not a whole number of MP "
                              f"of at least {low}", "BAD_RULES_DATA")
    return int(value)


__all__ = ["Routes", "GO_EXEMPT"]
