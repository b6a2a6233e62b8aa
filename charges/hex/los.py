"""Line of sight for reactions (M&P 9.1.3; HEX.md 6.2, D-10). The game's blocking rules are not
public, so they are data: hexes whose terrain is in the rules data's ``blocks_los`` (or that the
map marks ``"blocks_los": true``) and hexside features in the same list block; adjacent hexes
always see each other. A line along a spine is blocked only if both runs are (option
``los_spine: either``: if either is)."""

from __future__ import annotations

from collections.abc import Iterable

from geometry import hexgrid as hg

from .ruling import Context, MissingRulesData


def _run_blocked(ctx: Context, run: tuple[hg.Hex, ...], blocking: set[str] | None) -> bool:
    m = ctx.position.map
    for i, h in enumerate(run):
        if 0 < i < len(run) - 1:
            flag = m.info.get(h, {}).get("blocks_los")
            if flag is not None:
                if flag:
                    return True
                continue
            t = m.terrain_of(h)
            if t != m.default_terrain:
                if blocking is None:
                    ctx.table("9.1.3", "blocks_los")
                if t in blocking:  # type: ignore[operator]
                    return True
        if i:
            for feat in m.features(run[i - 1], hg.direction(run[i - 1], h)):
                if blocking is None:
                    ctx.table("9.1.3", "blocks_los")
                if feat.get("feature") in blocking:  # type: ignore[operator]
                    return True
    return False


def clear_los(ctx: Context, origins: Iterable[hg.Hex], target: hg.Hex) -> bool:
    """True if any origin hex sees ``target``; raises ``MissingRulesData`` (after recording
    ``NEEDS_RULES_DATA``) when terrain on the line needs the ``blocks_los`` table."""
    origins = list(origins)
    if any(hg.distance(o, target) <= 1 for o in origins):
        return True
    listed = ctx.table("9.1.3", "blocks_los", required=False)
    blocking = set(listed) if listed is not None else None
    either = ctx.opt("los_spine") == "either"
    for o in origins:
        line = hg.hex_line(o, target)
        first = _run_blocked(ctx, line.hexes, blocking)
        if not line.spine:
            if not first:
                return True
            continue
        second = _run_blocked(ctx, line.other, blocking)
        if not ((first or second) if either else (first and second)):
            return True
    return False


__all__ = ["clear_los", "MissingRulesData"]
