"""Multipart form fields as the routes need them: text or file, JSON, typed (DESIGN.md, HTTP:
"``markers`` (the markers JSON, as a file or text)", ``charges`` and ``dice`` as JSON text).
Each failure is a :class:`ClientError` naming the field."""

from __future__ import annotations

import json
from typing import Annotated, Any, TypeVar

from fastapi import UploadFile
from pydantic import Field, TypeAdapter, ValidationError

from server import models as m
from server.errors import ClientError, validation_errors

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
    except RecursionError:
        raise ClientError(400, "bad_json", f"{field}: JSON nested too deeply", field) from None


def typed_field(adapter: TypeAdapter[T], value: Any, field: str) -> T:
    try:
        return adapter.validate_python(value)
    except ValidationError as e:
        detail, _ = validation_errors(e.errors(), (field,))
        raise ClientError(422, "invalid", detail, field) from None


#: The ``charges`` part: at least one declared charge.
CHARGES_ADAPTER: TypeAdapter[list[m.ChargeDeclaration]] = TypeAdapter(
    Annotated[list[m.ChargeDeclaration], Field(min_length=1)])
#: The ``dice`` part, when sent: the dice per charger.
DICE_ADAPTER: TypeAdapter[m.Dice] = TypeAdapter(m.Dice)
#: The ``facing_roll`` part, when sent: a D6 per charger for a contested facing (whfb8).
FACING_ROLL_ADAPTER: TypeAdapter[dict[str, m.Die]] = TypeAdapter(dict[str, m.Die])


def json_part_schemas(ref_template: str) -> dict[str, dict[str, Any]]:
    """The JSON Schema of what each JSON form part holds, from the adapters that check it, for
    the OpenAPI (server.openapi)."""
    return {"charges": CHARGES_ADAPTER.json_schema(ref_template=ref_template),
            "dice": DICE_ADAPTER.json_schema(ref_template=ref_template),
            "facing_roll": FACING_ROLL_ADAPTER.json_schema(ref_template=ref_template)}


async def markers_field(value: UploadFile | str) -> dict[str, Any]:
    """The marker set (DESIGN.md, markers.json): a JSON object, read from text or a file."""
    doc = json_field(await text_field(value, "markers"), "markers")
    if not isinstance(doc, dict):
        raise ClientError(422, "invalid", "markers: must be a JSON object (the marker set, "
                                          "markers.json)", "markers")
    return doc
