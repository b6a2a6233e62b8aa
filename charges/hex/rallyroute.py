"""Routes of a La Bataille rally move (HEX.md 8.3, D-18 to D-20): movement-point costs from the
rules data (``tec_mp``, ``tec_mp_hexside``, ``go_terrain``), a least-cost search forward from
the unit (A*, i.e. Dijkstra guided by the hexes still to go to the command range, stopping once
every hex as cheap as the first goal is settled) and backward from the goals, and the
most-straight least-cost route (D-19).

The search is exact: nothing clips it short of the goal. It is bounded by the map's bounds
when the map has them; on an unbounded map (HEX.md 14) by the region outside which every hex is
the same (:meth:`Routes._region`), and in any case by :data:`MAX_SEARCH` hexes."""

from __future__ import annotations

import heapq

from geometry import hexgrid as hg

from .errors import HexRequestError
from .position import HexUnit
from .ruling import Context

INF = float("inf")
_UNSET = object()
GO_EXEMPT = ("skirmish", "road_column", "disordered", "pgd")
#: The most hexes one route search settles. A least-cost route 100 hexes long over open
#: ground settles a few thousand; a search that needs more than this (a detour of hundreds of
#: hexes around a wall the position lists, on a huge or unbounded map) is refused, naming the
#: unit, instead of running for minutes.
MAX_SEARCH = 150_000
#: How far beyond everything the position places (listed hexes and hexsides, units, leader,
#: the start and the command range) an unbounded map's search region reaches: outside it all
#: hexes cost the same, so a route never needs to go further out than its outer ring.
REGION_MARGIN = 2


def _cube(h: hg.Hex) -> tuple[int, int, int]:
    return h[0], h[1], -h[0] - h[1]


