"""The OpenAPI document refuses what the server refuses (issue 36: it admitted an empty
``cursor``, ``priority`` and ``run``, and ``cancel_next: false``), read with a JSON Schema
validator; the server's side is tests/service/test_schemathesis.py's (``--checks all``)."""

from __future__ import annotations

import jsonschema_rs
import pytest

from cronlapse.service.openapi import openapi_document

DOCUMENT = openapi_document()


def valid(schema: dict, value: object) -> bool:
    """``value`` is valid by ``schema`` (jsonschema_rs: schemathesis's own validator)."""
    return jsonschema_rs.Draft202012Validator(schema).is_valid(value)


def parameter(path: str, method: str, name: str) -> dict:
    operation = DOCUMENT["paths"][path][method]
    (found,) = [p for p in operation.get("parameters", []) if p["name"] == name]
    return found["schema"]


AMENDMENT = DOCUMENT["components"]["schemas"]["JobAmendment"]


@pytest.mark.parametrize(
    ("body", "accepted"),
    [
        ({"cancel_next": True}, True),
        ({"priority": "low", "every": 60}, True),
        ({"cancel_next": False}, False),
        ({"cancel_next": True, "priority": "low"}, False),
        ({}, False),
        ({"priority": 2**31}, False),
    ],
)
def test_an_amendment_is_valid_exactly_when_the_server_takes_it(body, accepted) -> None:
    assert valid(AMENDMENT, body) is accepted


@pytest.mark.parametrize(
    ("path", "name", "text", "accepted"),
    [
        ("/jobs", "cursor", "", False),
        ("/jobs", "cursor", "12", True),
        ("/jobs", "cursor", "1" * 19, False),
        ("/job/{id}/runs", "cursor", "", False),
        ("/jobs", "run", "", True),
        ("/jobs", "run", "a\x00b", False),
    ],
)
def test_query_text_is_valid_exactly_when_the_server_takes_it(path, name, text, accepted) -> None:
    assert valid(parameter(path, "get", name), text) is accepted


@pytest.mark.parametrize(
    ("value", "accepted"),
    [("high", True), (-(2**31), True), (2**31 - 1, True), (2**31, False), ("", False)],
)
def test_a_priority_filter_is_valid_exactly_when_the_server_takes_it(value, accepted) -> None:
    assert valid(parameter("/jobs", "get", "priority"), value) is accepted
