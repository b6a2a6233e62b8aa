"""Momentum (Musket & Pike 11.3.6-11.3.6a; HEX.md 5.4, D-8) checked from a recorded move.

A path is a list of steps, one per hex entered in order: ``{"hex": [q, r], "facing_change",
"fired", "retreated", "failed_interception", "intercepted", "intercepting", "advance"}`` (flags
default false). D-8: the qualifying hexes are the last two entered by movement before the
combat (option ``any_two``: any two consecutive ones after the last interception).
"""

from __future__ import annotations

from typing import Any

from .errors import HexRequestError
from .fields import map_hex
from .ruling import Context, MissingRulesData, unit_of

BREAKS = (("facing_change", "MOM_FACING_CHANGE", "changed facing"),
          ("fired", "MOM_FIRED", "fired"), ("retreated", "MOM_RETREATED", "retreated"),
          ("failed_interception", "MOM_FAILED_INTERCEPT", "failed an interception"))


def _steps(ctx: Context, path: Any) -> list[dict]:
    if not isinstance(path, list) or not path:
        raise HexRequestError("path", "a list of the hexes entered, each [q, r] or {hex, ...}")
    out = []
    for i, s in enumerate(path):
        step = s if isinstance(s, dict) else {"hex": s}
        out.append({**step, "hex": map_hex(ctx.position.map, step.get("hex"), f"path[{i}].hex"),
                    "n": i + 1})
    return out


def _window_fault(ctx: Context, unit: Any, window: list[dict]) -> tuple[int, str, str] | None:
    open_terrain = ctx.table("11.3.6", "open_terrain")
    arty = ctx.ruleset.artillery_types
    for s in window:
        t = ctx.position.map.terrain_of(s["hex"])
        if t not in open_terrain:
            return s["n"], "MOM_NOT_OPEN", f"{list(s['hex'])} is {t}, not open terrain"
        for flag, code, what in BREAKS:
            if s.get(flag):
                return s["n"], code, f"it {what} in {list(s['hex'])}"
        if s.get("intercepting") and ctx.ruleset.is_cavalry(unit) and any(
                o.type in arty and o.side != unit.side and not o.state.get("disabled")
                and not o.state.get("captured") for o in ctx.position.stack(s["hex"])):
            return s["n"], "MOM_ARTILLERY_HEX", (f"it intercepted through {list(s['hex'])}, "
                                                 f"held by undisabled enemy artillery (9.3.7)")
    return None


def resolve(ctx: Context, unit: Any, path: Any = None, reacted_in_cc: bool = False) -> dict:
    """The momentum ruling: ``momentum: {unit, qualifies, failing_step, reason}``."""
    u = unit_of(ctx, unit, "unit")
    steps = _steps(ctx, path)
    fault: tuple[int | None, str, str] | None = None
    if not (ctx.ruleset.is_cavalry(u) or ctx.ruleset.is_heavy_infantry(u)):
        fault = (None, "MOM_NOT_ELIGIBLE_TYPE", f"a {u.type} never gains Momentum")
    elif reacted_in_cc:
        fault = (None, "MOM_REACTED_IN_CC", "it reacted in the close combat phase against an "
                 "advancing unit and lost its Momentum")
    else:
        moved = [s for s in steps if not s.get("advance")]
        last_int = max((i for i, s in enumerate(moved) if s.get("intercepted")), default=-1)
        after = moved[last_int + 1:]
        if len(after) < 2:
            code = "MOM_RESET_BY_INTERCEPTION" if last_int >= 0 else "MOM_TOO_SHORT"
            fault = (moved[last_int]["n"] if last_int >= 0 else None, code,
                     "it was intercepted and has not moved two more hexes" if last_int >= 0
                     else f"it entered {len(after)} hex(es) by movement; Momentum needs two")
        else:
            try:
                if ctx.opt("momentum_hexes") == "any_two":
                    faults = [_window_fault(ctx, u, after[i:i + 2])
                              for i in range(len(after) - 1)]
                    fault = None if any(f is None for f in faults) else faults[-1]
                else:
                    fault = _window_fault(ctx, u, after[-2:])
            except MissingRulesData:
                # Which hexes are open terrain is the user's table (NEEDS_RULES_DATA is
                # recorded): the answer is unknown, never guessed.
                return ctx.ruling(momentum={"unit": u.id, "qualifies": None,
                                            "failing_step": None, "reason": "NEEDS_RULES_DATA",
                                            "drm": None})
    ok = fault is None
    ctx.say(f"{u.id} {'qualifies' if ok else 'does not qualify'} for Momentum"
            + ("" if ok else f": {fault[2]}") + " (11.3.6).")
    if not ok:
        ctx.refuse(fault[1], "11.3.6", fault[2], units=[u.id])
    bonus = 2 if ctx.ruleset.is_cavalry(u) else 1
    return ctx.ruling(momentum={"unit": u.id, "qualifies": ok,
                                "failing_step": None if ok else fault[0],
                                "reason": None if ok else fault[1],
                                "drm": bonus if ok else 0})
