"""The OpenAPI document (``/openapi.json``, ``/docs``; DESIGN.md, HTTP: it "states every
constraint the server enforces that a schema can express").

FastAPI describes most of it from the routes and :mod:`server.models`. Two things it cannot
see are added here:

- The multipart forms' JSON parts. ``charges`` and ``dice`` arrive as text and are parsed as
  JSON (server.forms); in OpenAPI a multipart property of type array or object is exactly
  that, a part holding JSON (OpenAPI 3.1, Encoding Object: ``application/json`` by default). So
  the form says what those parts must hold, from the same adapters that check them, and that
  ``markers`` is a JSON object sent as text or as a file.
- Links from a created review (``POST /api/reviews``, 201) to the operations that read it, so
  a client (or a stateful tester) knows where its ``id`` goes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI

from server.forms import json_part_schemas

REF_TEMPLATE = "#/components/schemas/{model}"

MARKERS_PART: dict[str, Any] = {"anyOf": [
    {"type": "string", "contentMediaType": "application/octet-stream"},
    {"type": "object", "description": "markers.json as a JSON object"}]}

#: The operations that read a review, by the name of their link from a created review.
REVIEW_READERS = {"GetReview": "/api/reviews/{review_id}",
                  "GetOverlay": "/api/reviews/{review_id}/overlay.png",
                  "GetPhoto": "/api/reviews/{review_id}/photo",
                  "GetThumbnail": "/api/reviews/{review_id}/thumbnail.jpg"}


def install_openapi(app: FastAPI) -> None:
    """Make ``app.openapi()`` (what ``/openapi.json`` serves) FastAPI's document with the
    additions of this module, built once."""
    generate: Callable[[], dict[str, Any]] = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = generate()  # FastAPI keeps it as app.openapi_schema: completed in place
            describe_form_parts(doc)
            link_created_review(doc)
        return app.openapi_schema  # type: ignore[return-value]

    app.openapi = openapi  # type: ignore[method-assign]


def describe_form_parts(doc: dict[str, Any]) -> None:
    """Give each multipart form's JSON parts the schema of what they hold."""
    components = doc.setdefault("components", {}).setdefault("schemas", {})
    parts = {**json_part_schemas(REF_TEMPLATE), "markers": MARKERS_PART}
    for operation in _operations(doc):
        content = operation.get("requestBody", {}).get("content", {})
        form = content.get("multipart/form-data")
        if form is None or "$ref" not in form.get("schema", {}):
            continue
        body = components[form["schema"]["$ref"].rsplit("/", 1)[1]]
        props = body.get("properties", {})
        for name, schema in parts.items():
            if name not in props:
                continue
            schema = dict(schema)
            for model, definition in schema.pop("$defs", {}).items():
                components.setdefault(model, definition)
            keep = {k: props[name][k] for k in ("title", "description") if k in props[name]}
            props[name] = {**schema, **keep}


def link_created_review(doc: dict[str, Any]) -> None:
    """Links from the 201 of ``POST /api/reviews`` to the operations that read the review."""
    created = doc["paths"]["/api/reviews"]["post"]["responses"]["201"]
    created["links"] = {
        name: {"operationId": doc["paths"][path]["get"]["operationId"],
               "parameters": {"review_id": "$response.body#/id"},
               "description": "The review just stored"}
        for name, path in REVIEW_READERS.items()}


def _operations(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [op for item in doc.get("paths", {}).values() for op in item.values()
            if isinstance(op, dict)]
