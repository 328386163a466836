"""The API's OpenAPI 3.1 document, served at ``GET /openapi.json`` (and tested by schemathesis).

Written by hand rather than generated: the job document is read by the scenario readers, whose
rules (one schedule key, times as ticks or ISO text, limits) are the validator's to state; the
schema lists the keys and their JSON types, and a 422 names the field and the rule.
"""

from __future__ import annotations

from engine.model import limits
from engine.model.records import CatchUp, Channel, NotifyOn
from engine.query.status_words import STATUSES
from engine.scenario.schema import MAX_TICK
from engine.schedules.calendar import DstRule


def _limited(limit: limits.Limit) -> dict:
    """A whole number within one of the engine's limits."""
    return {"type": "integer", "minimum": limit.low, "maximum": limit.high}


_PRIORITY = {
    "anyOf": [
        {"enum": ["high", "medium", "low"]},
        {"type": "integer", "minimum": limits.PRIORITY.low, "maximum": limits.PRIORITY.high},
    ]
}
_TIME = {"anyOf": [{"type": "string"}, {"type": "integer"}]}
_SUBSCRIPTION = {
    "type": "object",
    "properties": {
        "on": {"type": "array", "items": {"enum": [n.value for n in NotifyOn]}},
        "channel": {"enum": [c.value for c in Channel]},
        "to": {"type": "string"},
    },
    "required": ["on", "channel", "to"],
}
_SETTINGS = {
    "at": _TIME,
    "every": {"type": "integer", "minimum": 1, "maximum": MAX_TICK},
    "first": _TIME,
    "daily": {"type": "string"},
    "weekly": {"anyOf": [{"type": "string"}, {"type": "object"}]},
    "monthly": {"anyOf": [{"type": "string"}, {"type": "object"}]},
    "cron": {"type": "string"},
    "timezone": {"type": "string"},
    "dst": {"enum": [rule.value for rule in DstRule]},
    "priority": _PRIORITY,
    "max_retries": _limited(limits.RETRIES),
    "max_attempts": _limited(limits.ATTEMPTS),
    "timeout": {"anyOf": [{"type": "null"}, _limited(limits.TIMEOUT)]},
    "payload": {"type": "string"},
    "catch_up": {"enum": [c.value for c in CatchUp]},
    "run": {"type": "string", "description": "an executor named in the server's config"},
}
JOB_INPUT = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        **_SETTINGS,
        "backoff": {"type": "object"},
        "notify": {"type": "array", "items": _SUBSCRIPTION},
        "depends_on": {"type": "array", "items": {"type": "string"}},
    },
    "additionalProperties": False,
}
JOB_INPUT["examples"] = [
    {"id": "nightly", "daily": "02:00", "timezone": "Europe/Paris", "priority": "high"},
    {"every": 3600, "first": "+600", "max_retries": 2, "payload": "p"},
]
JOB_AMENDMENT = {
    "oneOf": [
        {
            "type": "object",
            "properties": _SETTINGS,
            "minProperties": 1,
            "additionalProperties": False,
        },
        {
            "type": "object",
            "description": "cancel the job's next run; alone",
            "properties": {"cancel_next": {"const": True}},
            "required": ["cancel_next"],
            "additionalProperties": False,
        },
    ],
    "examples": [{"priority": "low", "max_retries": 1}, {"cancel_next": True}],
}
_ATTEMPT = {
    "type": "object",
    "properties": {
        "attempt": {"type": "integer"},
        "worker": {"type": "string"},
        "started": {"type": ["string", "null"]},
        "ended": {"type": ["string", "null"]},
        "outcome": {"enum": ["running", "succeeded", "failed", "timed_out", "lost"]},
    },
    "required": ["attempt", "worker", "started", "ended", "outcome"],
}
RUN = {
    "type": "object",
    "properties": {
        "scheduled": {
            "type": ["string", "null"],
            "description": "null past the year 9999, where no date names the run: see tick",
        },
        "tick": {"type": "integer"},
        "status": {"enum": list(STATUSES)},
        "attempts": {"type": "array", "items": _ATTEMPT},
    },
    "required": ["scheduled", "tick", "status", "attempts"],
}
_JOB_FIELDS = {
    "id": {"type": "string"},
    "status": {"enum": list(STATUSES)},
    "schedule": {"type": "string"},
    "priority": _PRIORITY,
    "max_retries": {"type": "integer"},
    "timeout": {"type": ["integer", "null"]},
    "payload": {"type": ["string", "null"]},
    "run": {"type": "string"},
    "catch_up": {"enum": [c.value for c in CatchUp]},
    "paused": {"type": "boolean", "description": "paused: it starts no run until resumed"},
    "next_runs": {"type": "array", "items": {"type": "string"}},
    "last_success": {
        "type": ["string", "null"],
        "description": "when the job's last run succeeded; null if none has",
    },
    "last_failure": {
        "type": ["string", "null"],
        "description": "when the job's last run failed for good; null if none has",
    },
}
_ZONE = {
    "timezone": {
        "type": ["string", "null"],
        "description": "a calendar schedule's zone, which an amended schedule keeps; else null",
    }
}
JOB_SUMMARY = {
    "type": "object",
    "properties": {**_JOB_FIELDS, **_ZONE},
    "required": list(_JOB_FIELDS),
}
JOB = {
    "type": "object",
    "properties": {**_JOB_FIELDS, **_ZONE, "runs": {"type": "array", "items": RUN}},
    "required": [*_JOB_FIELDS, "runs"],
}
ERROR = {
    "type": "object",
    "properties": {
        "message": {"type": "string"},
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "message": {"type": "string"}},
                "required": ["path", "message"],
            },
        },
    },
    "required": ["message", "errors"],
}
WORKER = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "state": {"enum": ["idle", "busy", "draining", "down"]},
        "running": {"type": ["object", "null"]},
        "utilisation": {"type": "number"},
    },
    "required": ["id", "state", "running", "utilisation"],
}