def _dijkstra(sources: list[hg.Hex], expand, until=None, guide=None,
              budget: int | None = None, over=None, keep=None) -> dict[hg.Hex, float]:
    """Least cost from ``sources`` to every hex; ``expand(h)`` yields ``(next, cost)`` with
    cost None for a step that may not be taken (every step costs at least 1). ``until(h)``
    true for a popped hex fixes the best cost: the search stops once every hex that could
    lie on a route of that cost has been settled. ``guide(h)`` (A*) is a lower bound of the
    cost still to pay from ``h`` to a goal, 0 on a goal, that falls by at most 1 a step; every
    hex on a least-cost route is then settled with its exact cost. More than ``budget``
    settled hexes call ``over()`` (which raises). ``keep(h, cost)`` false drops a hex that
    cost cannot help (the backward search keeps only hexes of least-cost routes)."""
    def g0(h):
        return guide(h) if guide is not None else 0
    dist: dict[hg.Hex, float] = {h: 0 for h in sources}
    heap = [(g0(h), 0, h) for h in sources]
    heapq.heapify(heap)
    best = INF
    settled = 0
    while heap:
        f, d, h = heapq.heappop(heap)
        if d > dist[h]:
            continue
        if f > best:
            break
        settled += 1
        if budget is not None and settled > budget:
            over()
        if until is not None and best == INF and until(h):
            best = d
        for n, c in expand(h):
            if c is not None and d + c < dist.get(n, INF) and (keep is None or keep(n, d + c)):
                dist[n] = d + c
                heapq.heappush(heap, (d + c + g0(n), d + c, n))
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
        self.region = self._region()
        self._costs: dict[tuple[hg.Hex, hg.Hex], int | None] = {}
        self._enter: dict[hg.Hex, int | None] = {}
        self._terrain: dict[str, int | None] = {}
        self._sided: set[tuple[hg.Hex, hg.Hex]] = set()
        for (q, r, k) in pos.map.hexsides:
            a, b = (q, r), hg.neighbour((q, r), k)
            self._sided |= {(a, b), (b, a)}
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
        """MP to enter ``b`` from ``a`` (None: prohibited): the terrain of ``b`` (worked out
        once per hex, and its MP once per terrain) plus the features of the hexside crossed
        (once per step, only where the map lists a feature)."""
        base = self._enter.get(b, _UNSET)
        if base is _UNSET:
            base = self._enter[b] = self._enter_cost(b)
        if base is None or (a, b) not in self._sided:
            return base  # type: ignore[return-value]
        key = (a, b)
        if key not in self._costs:
            self._costs[key] = self._side_cost(a, b)
        extra = self._costs[key]
        return None if extra is None else base + extra  # type: ignore[operator]

    def _enter_cost(self, b: hg.Hex) -> int | None:
        pos = self.ctx.position
        if b in self.enemy or not pos.map.on_map(b):
            return None
        t = pos.map.terrain_of(b)
        if t not in self._terrain:
            self._terrain[t] = self._terrain_cost(t)
        return self._terrain[t]

    def _terrain_cost(self, t: str) -> int | None:
        mp = self.ctx.table("movement", f"tec_mp.{t}", required=False)
        if mp is None:
            tec = self.ctx.table("movement", "tec_mp")
            if t in tec:
                return None  # listed as null: prohibited
            self.ctx.table("movement", f"tec_mp.{t}")
        return _mp(mp, f"tec_mp.{t}", 1)

    def _side_cost(self, a: hg.Hex, b: hg.Hex) -> int | None:
        extra = 0
        for feat in self.ctx.position.map.features(a, hg.direction(a, b)):
            sides = self.ctx.table("movement", "tec_mp_hexside")
            name = feat.get("feature")
            if name in sides and sides[name] is None:
                return None  # listed as null: prohibited
            extra += _mp(self.ctx.table("movement", f"tec_mp_hexside.{name}"),
                         f"tec_mp_hexside.{name}", 0)
        return extra

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

    def _region(self) -> tuple[int, int, int, int, int, int] | None:
        """The search region of an unbounded map (HEX.md 14), as cube-coordinate bounds
        ``(q0, q1, r0, r1, s0, s1)``; None on a map with bounds (they bound the search).
        It holds everything the position places (listed hexes, both hexes of each listed
        hexside, every unit, the leader and its command range, the start) and
        :data:`REGION_MARGIN` more rings: outside it every hex has the default terrain, no
        unit and no feature, so each costs the same; the region is convex (an intersection of
        half-planes of q, r and s), and a route that left it could go round its uniform outer
        ring instead for no more MP. The whole search stays exact and finite even where no
        hex of the command range is reachable at all."""
        m = self.ctx.position.map
        if m.bounds is not None or (m.offset_bounds is not None and m.labels is not None):
            return None
        pts = [self.start, *m.terrain, *m.info]
        for (q, r, k) in m.hexsides:
            pts += [(q, r), hg.neighbour((q, r), k)]
        pts += [h for u in self.ctx.position.units for h in u.hexes]
        cubes = [_cube(h) for h in pts]
        lead = _cube(self.leader)
        out = []
        for i in range(3):
            lo = min([c[i] for c in cubes] + [lead[i] - self.rng]) - REGION_MARGIN
            hi = max([c[i] for c in cubes] + [lead[i] + self.rng]) + REGION_MARGIN
            out += [lo, hi]
        return tuple(out)  # type: ignore[return-value]

    def _in_region(self, h: hg.Hex) -> bool:
        b = self.region
        if b is None:
            return True
        q, r = h
        s = -q - r
        return b[0] <= q <= b[1] and b[2] <= r <= b[3] and b[4] <= s <= b[5]

    def _passable(self, h: hg.Hex) -> bool:
        return self._in_region(h) and not (self.avoid_adjacent and self.enemy_adjacent(h))

    def _guide(self, h: hg.Hex) -> int:
        """A* guide: every step costs at least 1 and changes the distance to the leader by at
        most 1, so a route from ``h`` pays at least the hexes still to go to the range."""
        return max(0, hg.distance(h, self.leader) - self.rng)

    def _too_big(self) -> None:
        raise HexRequestError("unit", f"the rally route of {self.unit.id} from "
                              f"{list(self.start)} toward {list(self.leader)} needs a search "
                              f"of more than {MAX_SEARCH} hexes (a detour of hundreds of "
                              f"hexes, or a huge map with no way into the command range); "
                              f"give the map bounds, or a smaller position",
                              "RALLY_SEARCH_TOO_BIG")

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
        start, (lq, lr), rng = self.start, self.leader, self.rng
        passable: dict[hg.Hex, bool] = {}
        step = self.step

        def expand(h: hg.Hex):
            dq, dr = h[0] - lq, h[1] - lr
            if h != start and max(abs(dq), abs(dr), abs(dq + dr)) <= rng:
                return  # a route ends where it enters the command range
            q, r = h
            for n in ((q, r - 1), (q + 1, r - 1), (q + 1, r), (q, r + 1), (q - 1, r + 1),
                      (q - 1, r)):  # hg.DIRS order
                ok = passable.get(n)
                if ok is None:
                    ok = passable[n] = self._passable(n)
                if ok:
                    yield n, step(h, n)
        return _dijkstra([start], expand, until=self._is_goal, guide=self._guide,
                         budget=MAX_SEARCH, over=self._too_big)

    def _is_goal(self, h: hg.Hex) -> bool:
        return h != self.start and self.in_range(h) and not self.enemy_adjacent(h) \
            and self.may_end(h)

    def _goals(self) -> set[hg.Hex]:
        def fit(h: hg.Hex) -> bool:
            return h != self.start and not self.enemy_adjacent(h) and self.may_end(h)
        goals = {h for h in self.dist_s if self.in_range(h) and fit(h)}
        if goals:
            return goals
        reach = [h for h in self.dist_s if fit(h)]
        if not reach:
            return set()
        # No hex in range is reachable: the reachable hexes nearest the leader.
        near = min(hg.distance(h, self.leader) for h in reach)
        return {h for h in reach if hg.distance(h, self.leader) == near}

    def _backward(self) -> dict[hg.Hex, float]:
        """Cost from each hex of a least-cost route to the goals, over hexes a route may pass
        through (a hex whose cost from the start plus its cost to the goals exceeds the best
        is on no least-cost route, and is left out)."""
        dist_s, goals, best = self.dist_s, self.goals, self.best
        start, (lq, lr), rng = self.start, self.leader, self.rng

        def expand(n: hg.Hex):
            for p in hg.neighbours(n):
                if p not in dist_s or p in goals:
                    continue
                dq, dr = p[0] - lq, p[1] - lr
                if p == start or max(abs(dq), abs(dr), abs(dq + dr)) > rng:
                    yield p, self.step(p, n)
        return _dijkstra(list(goals), expand,
                         keep=lambda p, d: dist_s[p] + d <= best)

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
            nodes = [h for h in self.dist_g if self._on_best(h)]
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
