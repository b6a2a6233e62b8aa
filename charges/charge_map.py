"""A charge map: every ready unit against every enemy in its front arc, odds only
(RULES.md 2-4). What a player scans before declaring charges."""

from __future__ import annotations

from dataclasses import dataclass

import geometry as g

from .declaration import declare
from .request import ChargeDecl
from .resolution import assess
from .rulesets import DEFAULT, Ruleset, get_ruleset


@dataclass(frozen=True)
class MapEntry:
    charger: str
    target: str
    declarable: bool
    facing: str
    distance_in: float
    needed_in: int
    odds: float
    legal_move: bool | None
    models_in_contact: int | None

    def to_json(self) -> dict:
        return {"charger": self.charger, "target": self.target, "declarable": self.declarable,
                "facing": self.facing, "distance_in": round(self.distance_in, 3),
                "needed_in": self.needed_in, "odds": round(self.odds, 6),
                "legal_move": self.legal_move, "models_in_contact": self.models_in_contact}


def charge_map(scene: g.Scene, ruleset: Ruleset | str = DEFAULT,
               check_moves: bool = False) -> list[MapEntry]:
    """Odds for every possible charge on the table: declaration (RULES.md 2), charged facing
    and the chance of rolling the distance (RULES.md 3). With ``check_moves`` each charge's move
    is searched too, so one in range without a legal move shows 0% (slower: a full search per
    charge); without it ``legal_move`` is None, meaning not checked."""
    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    out: list[MapEntry] = []
    live = [u for u in scene.units if u.state != "destroyed"]
    for u in live:
        if u.state != "ready" or u.advance_in is None:
            continue
        front = u.body.arcs["front"]
        for e in live:
            if e.side == u.side or not front.intersects(e.body.polygon):
                continue
            if check_moves:
                res = assess(scene, u, e, rs, ChargeDecl(u.id, e.id), provisional_facing=True)
                d, needed, chance = res.declaration, res.needed, res.odds
                legal: bool | None = res.move is not None
                models = res.move.models if res.move is not None else None
            else:
                d = declare(scene, u, e, rs, every_reason=False)
                rule = rs.dice_for(u)
                needed = rule.needed(d.distance.distance_in, u.advance_in)
                chance = float(rule.chance_at_least(needed)) if d.declarable else 0.0
                legal, models = None, None
            out.append(MapEntry(u.id, e.id, d.declarable, d.facing, d.distance.distance_in,
                                needed, chance, legal, models))
    return out