def _json(schema: dict, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict:
    words = {
        401: "no or a wrong bearer token",
        404: "no such job",
        409: "conflict with the job's state",
        413: "body over 1 MB",
        422: "invalid body or query: each field's path and what was expected",
    }
    return {str(code): _json({"$ref": "#/components/schemas/Error"}, words[code]) for code in codes}


_ID = {
    "name": "id",
    "in": "path",
    "required": True,
    "schema": {"type": "string"},
    "example": "nightly",
}
_AFTER_RUN = {
    "name": "after_run",
    "in": "query",
    "description": "true: while a run of the job runs, answer 202 and apply the change once no "
    "run of it runs (a deletion pauses the job meanwhile) instead of answering 409",
    "schema": {"type": "boolean"},
}
_KEPT = _json(
    {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
    "a run of the job is running: the change applies once it ends",
)


def _named(done: str, conflict: str) -> dict:
    """A POST on a job without a body: pause, resume."""
    return {
        "post": {
            "responses": {
                "204": {"description": done},
                **_errors(401, 404),
                "409": _json({"$ref": "#/components/schemas/Error"}, conflict),
            }
        }
    }


_PAGING = [
    {
        "name": "cursor",
        "in": "query",
        "description": "the next value of a previous page",
        "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"},
    },
    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 500}},
]


def _page_of(key: str, schema: str) -> dict:
    """A page of ``schema`` items under ``key``, with the cursor of the next page."""
    cursor = {"type": ["string", "null"], "description": "the cursor of the next page"}
    items = {"type": "array", "items": {"$ref": f"#/components/schemas/{schema}"}}
    return {
        "type": "object",
        "properties": {key: items, "next": cursor},
        "required": [key, "next"],
    }


def _body(schema: str) -> dict:
    return {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}},
    }


def openapi_document() -> dict:
    return {
        "openapi": "3.1.0",
        "info": {"title": "cronlapse", "version": "0.1.0"},
        "security": [{"bearer": []}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "JobInput": JOB_INPUT,
                "JobAmendment": JOB_AMENDMENT,
                "Job": JOB,
                "JobSummary": JOB_SUMMARY,
                "Run": RUN,
                "Worker": WORKER,
                "Error": ERROR,
            },
        },
        "paths": {
            "/health": {
                "get": {
                    "security": [],
                    "responses": {"200": _json({"type": "object"}, "the server is up")},
                }
            },
            "/job": {
                "post": {
                    "requestBody": _body("JobInput"),
                    "responses": {
                        "201": _json(
                            {
                                "type": "object",
                                "properties": {"id": {"type": "string"}},
                                "required": ["id"],
                            },
                            "created",
                        ),
                        **_errors(401, 409, 413, 422),
                    },
                }
            },
            "/jobs": {
                "get": {
                    "parameters": [
                        {"name": "status", "in": "query", "schema": {"enum": list(STATUSES)}},
                        {"name": "priority", "in": "query", "schema": _PRIORITY},
                        {
                            "name": "run",
                            "in": "query",
                            "schema": {"type": "string", "pattern": "^[^\\u0000]*$"},
                        },
                        *_PAGING,
                    ],
                    "responses": {
                        "200": _json(
                            _page_of("jobs", "JobSummary"), "a page of jobs, in submission order"
                        ),
                        **_errors(401, 422),
                    },
                }
            },
            "/job/{id}": {
                "parameters": [_ID],
                "get": {
                    "responses": {
                        "200": _json({"$ref": "#/components/schemas/Job"}, "the job"),
                        **_errors(401, 404),
                    }
                },
                "put": {
                    "parameters": [_AFTER_RUN],
                    "requestBody": _body("JobAmendment"),
                    "responses": {
                        "204": {"description": "amended"},
                        "202": _KEPT,
                        **_errors(401, 404, 409, 413, 422),
                    },
                },
                "delete": {
                    "parameters": [_AFTER_RUN],
                    "responses": {
                        "204": {"description": "deleted"},
                        "202": _KEPT,
                        **_errors(401, 404, 409, 422),
                    },
                },
            },
            "/job/{id}/pause": {
                "parameters": [_ID],
                **_named("paused: no run starts until it is resumed", "already paused"),
            },
            "/job/{id}/resume": {
                "parameters": [_ID],
                **_named("resumed: missed runs follow its catch_up", "not paused"),
            },
            "/job/{id}/runs": {
                "parameters": [_ID],
                "get": {
                    "parameters": _PAGING,
                    "responses": {
                        "200": _json(
                            _page_of("runs", "Run"), "a page of the job's runs, by scheduled time"
                        ),
                        **_errors(401, 404, 422),
                    },
                },
            },
            "/workers": {
                "get": {
                    "responses": {
                        "200": _json(
                            {
                                "type": "object",
                                "properties": {
                                    "workers": {
                                        "type": "array",
                                        "items": {"$ref": "#/components/schemas/Worker"},
                                    }
                                },
                                "required": ["workers"],
                            },
                            "the worker slots",
                        ),
                        **_errors(401),
                    }
                }
            },
            "/metrics": {
                "get": {
                    "description": "Prometheus text exposition format (docs/service.md). The "
                    "bearer token is required unless the server runs with --metrics-public.",
                    "responses": {
                        "200": {
                            "description": "the metrics",
                            "content": {"text/plain": {"schema": {"type": "string"}}},
                        },
                        **_errors(401),
                    },
                }
            },
            "/openapi.json": {
                "get": {"responses": {"200": _json({"type": "object"}, "this document")}}
            },
        },
    }
