"""The hex-and-counter rulings over HTTP (HEX.md 13): ``POST /api/hex/{combat, reactions,
assault, rally, cup}`` with ``{"position": ..., ...the options...}``, the shipped sample
positions, what each ruleset rules on (``GET /api/hex/kinds``), a position's map layout, and
the hex view of the web page (``GET /hex``).

Routes are thin: the body's shape is checked by :mod:`server.models_hex`, the rules data a
position names is looked up among the shipped files only (:mod:`server.hex_samples`), and the
ruling is ``charges.hex_rule`` on the rulings' threads. Every ``ValueError`` the engine raises
is the client's input at fault and answers 422 with the server's error envelope plus the
engine's own fields (code, field, where, units, hexes).
"""

from __future__ import annotations

import re
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.responses import FileResponse, JSONResponse

import charges
from charges.hex.api import RULING_NAMES
from charges.rulesets import get_ruleset
from server import hex_samples
from server import models_hex as hm
from server.deps import WorkersDep
from server.errors import ClientError
from server.models import ErrorBody
from server.routes_page import STATIC_DIR
from server.workers import Workers
from vision.hexmap import map_layout

router = APIRouter(tags=["hex"])

#: Any request with a body can be refused for its size (the server's body limit).
TOO_LARGE: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorBody, "description": "The request body is larger than the server's "
                                             "limit"}}
#: The refusals of the hex routes that take a body, for the OpenAPI.
HEX_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "Malformed JSON"}, **TOO_LARGE,
    422: {"model": ErrorBody, "description": "A field of the wrong type or out of range, "
          "or a position or request the rules refuse: the position's validation code (e.g. "
          "FACING_OUT_OF_RANGE) or the request's (e.g. UNKNOWN_UNIT), the field, where it is, "
          "and the units and hexes concerned"}}

SampleName = Annotated[str, Path(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$",
                                 description="A name from GET /api/hex/samples")]


#: The ruling routes (``POST /api/hex/{kind}``).
ROUTE_KINDS = ("combat", "reactions", "assault", "rally", "cup")

#: The engine words its refusals and notes for the command line (HEX.md 14: ``--rules-data
#: F``, ``--event F``): over HTTP each flag is a field of the JSON body.
HTTP_WORDS: list[tuple[str, str]] = [
    ("supply it with --rules-data", 'supply it as "rules_data" in the request'),
    (" (--event F)", ': give "event" (one record) or "events" (a list of them)'),
    ("--assault ID and --target ID_OR_Q,R",
     '"assault" (unit ids) and "target" (a unit id or a hex)'),
    ("fix_wagons / --fix-wagons", '"fix_wagons": true'),
]
#: Any other flag, with its metavariable: ``--attacker ID`` -> ``"attacker"``.
FLAG = re.compile(r"--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?: [A-Z][A-Z0-9_,]*\b)?")


def http_words(text: str) -> str:
    """``text`` with the command line's flags named as the JSON fields they are over HTTP."""
    if "--" not in text:
        return text
    for cli, http in HTTP_WORDS:
        text = text.replace(cli, http)
    return FLAG.sub(lambda m: '"' + m.group(1).replace("-", "_") + '"', text)


def _http_strings(value: Any) -> Any:
    """Every string of a ruling in :func:`http_words`."""
    if isinstance(value, str):
        return http_words(value)
    if isinstance(value, dict):
        return {k: _http_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_http_strings(v) for v in value]
    return value


def _rulesets_of(kind: str) -> list[dict[str, Any]]:
    """The hex rulesets (``charges.hex.describe()``) that have the ruling ``kind``."""
    return [r for r in charges.hex.describe()
            if kind in r["kinds"] or RULING_NAMES.get(kind) in r["kinds"]]


def _wrong_route(kind: str, ruleset: str) -> tuple[str, str]:
    """A ruling route called on a position of another game (the engine says the ruleset has no
    such kind, naming its parameter ``kind``, which a client of this route never sends): the
    field at fault is the position's ``ruleset``, and the answer says where it is ruled."""
    names = [r["name"] + (f" ({', '.join(r['aliases'])})" if r["aliases"] else "")
             for r in _rulesets_of(kind)]
    own = [f"/api/hex/{k}" for k in ROUTE_KINDS
           if any(ruleset in (r["name"], *r["aliases"]) for r in _rulesets_of(k))]
    where = f", ruled at {', '.join(own[:-1])} and {own[-1]}" if len(own) > 1 else \
        f", ruled at {own[0]}" if own else ""
    return "position.ruleset", (f"position.ruleset: UNKNOWN_KIND: POST /api/hex/{kind} rules "
                                f"on positions of {' or '.join(names)}, and this position's "
                                f"ruleset is {ruleset!r}{where}")


