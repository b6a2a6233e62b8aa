"""A situation report: who sees whom and from which arc (RULES.md 1, 2).

For each unit: the enemies whose boundary lies at least partly in its front arc, the arc of
each such enemy that this unit would charge (by the ruleset's facing rule, as a ruling decides
it) with that arc's share of this unit, and the closest distance between the boundaries.
"""

from __future__ import annotations

from dataclasses import dataclass

import geometry as g

from .rulesets import DEFAULT, Ruleset, get_ruleset


@dataclass(frozen=True)
class Sighting:
    unit: str
    enemy: str
    distance_mm: float
    enemy_arc: str
    arc_share: float

    @property
    def distance_in(self) -> float:
        return g.mm_to_in(self.distance_mm)

    def to_json(self) -> dict:
        return {"unit": self.unit, "enemy": self.enemy, "distance_mm": round(self.distance_mm, 2),
                "distance_in": round(self.distance_in, 2), "enemy_arc": self.enemy_arc,
                "arc_share": round(self.arc_share, 4)}


def situation(scene: g.Scene, ruleset: Ruleset | str = DEFAULT) -> dict[str, list[Sighting]]:
    """Every unit's sightings, nearest enemy first. The arc named is the facing a charge
    would hit by the ruleset's own rule (``Ruleset.charged_facing``), the one the ruling
    uses."""
    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    live = [u for u in scene.units if u.state != "destroyed"]
    out: dict[str, list[Sighting]] = {}
    for u in live:
        front = g.arc_polygons(u.formation, u.pose)["front"]
        seen = []
        for e in live:
            if e.side == u.side or not front.intersects(e.body.polygon):
                continue
            shares = g.arc_shares(e.formation, e.pose, u.body.polygon)
            arc = rs.charged_facing(shares)
            d = g.closest(u.body.polygon, e.body.polygon).distance_mm
            seen.append(Sighting(u.id, e.id, d, arc, shares[arc]))
        out[u.id] = sorted(seen, key=lambda s: s.distance_mm)
    return out
