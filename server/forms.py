"""Multipart form fields as the routes need them: text or file, JSON, typed (DESIGN.md, HTTP:
"``markers`` (the markers JSON, as a file or text)", ``charges`` and ``dice`` as JSON text).
Each failure is a :class:`ClientError` naming the field."""

from __future__ import annotations

import json
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request, UploadFile
from pydantic import Field, TypeAdapter, ValidationError

from server import models as m
from server.errors import ClientError, unreadable_json, validation_errors

T = TypeVar("T")


async def text_field(value: UploadFile | str, field: str) -> str:
    """A form field sent either as text or as a file (DESIGN.md: markers 'as a file or text')."""
    raw = value if isinstance(value, str) else await value.read()
    if isinstance(raw, bytes):
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ClientError(400, "bad_json", f"{field}: not UTF-8 text", field) from None
    return raw


def json_field(text: str, field: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ClientError(400, "bad_json", f"{field}: not valid JSON ({e.msg} at line "
                                           f"{e.lineno}, column {e.colno})", field) from None
    except (RecursionError, ValueError) as e:  # too deep, or an integer too long to convert
        detail = unreadable_json(e, field)
        if detail is None:
            raise
        raise ClientError(400, "bad_json", detail, field) from None


def typed_field(adapter: TypeAdapter[T], value: Any, field: str) -> T:
    try:
        return adapter.validate_python(value)
    except ValidationError as e:
        detail, _ = validation_errors(e.errors(), (field,))
        raise ClientError(422, "invalid", detail, field) from None


async def _only_known_parts_once(request: Request) -> None:
    """Refuse (422) a form part the route does not take, naming it, and a part sent more than
    once: FastAPI ignores the first and keeps the last of a repeated part without a word, and
    drops unknown ones, so a misspelt ``dise`` would rule without the dice (``POST
    /api/rulings`` refuses extra inputs in the same way). The parts a route takes are its form
    parameters; the form is the one FastAPI has already read for them."""
    route = request.scope.get("route")
    known = [p.alias for p in getattr(getattr(route, "dependant", None), "body_params", ())]
    if not known:
        return
    names = [name for name, _ in (await request.form()).multi_items()]
    unknown = list(dict.fromkeys(n for n in names if n not in known))
    if unknown:
        what = (f"{unknown[0]}: not a part of this form" if len(unknown) == 1 else
                f"{', '.join(unknown)}: not parts of this form")
        raise ClientError(422, "invalid", f"{what}; it takes {', '.join(known)}", unknown[0])
    repeated = [n for n in dict.fromkeys(names) if names.count(n) > 1]
    if repeated:
        raise ClientError(422, "invalid", "; ".join(
            f"{n}: sent {names.count(n)} times; send it once" for n in repeated), repeated[0])


#: Add to a multipart route's ``dependencies``: unknown and repeated parts are refused.
ONLY_KNOWN_PARTS_ONCE = Depends(_only_known_parts_once)


def word_or_json_field(text: str, field: str) -> Any:
    """A part that is either a bare word (``halt``) or JSON (``"halt"``, ``{"knights":
    "continue"}``), as a form part's text reads most simply."""
    stripped = text.strip()
    return json_field(stripped, field) if stripped[:1] in ('{', '[', '"') else stripped


#: The ``charges`` part: at least one declared charge.
CHARGES_ADAPTER: TypeAdapter[list[m.ChargeDeclaration]] = TypeAdapter(
    Annotated[list[m.ChargeDeclaration], Field(min_length=1)])
#: The ``dice`` part, when sent: the dice per charger.
DICE_ADAPTER: TypeAdapter[m.Dice] = TypeAdapter(m.Dice)
#: The ``facing_roll`` part, when sent: a D6 per charger for a contested facing (whfb8).
FACING_ROLL_ADAPTER: TypeAdapter[dict[str, m.Die]] = TypeAdapter(dict[str, m.Die])
#: The ``flee`` part, when sent: a charged unit's flee roll (tow, whfb8).
FLEE_ADAPTER: TypeAdapter[m.Dice] = TypeAdapter(m.Dice)
#: The ``on_accidental_contact`` part, when sent (tow): 'halt' or 'continue', for every charger
#: or per charger id.
ON_ACCIDENTAL_CONTACT_ADAPTER: TypeAdapter[Any] = TypeAdapter(m.OnAccidentalContact)


def json_part_schemas(ref_template: str) -> dict[str, dict[str, Any]]:
    """The JSON Schema of what each JSON form part holds, from the adapters that check it, for
    the OpenAPI (server.openapi)."""
    return {"charges": CHARGES_ADAPTER.json_schema(ref_template=ref_template),
            "dice": DICE_ADAPTER.json_schema(ref_template=ref_template),
            "facing_roll": FACING_ROLL_ADAPTER.json_schema(ref_template=ref_template),
            "flee": FLEE_ADAPTER.json_schema(ref_template=ref_template),
            "on_accidental_contact": ON_ACCIDENTAL_CONTACT_ADAPTER.json_schema(
                ref_template=ref_template)}


async def markers_field(value: UploadFile | str) -> dict[str, Any]:
    """The marker set (DESIGN.md, markers.json): a JSON object, read from text or a file."""
    doc = json_field(await text_field(value, "markers"), "markers")
    if not isinstance(doc, dict):
        raise ClientError(422, "invalid", "markers: must be a JSON object (the marker set, "
                                          "markers.json)", "markers")
    return doc
