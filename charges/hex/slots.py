"""The modifier slots of Musket & Pike close combat other than the odds (series rules 11.3.1-
11.3.9; HEX.md 5.2), one function each, in the table's order. Each returns ``{"slot", "rule",
"value", "why"}``; a value needing an absent table raises ``MissingRulesData`` after the
context has recorded ``NEEDS_RULES_DATA``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from geometry import hexgrid as hg

from .position import HexUnit
from .ruling import Context


@dataclass
class Combat:
    attackers: list[HexUnit]
    defenders: list[HexUnit]
    pistols: list[str]
    odds: dict | None = None
    pistols_spent: list[str] = field(default_factory=list)

    def attacked_pairs(self) -> list[tuple[hg.Hex, hg.Hex]]:
        """(attacker hex, defender hex) pairs that touch."""
        d_hexes = {h for d in self.defenders for h in d.hexes}
        return sorted({(x, y) for a in self.attackers for x in a.hexes for y in d_hexes
                       if hg.distance(x, y) == 1})


def signed(v: Any) -> str:
    return f"+{v}" if isinstance(v, int | float) and v > 0 else str(v)


def leader(ctx: Context, cb: Combat) -> dict:
    """11.3.2: a leader stacked with an attacking unit +1, with the defender -1; one per side."""
    pos = ctx.position
    atk = next((ld for a in cb.attackers for h in a.hexes for ld in pos.leaders_at(h)
                if ld.side == a.side), None)
    dfd = next((ld for d in cb.defenders for h in d.hexes for ld in pos.leaders_at(h)
                if ld.side == d.side), None)
    value = (1 if atk else 0) - (1 if dfd else 0)
    parts = ([f"{atk.id} stacked with an attacker +1"] if atk else []) + \
        ([f"{dfd.id} stacked with the defender -1"] if dfd else [])
    if parts:
        ctx.decide("D-3")  # the leader's +-1 is inside the cap (or not, by option)
    return {"slot": "leader", "rule": "11.3.2", "value": value,
            "why": "leader: " + ("; ".join(parts) if parts else "none stacked") +
            f": {signed(value)}"}


def morale(ctx: Context, cb: Combat) -> dict:
    """11.3.3: the best attacking morale less the defender's (D-1: the best defending one)."""
    best = max(cb.attackers, key=lambda u: u.morale or 0)
    dfd = max(cb.defenders, key=lambda u: u.morale or 0)
    value = (best.morale or 0) - (dfd.morale or 0)
    return {"slot": "morale", "rule": "11.3.3", "value": value,
            "why": f"morale {best.morale} ({best.id}) against {dfd.morale} ({dfd.id}): "
                   f"{signed(value)}"}


def momentum(ctx: Context, cb: Combat) -> dict:
    """11.3.6: +2 if any attacking cavalry has Momentum, else +1 for heavy infantry; once."""
    rs = ctx.ruleset
    marked = [a for a in cb.attackers if a.state.get("momentum")]
    for a in marked:
        if not (rs.is_cavalry(a) or rs.is_heavy_infantry(a)):
            ctx.note("MOM_NOT_ELIGIBLE_TYPE", "11.3.6",
                     f"{a.id} carries a Momentum marker but only cavalry and heavy infantry "
                     f"gain Momentum", units=[a.id])
    cav = [a.id for a in marked if rs.is_cavalry(a)]
    hi = [a.id for a in marked if rs.is_heavy_infantry(a)]
    value = 2 if cav else 1 if hi else 0
    who = cav or hi
    why = (f"momentum ({', '.join(who)}), counted once: {signed(value)}" if who
           else "momentum: none: 0")
    return {"slot": "momentum", "rule": "11.3.6", "value": value, "why": why}


def flank_rear(ctx: Context, cb: Combat) -> dict:
    """11.3.7: +1 for each distinct hex holding an attacker that is a flank or rear hex of the
    defender (D-1: of every defender); none against Hedgehog or Dispersed."""
    views = [d.aspects() for d in cb.defenders]
    hexes = sorted({x for x, _ in cb.attacked_pairs()})
    found = [h for h in hexes
             if all(v.get(h) in ("flank", "rear") for v in views if h in v)
             and any(h in v for v in views)]
    if any(d.model == "all_front" for d in cb.defenders):
        return {"slot": "flank_rear", "rule": "11.3.7", "value": 0,
                "why": "flank and rear: the defender has none in "
                       f"{cb.defenders[0].formation}: 0"}
    names = [f"{list(h)} ({views[0].get(h)})" for h in found]
    return {"slot": "flank_rear", "rule": "11.3.7", "value": len(found),
            "hexes": [list(h) for h in found],
            "why": f"flank and rear hexes: {', '.join(names) if names else 'none'}: "
                   f"{signed(len(found))}"}


def matrix(ctx: Context, cb: Combat) -> dict:
    """11.3.8: the Close Combat Matrix entry most favourable to the defender, over every
    attacker type and every column the defender's state may use."""
    table = ctx.table("11.3.8", "cc_matrix")
    cols: list[str] = []
    for d in cb.defenders:
        listed = ctx.table("11.3.8", f"defender_columns.{d.type}.{d.formation}", False)
        if listed is None:
            listed = [d.type] + ([d.formation] if all(d.formation in row for row in
                                                      table.values()) else [])
        cols += [c for c in listed if c not in cols]
    cands = []
    for t in dict.fromkeys(a.type for a in cb.attackers):
        for c in cols:
            cands.append((ctx.table("11.3.8", f"cc_matrix.{t}.{c}"), t, c))
    value, t, c = min(cands)
    among = f" (most favourable to the defender of {len(cands)} entries)" if len(cands) > 1 \
        else ""
    return {"slot": "matrix", "rule": "11.3.8", "value": value, "columns": cols,
            "why": f"matrix: {t} against the {c} column{among}: {signed(value)}"}


