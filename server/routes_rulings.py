"""Rulings without a photo: ``POST /api/rulings`` (a scene and declared charges), ``GET
/api/odds`` (a roll's chance) and ``GET /api/rulesets`` (DESIGN.md, HTTP)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

import charges
from charges.odds import MAX_INCHES
from server import engine
from server import models as m
from server.deps import WorkersDep
from server.errors import engine_error, refusals

router = APIRouter(tags=["rulings"])


@router.post("/api/rulings", response_model=m.Ruling, responses=refusals(400, 422),
             summary="Rule declared charges on a scene")
async def rulings(request: m.RulingRequest, workers: WorkersDep) -> Any:
    """The ruling of each declared charge and every unit after them. Without dice it gives
    the odds only (``outcome`` null)."""
    return await engine.rule(workers, request.model_dump(
        mode="json", exclude_unset=True, exclude_none=False) | {"ruleset": request.ruleset})


@router.get("/api/odds", response_model=m.Odds, responses=refusals(422),
            summary="The roll needed for a distance and its exact chance")
async def get_odds(
    advance: Annotated[float, Query(ge=0, le=MAX_INCHES, allow_inf_nan=False,
                                    description="The charger's Advance rate, inches")],
    distance: Annotated[float, Query(ge=0, le=MAX_INCHES, allow_inf_nan=False,
                                     description="Distance to the target, inches")],
    swiftstride: Annotated[bool, Query(description="Best two of 3D6 instead of 2D6")] = False,
    ruleset: Annotated[m.RulesetName, Query(description="Ruleset id")] = "t9a-1",
) -> Any:
    """What ``umpire odds`` prints, as JSON (no scene needed)."""
    try:
        report = charges.odds(advance, distance, swiftstride=swiftstride, ruleset=ruleset)
    except ValueError as e:
        raise engine_error(e, "odds") from None
    return report.to_json()


@router.get("/api/rulesets", response_model=m.RulesetList, responses=refusals(),
            summary="The rulesets this server can rule with")
async def rulesets() -> Any:
    return {"rulesets": [r.to_json() for r in charges.RULESETS.values()], "default": "t9a-1"}
