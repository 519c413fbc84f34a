"""Checks a response body against the server's own OpenAPI 3.1 document (its schemas are JSON Schema 2020-12)."""

from __future__ import annotations

import jsonschema


def check_response(openapi: dict, method: str, template: str, status: int, body) -> None:
    operation = openapi["paths"][f"/api/harness{template}"][method.lower()]
    response = operation["responses"][str(status)]
    schema = response["content"]["application/json"]["schema"]
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(body)


def check_error(openapi: dict, method: str, template: str, error, status: int, code: str | None = None) -> None:
    """An ApiError is the documented `{error: {code, message, field?}}` with the documented status."""
    assert error.status == status, error
    check_response(openapi, method, template, status, error.body)
    if code is not None:
        assert error.code == code, error