def pistols(ctx: Context, cb: Combat) -> dict:
    """11.3.9: +1 per attacking cavalry that expends its pistol, -1 if the defending cavalry
    does; attacker declares first."""
    value, parts = 0, []
    for i, uid in enumerate(cb.pistols):
        u = ctx.position.by_id.get(uid)
        if uid in cb.pistols[:i]:
            # A unit has one pistol, loaded or spent (HEX.md 14): naming it twice is one pistol.
            ctx.note("CC_PISTOL_REPEATED", "11.3.9", f"{uid} is named twice; a unit has one "
                     f"pistol, counted once", units=[uid])
        elif u is None or (u not in cb.attackers and u not in cb.defenders):
            ctx.refuse("CC_PISTOL_NOT_IN_COMBAT", "11.3.9", f"{uid} is not in this combat",
                       units=[uid])
        elif not ctx.ruleset.is_cavalry(u) or not u.capabilities.get("pistols", True):
            ctx.refuse("CC_PISTOL_NOT_CAVALRY", "11.3.9", f"{uid} is not cavalry with pistols",
                       units=[uid])
        elif u.state.get("pistol", "loaded") != "loaded":
            ctx.refuse("CC_PISTOL_SPENT", "11.3.9", f"{uid}'s pistol is already spent",
                       units=[uid])
        else:
            sign = 1 if u in cb.attackers else -1
            value += sign
            parts.append(f"{uid} {signed(sign)}")
            cb.pistols_spent.append(uid)
    return {"slot": "pistols", "rule": "11.3.9", "value": value,
            "why": f"pistols: {', '.join(parts) if parts else 'none expended'}: "
                   f"{signed(value)}"}


def _per_side(ctx: Context, cb: Combat, slot: str, key: str, state_of: Callable) -> dict:
    """11.3.1: formation state and salvo count once per side, the most defender-favourable
    value of each side (a table value is in favour of the unit's own side)."""
    def side_value(units: list[HexUnit], sign: int) -> int:
        vals = []
        for u in units:
            s = state_of(u)
            if s is None:
                vals.append(0)
                continue
            vals.append(sign * ctx.table("11.3.1", f"{key}.{s}"))
        return min(vals) if vals else 0

    a = side_value(cb.attackers, 1)
    d = side_value(cb.defenders, -1)
    return {"slot": slot, "rule": "11.3.1", "value": a + d, "attacker": a, "defender": d,
            "why": f"{slot.replace('_', ' ')}: attacker {signed(a)}, defender {signed(d)}: "
                   f"{signed(a + d)}"}


def formation_state(ctx: Context, cb: Combat) -> dict:
    def hits(u: HexUnit) -> str | None:
        n = int(u.state.get("formation_hits") or 0)
        return None if n == 0 or not ctx.ruleset.has_formation_state(u) else str(n)
    return _per_side(ctx, cb, "formation_state", "formation_state_drm", hits)


def salvo(ctx: Context, cb: Combat) -> dict:
    def state(u: HexUnit) -> str | None:
        s = u.state.get("salvo")
        return None if s in (None, "none", False) else str(s)
    return _per_side(ctx, cb, "salvo", "salvo_drm", state)


def terrain(ctx: Context, cb: Combat) -> dict:
    """11.3.1 and the TEC: the defender hex's terrain plus hexside features crossed (D-2: only
    the most defender-favourable one)."""
    pos, pairs = ctx.position, cb.attacked_pairs()
    hex_vals = []
    for y in sorted({y for _, y in pairs}):
        t = pos.map.terrain_of(y)
        entry = ctx.table("TEC", f"tec_cc.{t}", required=not ctx.ruleset.is_open(ctx, t))
        hex_vals.append((entry or {}).get("drm", 0) if _applies(entry, "defender_hex") else 0)
    side_vals = []
    for x, y in pairs:
        for feat in pos.map.features(y, hg.direction(y, x)):
            entry = ctx.table("TEC", f"tec_cc.{feat['feature']}")
            if _applies(entry, "hexside_crossed") and (
                    not entry.get("defender_high_only") or feat.get("high_side") == "this"):
                side_vals.append((entry["drm"], feat["feature"]))
    h = min(hex_vals) if hex_vals else 0
    if not side_vals:
        s, what = 0, "no hexside feature crossed"
    elif ctx.opt("hexside_drm") == "sum":
        s, what = sum(v for v, _ in side_vals), "every hexside feature crossed"
    else:
        s, f = min(side_vals)
        what = f"the {f} hexside (the one most favourable to the defender)"
    return {"slot": "terrain", "rule": "11.3.1", "value": h + s,
            "why": f"terrain: defender's hex {signed(h)}, {what} {signed(s)}: {signed(h + s)}"}


def _applies(entry: Any, where: str) -> bool:
    return isinstance(entry, dict) and entry.get("applies_to", "defender_hex") == where


#: The slots of HEX.md 5.2 in order (``odds`` is computed by ``closecombat.odds_item``).
SLOTS: list[tuple[str, Callable[[Context, Combat], dict] | None]] = [
    ("leader", leader), ("morale", morale), ("odds", None), ("momentum", momentum),
    ("flank_rear", flank_rear), ("matrix", matrix), ("pistols", pistols),
    ("formation_state", formation_state), ("salvo", salvo), ("terrain", terrain)]