def refusal(e: ValueError, kind: str | None = None,
            ruleset: str | None = None) -> JSONResponse:
    """The engine's refusal in the server's error envelope (:class:`ErrorBody`, with the
    engine's fields), in HTTP's words."""
    info = e.to_json() if callable(getattr(e, "to_json", None)) else {}
    detail, field = http_words(str(e) or type(e).__name__), info.get("field")
    message = None if info.get("message") is None else http_words(str(info["message"]))
    if info.get("code") == "UNKNOWN_KIND" and field == "kind" and kind and ruleset:
        field, detail = _wrong_route(kind, ruleset)
        message = detail
    body = ErrorBody(error="invalid", detail=detail, field=field, code=info.get("code"),
                     where=info.get("where"), message=message,
                     units=info.get("units"), hexes=info.get("hexes"))
    return JSONResponse(body.model_dump(exclude_none=True), status_code=422)


def _ruling(kind: str, params: dict[str, Any]) -> dict:
    pos = params.pop("position")
    data = hex_samples.rules_data_for(pos, params.pop("rules_data", None))
    return _http_strings(charges.hex_rule(kind, pos, rules_data=data, **params))


async def rule(workers: Workers, kind: str, request: hm.HexRequest) -> Any:
    """``charges.hex_rule(kind, ...)`` on the request's fields, off the event loop; options
    left out (or null) take the ruleset's defaults."""
    params = {k: v for k, v in request.model_dump(by_alias=True, exclude_unset=True).items()
              if v is not None}
    try:
        return await workers.run("rule", partial(_ruling, kind, params))
    except ValueError as e:
        return refusal(e, kind, request.position.ruleset)


def layout(position: dict[str, Any]) -> dict:
    """The map layout of a position, validated by its own ruleset (a wagon out of place is put
    under its stack, as the game does, rather than refused: this is only a picture)."""
    ruleset = get_ruleset(position.get("ruleset"), kind="hex")
    return map_layout(charges.hex.load_position(position, ruleset, fix_wagons=True))


@router.post("/api/hex/combat", response_model=hm.CloseCombatRuling, responses=HEX_RESPONSES,
             summary="Musket & Pike close combat: every modifier, the odds and the net")
async def combat(request: hm.CombatRequest, workers: WorkersDep) -> Any:
    return await rule(workers, "combat", request)


@router.post("/api/hex/reactions", response_model=hm.ReactionsRuling, responses=HEX_RESPONSES,
             summary="Musket & Pike reactions: who may react to an event, and why not")
async def reactions(request: hm.ReactionsRequest, workers: WorkersDep) -> Any:
    return await rule(workers, "reactions", request)


@router.post("/api/hex/assault", response_model=hm.AssaultRuling, responses=HEX_RESPONSES,
             summary="La Bataille assault: declaration checks, approach distance, melee")
async def assault(request: hm.AssaultRequest, workers: WorkersDep) -> Any:
    return await rule(workers, "assault", request)


@router.post("/api/hex/rally", response_model=hm.RallyRuling, responses=HEX_RESPONSES,
             summary="La Bataille rally move: allowance, the route it must take, a path checked")
async def rally(request: hm.RallyRequest, workers: WorkersDep) -> Any:
    return await rule(workers, "rally", request)


@router.post("/api/hex/cup", response_model=hm.CupRuling, responses=HEX_RESPONSES,
             summary="La Bataille chit cup: each draw and what it activates")
async def cup(request: hm.CupRequest, workers: WorkersDep) -> Any:
    return await rule(workers, "cup", request)


@router.post("/api/hex/map", response_model=hm.HexMapLayout, responses=HEX_RESPONSES,
             summary="A position's map as a picture's layout (hexes, features, counters)")
async def position_map(request: hm.MapRequest, workers: WorkersDep) -> Any:
    try:
        return await workers.run("rule", layout, request.model_dump(by_alias=True,
                                                                    exclude_unset=True)["position"])
    except ValueError as e:
        return refusal(e)


@router.get("/api/hex/kinds", response_model=list[dict[str, Any]], responses=TOO_LARGE,
            summary="Each hex ruleset's ruling kinds, their parameters and every option")
async def kinds() -> Any:
    return charges.hex.describe()


@router.get("/api/hex/samples", response_model=hm.HexSampleList, responses=TOO_LARGE,
            summary="The sample positions the server ships")
async def samples() -> Any:
    return {"samples": [{**s, "url": f"/api/hex/samples/{s['name']}"}
                        for s in hex_samples.positions()]}


@router.get("/api/hex/samples/{name}", response_model=hm.HexSample,
            responses={404: {"model": ErrorBody, "description": "No such sample"}, **TOO_LARGE,
                       422: {"model": ErrorBody, "description": "Not a sample name"}},
            summary="A sample position with its (illustrative) rules data and its map")
async def sample(name: SampleName, workers: WorkersDep) -> Any:
    pos = hex_samples.position(name)
    if pos is None:
        raise ClientError(404, "not_found", f"no hex sample {name!r}; GET /api/hex/samples "
                                            f"lists them")
    return {"name": name, "title": str(pos.get("title") or name),
            "ruleset": str(pos.get("ruleset")), "url": f"/api/hex/samples/{name}",
            "position": pos, "rules_data": hex_samples.rules_data(pos.get("rules_data")),
            "map": await workers.run("rule", layout, pos)}


@router.get("/hex", include_in_schema=False)
async def page() -> FileResponse:
    return FileResponse(STATIC_DIR / "hex.html", headers={"Cache-Control": "no-cache"})
