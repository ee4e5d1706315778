"""The API's OpenAPI document (``api/openapi.json``, generated from api/openapi/document.ts)
is a valid OpenAPI 3.1 document by ``openapi-spec-validator`` (the validator of the
openapi-core project, which checks against the OpenAPI Initiative's published 3.1 schema),
and documents what a client generator needs: an operationId and a summary on every
operation, the error schema on every refusal, integer types for integer parameters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

DOCUMENT = Path(__file__).resolve().parents[3] / "api" / "openapi.json"
METHODS = ("get", "put", "post", "delete", "patch")


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DOCUMENT.read_text())
    return loaded


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, op)
        for path, item in document["paths"].items()
        for method, op in item.items()
        if method in METHODS
    ]


def test_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"].startswith("3.1")
    try:
        validate(document)
    except OpenAPIValidationError as err:  # the validator's own message, not a bare assert
        pytest.fail(f"api/openapi.json is not valid OpenAPI 3.1: {err}")


def test_no_component_schema_carries_an_id(document: dict[str, Any]) -> None:
    with_id = [name for name, s in document["components"]["schemas"].items() if "$id" in s]
    assert with_id == []


def test_every_operation_has_a_unique_operation_id_and_a_summary(document: dict[str, Any]) -> None:
    ids = [op.get("operationId") for _, _, op in operations(document)]
    assert all(ids), [f"{m} {p}" for p, m, op in operations(document) if not op.get("operationId")]
    assert len(ids) == len(set(ids))
    assert all(op.get("summary") for _, _, op in operations(document))


def test_every_refusal_has_the_error_schema(document: dict[str, Any]) -> None:
    error = "#/components/schemas/Error"
    for path, method, op in operations(document):
        assert "401" in op["responses"], f"{method} {path}"
        for status, response in op["responses"].items():
            if status == "default" or int(status) < 400:
                continue
            schema = response["content"]["application/json"]["schema"]
            refs = [s["$ref"] for s in schema.get("anyOf", [schema])]
            assert error in refs or status == "403", f"{method} {path} {status}: {refs}"


def test_integer_parameters_are_integers(document: dict[str, Any]) -> None:
    for path, method, op in operations(document):
        for param in op.get("parameters", []):
            if param["name"] in ("port", "limit"):
                assert param["schema"]["type"] == "integer", f"{method} {path} {param['name']}"


def test_api_keys_are_documented(document: dict[str, Any]) -> None:
    assert set(document["paths"]["/apikeys"]) == {"get", "post"}
    assert set(document["paths"]["/apikeys/{keyId}"]) == {"delete"}
