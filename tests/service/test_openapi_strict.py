"""The OpenAPI document refuses what the server refuses (issue 36: it admitted an empty
``cursor``, ``priority`` and ``run``, and ``cancel_next: false``), read with a JSON Schema
validator; the server's side is tests/service/test_schemathesis.py's (``--checks all``)."""

from __future__ import annotations

import jsonschema_rs
import pytest

from cronlapse.service.clock import ENGINE_CLOCK
from cronlapse.service.codec import InputInvalid, body_keys, read_input
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


JOB_INPUT = DOCUMENT["components"]["schemas"]["JobInput"]


def test_the_document_lists_every_key_the_server_takes_and_no_other() -> None:
    """Generated from the readers' own list (issue 36: ``repeat``, ``pool``, ``overlap``...
    were taken by the server and missing from the document)."""
    assert sorted(JOB_INPUT["properties"]) == list(body_keys("schedule"))
    settings, cancel = AMENDMENT["oneOf"]
    assert sorted([*settings["properties"], *cancel["properties"]]) == list(body_keys("modify"))


def read_by_the_server(verb: str, body: dict) -> bool:
    try:
        read_input(verb, body, 1_000_000, ENGINE_CLOCK)
    except InputInvalid:
        return False
    return True


CRON = {"id": "c", "cron": "0 3 * * *"}


@pytest.mark.parametrize(
    ("body", "accepted"),
    [
        (CRON | {"repeat": 60}, True),
        (CRON | {"repeat": 0}, False),
        (CRON | {"repeat": "60"}, False),
        ({"id": "c", "cron": ["0 3 * * *", "0 15 * * *"]}, True),
        ({"id": "c", "cron": []}, False),
        ({"id": "c", "cron": [3]}, False),
        (CRON | {"pool": "etl"}, True),
        (CRON | {"pool": 7}, True),
        (CRON | {"pool": " "}, False),
        (CRON | {"pool": "a,b"}, False),
        (CRON | {"pool": "p" * 101}, False),
        (CRON | {"overlap": "Forbid", "max_active": 2}, True),
        (CRON | {"overlap": "forbid"}, True),
        (CRON | {"overlap": "never"}, False),
        (CRON | {"max_active": 0}, False),
        (CRON | {"deadline": 60, "start_deadline": 0, "run_timeout": 600}, True),
        (CRON | {"deadline": 0}, False),
        (CRON | {"run_timeout": 1.5}, False),
        (CRON | {"catch_up_window": 0, "max_missed": 100}, True),
        (CRON | {"max_missed": -1}, False),
        (CRON | {"trigger_rule": "all_done"}, True),
        (CRON | {"trigger_rule": "ALL_DONE"}, True),
        (CRON | {"trigger_rule": "sometimes"}, False),
        (CRON | {"catch_up": "Latest", "dst": "Kubernetes", "priority": "HIGH"}, True),
        (CRON | {"timeout": "none"}, True),
        (CRON | {"timeout": "None"}, True),
        (CRON | {"timeout": "never"}, False),
        (CRON | {"notify": [{"on": ["failed"], "channel": "webhook", "to": "ops"}]}, True),
        (CRON | {"notify": [{"on": [], "channel": "webhook", "to": "ops"}]}, False),
        (CRON | {"notify": [{"on": ["failed"], "channel": "webhook", "to": "ops", "x": 1}]}, False),
        (CRON | {"duration": 5}, False),
    ],
)
def test_a_job_is_valid_exactly_when_the_server_reads_it(body: dict, accepted: bool) -> None:
    assert valid(JOB_INPUT, body) is accepted
    assert read_by_the_server("schedule", body) is accepted


@pytest.mark.parametrize(
    ("body", "accepted"),
    [
        ({"cron": "0 3 * * *", "repeat": 60}, True),
        ({"notify": [{"on": ["failed"], "channel": "webhook", "to": "ops"}]}, True),
        ({"pool": "etl"}, False),
        ({"overlap": "Forbid"}, False),
    ],
)
def test_an_amendment_is_valid_exactly_when_the_server_reads_it(body: dict, accepted: bool) -> None:
    assert valid(AMENDMENT, body) is accepted
    assert read_by_the_server("modify", {"job": "j", **body}) is accepted
