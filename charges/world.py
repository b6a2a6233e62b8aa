"""What a moving unit may not hit (RULES.md 4, 6): the table edge, other units, impassable
terrain, and, for enemies other than the target, not even a touch.

A :class:`World` is built once per moving unit and answers "is this swept area clear?" with
the single tolerance ``EPS_MM``: overlap deeper than it is a collision; for enemies that must
not be contacted, coming within it is.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

import geometry as g

if TYPE_CHECKING:
    from .first_pass import FirstMove

#: ``secondary``: an enemy the charge may touch at its end but not overlap, because no move
#: avoids it (RULES.md 4, unavoidable contact).
Kind = Literal["enemy", "friend", "terrain", "target", "secondary"]

class ByIdentity:
    """Values computed from objects, kept by the objects' identity, the oldest dropped first:
    one ruling builds several worlds from the same unit, terrain and table polygons (the
    charger's, the target's, the failed move's, one per enemy a special charge asks about).
    An entry holds its object, so the object's id cannot be reused while it is kept. Reads
    are one dict lookup (atomic); writes take a lock."""

    def __init__(self, size: int) -> None:
        self._items: OrderedDict[int, tuple[object, object]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, obj: object) -> Any:
        hit = self._items.get(id(obj))
        return hit[1] if hit is not None and hit[0] is obj else None

    def put(self, obj: object, value: object) -> None:
        with self._lock:
            self._items[id(obj)] = (obj, value)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


_PREPARED = ByIdentity(4096)  # polygon -> (bounds, convex pieces)
_TABLE_EPS = ByIdentity(64)  # table polygon -> its EPS_MM growth, prepared


def _prepared(poly: BaseGeometry, convex: bool) -> tuple[tuple[float, float, float, float],
                                                         list[np.ndarray]]:
    """``poly``'s bounds and convex pieces (a convex polygon, such as a unit, is its own);
    cutting a wood into convex pieces is the costly part."""
    hit = _PREPARED.get(poly)
    if hit is not None:
        return hit
    if convex:
        ring = shapely.get_coordinates(poly)[:-1]
        lo, hi = ring.min(axis=0), ring.max(axis=0)
        bounds = (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
        parts = [ring]
    else:
        bounds, parts = poly.bounds, g.contact.convex_pieces(poly)
    _PREPARED.put(poly, (bounds, parts))
    return bounds, parts


def _prepare_rectangles(polys: list[BaseGeometry]) -> None:
    """:func:`_prepared` for many unit rectangles in one pass (the same bounds and pieces):
    every world of a ruling holds the table's units, and one at a time each costs a few
    small calls."""
    todo = [p for p in polys if _PREPARED.get(p) is None]
    if not todo or not (shapely.get_num_coordinates(todo) == 5).all():
        return  # nothing to do, or not all closed four-corner rings: one at a time
    rings = shapely.get_coordinates(todo).reshape(-1, 5, 2)[:, :4]
    lo, hi = rings.min(axis=1).tolist(), rings.max(axis=1).tolist()
    for poly, ring, a, b in zip(todo, rings, lo, hi, strict=True):
        _PREPARED.put(poly, ((a[0], a[1], b[0], b[1]), [ring]))


def _table_eps(table: BaseGeometry) -> BaseGeometry:
    """The table grown by EPS_MM (what a move may not leave), prepared."""
    grown = _TABLE_EPS.get(table)
    if grown is None:
        grown = table.buffer(g.EPS_MM, join_style="mitre")
        shapely.prepare(grown)
        _TABLE_EPS.put(table, grown)
    return grown


@dataclass
class Obstacle:
    id: str
    kind: Kind
    polygon: BaseGeometry
    bounds: tuple[float, float, float, float] = field(init=False)
    #: Convex pieces (corner arrays) covering the polygon, for vectorised separating-axis tests.
    convex_parts: list[np.ndarray] = field(init=False)

    def __post_init__(self) -> None:
        # Units are rectangles; terrain may be any simple polygon.
        self.bounds, self.convex_parts = _prepared(self.polygon, self.kind != "terrain")

    @cached_property
    def inner(self) -> BaseGeometry:
        """The polygon pulled in by EPS_MM: overlapping it is overlapping by more than EPS."""
        inner = g.contact.shrunk(self.polygon)
        shapely.prepare(inner)
        return inner

    def describe(self) -> str:
        return {"terrain": f"impassable terrain '{self.id}'", "friend": f"friendly unit "
                f"'{self.id}'", "enemy": f"enemy unit '{self.id}'", "target": f"'{self.id}'",
                "secondary": f"enemy unit '{self.id}'"}[self.kind]


def boxes_meet(lo: np.ndarray, hi: np.ndarray, bounds: np.ndarray, pad: float) -> np.ndarray:
    """(n, B): whether each box (``lo``, ``hi`` corners, (n, 2) each) comes within ``pad`` of
    each of ``bounds`` (B, 4: x0, y0, x1, y1)."""
    return (lo[:, 0, None] <= bounds[None, :, 2] + pad) & \
        (hi[:, 0, None] >= bounds[None, :, 0] - pad) & \
        (lo[:, 1, None] <= bounds[None, :, 3] + pad) & (hi[:, 1, None] >= bounds[None, :, 1] - pad)


#: :meth:`World.footprints` codes: clear, or off the table (other values index obstacles).
CLEAR, TABLE = -2, -1


@dataclass(frozen=True)
class Blocked:
    """Why a swept area is not clear."""

    obstacle: str
    kind: str
    how: str  # "overlaps", "touches", "leaves the table"

    def describe(self) -> str:
        if self.how == "leaves the table":
            return "the table edge"
        label = {"terrain": "impassable terrain", "friend": "friendly unit",
                 "enemy": "enemy unit", "secondary": "enemy unit",
                 "target": "target"}.get(self.kind, self.kind)
        return f"{label} '{self.obstacle}'"


@dataclass(frozen=True)
class PartTable:
    """The convex pieces of a world's obstacles as arrays, so one vectorised test covers every
    obstacle at once: ``corners`` (P, K, 2), padded to a common K by repeating a vertex;
    ``bounds`` (P, 4); ``limit`` (P,), the overlap depth a piece tolerates (0 for enemies,
    which may not even be touched; twice the tolerance for the rest, so a piece of a split
    polygon never rejects a legal path); ``owner`` (P,), the obstacle's index; ``convex``, the
    pieces prepared for separating-axis tests; ``whole`` (P,), the piece is its obstacle's
    only one and that obstacle may be touched (not an enemy): then a depth under EPS_MM into
    the piece is no overlap of the obstacle (for a split polygon it may be)."""

    corners: np.ndarray
    bounds: np.ndarray
    limit: np.ndarray
    owner: np.ndarray
    convex: g.contact.ConvexSet
    whole: np.ndarray

    @classmethod
    def of(cls, obstacles: list[Obstacle]) -> PartTable:
        pieces, owner = [], []
        for i, o in enumerate(obstacles):
            for part in o.convex_parts:
                pieces.append(part)
                owner.append(i)
        if not pieces:
            empty = np.zeros((0, 3, 2))
            return cls(empty, np.zeros((0, 4)), np.zeros(0), np.zeros(0, int),
                       g.contact.ConvexSet(empty, empty, np.zeros((0, 3)), np.zeros((0, 3))),
                       np.zeros(0, dtype=bool))
        k = max(len(q) for q in pieces)
        corners = np.stack([np.concatenate([q, np.repeat(q[-1:], k - len(q), axis=0)])
                            for q in pieces])
        bounds = np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1)
        owners = np.asarray(owner)
        limit, whole = cls.tolerances([o.kind for o in obstacles], owners)
        return cls(corners, bounds, limit, owners, g.contact.ConvexSet.of(corners), whole)

    @staticmethod
    def tolerances(kinds: list[Kind], owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``limit`` and ``whole`` of pieces owned by obstacles of these ``kinds``."""
        enemy = np.asarray([k == "enemy" for k in kinds], dtype=bool)[owner]
        single = np.bincount(owner, minlength=len(kinds))[owner] == 1
        return np.where(enemy, 0.0, 2 * g.EPS_MM), single & ~enemy

    def subset(self, keep: np.ndarray) -> PartTable:
        """The pieces of the obstacles where ``keep`` (one flag per obstacle) holds, with
        ``owner`` renumbered as in the list of those obstacles."""
        m = keep[self.owner]
        renumber = np.cumsum(keep) - 1
        c = self.convex
        return PartTable(self.corners[m], self.bounds[m], self.limit[m],
                         renumber[self.owner[m]],
                         g.contact.ConvexSet(c.corners[m], c.normals[m], c.lo[m], c.hi[m]),
                         self.whole[m])


class World:
    """Obstacles for one moving unit."""

    def __init__(self, table: Polygon, obstacles: list[Obstacle],
                 table_eps: BaseGeometry | None = None) -> None:
        self.table = table
        #: The table's bounds, asked for by every test (a shapely call each time otherwise).
        self.table_bounds: tuple[float, float, float, float] = table.bounds
        self.table_eps = table_eps if table_eps is not None else _table_eps(table)
        self.obstacles = obstacles
        #: The first forward move's closed-form reach, per start (search.first_move).
        self.reach_memo: dict[tuple[float, ...], FirstMove] = {}

    @classmethod
    def for_unit(cls, scene: g.Scene, mover: g.Unit, target: str | None = None,
                 ignore: frozenset[str] = frozenset(),
                 extra: list[Obstacle] | None = None) -> World:
        obs: list[Obstacle] = []
        _prepare_rectangles([u.body.polygon for u in scene.units
                             if u.id != mover.id and u.state != "destroyed"])
        for u in scene.units:
            if u.id == mover.id or u.id in ignore or u.state == "destroyed":
                continue
            kind: Kind = "target" if u.id == target else (
                "friend" if u.side == mover.side else "enemy")
            obs.append(Obstacle(u.id, kind, u.body.polygon))
        for t in scene.terrain:
            if t.impassable and t.id not in ignore:
                obs.append(Obstacle(t.id, "terrain", t.shape))
        obs.extend(extra or [])
        return cls(scene.table.polygon, obs)

    @cached_property
    def parts(self) -> PartTable:
        """Every obstacle's convex pieces stacked for the vectorised first pass."""
        return PartTable.of(self.obstacles)

    @cached_property
    def _boxes(self) -> tuple[np.ndarray, np.ndarray]:
        bounds = np.asarray([o.bounds for o in self.obstacles], dtype=float).reshape(-1, 4)
        return bounds, np.asarray([o.kind == "target" for o in self.obstacles], dtype=bool)

    def box_clear(self, box: tuple[float, float, float, float],
                  ignore_target: bool = False) -> bool:
        """True when an area with bounding box ``box`` certainly clears everything: inside the
        table and more than EPS_MM from every obstacle's box (then it neither overlaps nor
        touches any). A cheap test that spares building an exact sweep; False says nothing."""
        e = g.EPS_MM
        x0, y0, x1, y1 = box
        tx0, ty0, tx1, ty1 = self.table_bounds
        if x0 < tx0 - e or y0 < ty0 - e or x1 > tx1 + e or y1 > ty1 + e:
            return False
        b, is_target = self._boxes
        near = (b[:, 0] <= x1 + e) & (b[:, 2] >= x0 - e) & (b[:, 1] <= y1 + e) & \
            (b[:, 3] >= y0 - e)
        if ignore_target:
            near &= ~is_target
        return not near.any()

    def on_table(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Whether each box (``lo``, ``hi`` corners, (n, 2) each) lies on the table, within
        EPS_MM of its edge: a shape whose box does never leaves it."""
        e = g.EPS_MM
        tx0, ty0, tx1, ty1 = self.table_bounds
        return (lo[:, 0] >= tx0 - e) & (lo[:, 1] >= ty0 - e) & (hi[:, 0] <= tx1 + e) & \
            (hi[:, 1] <= ty1 + e)

    def footprints(self, rects: np.ndarray, ignore_target: bool = False) -> np.ndarray:
        """What blocks each footprint (n, 4, 2) by :meth:`blocked`'s rules, vectorised: CLEAR,
        TABLE or the index of an obstacle. Clear by boxes, as :meth:`box_clear` (with
        ``ignore_target`` when no footprint can overlap the target); certainly blocked when a
        convex piece is overlapped beyond its limit (the search's first pass), then the first
        such obstacle is named; certainly clear when clear of every piece by separating axes
        (PartTable.whole); the few left get the exact test."""
        n = len(rects)
        out = np.full(n, CLEAR, dtype=int)
        if n == 0:
            return out
        e = g.EPS_MM
        lo, hi = g.contact.least(rects, 1), g.contact.greatest(rects, 1)
        inside = self.on_table(lo, hi)
        b, is_target = self._boxes
        near = boxes_meet(lo, hi, b, e)
        if ignore_target:
            near &= ~is_target[None, :]
        rest = np.flatnonzero(~inside | near.any(axis=1))
        if len(rest) == 0:
            return out
        parts = self.parts
        pb = parts.bounds
        rl, rh = lo[rest], hi[rest]
        meet = boxes_meet(rl, rh, pb, e)
        ii, pp = np.nonzero(meet)
        certain = np.full(len(rest), len(self.obstacles), dtype=int)
        unsure = ~inside[rest]  # the exact test decides the table edge
        if len(ii):
            depth = g.contact.rect_penetrations(rects[rest[ii]], parts.convex, pp,
                                                signed=True)
            hit = depth > parts.limit[pp]
            np.minimum.at(certain, ii[hit], parts.owner[pp[hit]])
            # Certainly clear of a piece: under EPS_MM deep into a whole piece that may be
            # touched (exact for convex shapes), or farther than EPS_MM from any other.
            clear = depth < np.where(parts.whole[pp], e, -e) - 1e-9
            unsure[ii[~clear]] = True
        found = certain < len(self.obstacles)
        out[rest[found]] = certain[found]
        unsure &= ~found
        index: dict[str, int] = {}
        for k, o in enumerate(self.obstacles):
            index.setdefault(o.id, k)
        for i in rest[unsure]:
            blk = self.blocked(g.polygon_of(rects[i]))
            if blk is not None:
                out[i] = TABLE if blk.kind == "table" else index[blk.obstacle]
        return out

    def describe_index(self, i: int) -> str:
        """What :meth:`footprints` found, in words (as Blocked.describe)."""
        if i == TABLE:
            return "the table edge"
        o = self.obstacles[i]
        return Blocked(o.id, o.kind, "overlaps").describe()

    def without(self, ids: set[str]) -> World:
        """This world less the obstacles ``ids`` (RULES.md 5 asks about worlds without some
        enemies). What is already prepared is kept: the table's tolerance polygon, and the
        convex pieces of the obstacles that stay (the same pieces a new world would cut)."""
        keep = [o.id not in ids for o in self.obstacles]
        out = World(self.table, [o for o, k in zip(self.obstacles, keep, strict=True) if k],
                    table_eps=self.table_eps)
        if "parts" in self.__dict__:
            out.__dict__["parts"] = self.parts.subset(np.asarray(keep, dtype=bool))
        return out

    def with_kind(self, ids: set[str], kind: Kind) -> World:
        """This world with the obstacles ``ids`` taken as ``kind`` (a failed charge stops short
        of its target as of any enemy, RULES.md 6), keeping what is prepared: the pieces are
        the same, only what they tolerate changes."""
        obstacles = [Obstacle(o.id, kind, o.polygon) if o.id in ids else o
                     for o in self.obstacles]
        out = World(self.table, obstacles, table_eps=self.table_eps)
        if "parts" in self.__dict__:
            p = self.parts
            limit, whole = PartTable.tolerances([o.kind for o in obstacles], p.owner)
            out.__dict__["parts"] = replace(p, limit=limit, whole=whole)
        return out

    def blocked(self, area: BaseGeometry, target_may_touch: bool = True,
                sweep: bool = False) -> Blocked | None:
        """First reason ``area`` (a swept area or a final footprint) is not clear, or None.

        Friends, terrain and the target may be touched but not overlapped; other enemies may
        not even be touched (RULES.md 4). ``target_may_touch=False`` treats the target like any
        other enemy (used for failed-charge moves, which stop just short of everything).
        ``sweep``: ``area`` is swept by a charge move's step, which may cross the table edge
        (tow 1.4: "a corner may cross the table edge during a manoeuvre if the unit ends
        wholly on the table"; RULES.md 4 and whfb8 2.4 list only units and impassable
        terrain as what a sweep may not overlap): only where a unit stands is the table
        tested.
        """
        if not sweep and not self.table_eps.covers(area):
            return Blocked("table", "table", "leaves the table")
        x0, y0, x1, y1 = area.bounds
        e = g.EPS_MM
        for o in self.obstacles:
            b = o.bounds
            if b[0] > x1 + e or b[2] < x0 - e or b[1] > y1 + e or b[3] < y0 - e:
                continue
            if o.kind == "enemy" or (o.kind == "target" and not target_may_touch):
                if shapely.dwithin(o.polygon, area, e):
                    return Blocked(o.id, o.kind, "touches")
            elif shapely.intersects(o.inner, area):
                return Blocked(o.id, o.kind, "overlaps")
        return None
