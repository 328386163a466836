"""The API's OpenAPI 3.1 document, served at ``GET /openapi.json`` (and tested by schemathesis).

The job bodies' keys are the readers' own list (:func:`~cronlapse.service.codec.body_keys`), each
with the JSON form its reader takes (:data:`_KEY_FORMS`: a key the readers take and the table
lacks fails at import), so the document lists exactly what the server takes. The rules a schema
cannot hold (one schedule key, a cron expression's grammar, a zone's name, a known pool) are
the readers' to state: a 422 names the field and the rule.
"""

from __future__ import annotations

from collections.abc import Iterable

from cronlapse.service.codec import CANCEL_NEXT, RUN_KEY, body_keys
from engine.model import limits
from engine.model.records import CatchUp, Channel, NotifyOn
from engine.query.status_words import STATUSES
from engine.scenario.schema import MAX_TICK
from engine.scenario.vocabulary import OPTIONS
from engine.schedules.calendar import DstRule


def _limited(limit: limits.Limit) -> dict:
    """A number within one of the engine's limits (a whole one unless the limit says not)."""
    kind = "integer" if limit.whole else "number"
    return {"type": kind, "minimum": limit.low, "maximum": limit.high}


def _choice(names: Iterable[str]) -> dict:
    """One of ``names`` in any case, as the readers take it (``Forbid``, ``forbid``)."""
    names = list(names)
    alternatives = "|".join(
        "".join(f"[{c.lower()}{c.upper()}]" if c.lower() != c.upper() else c for c in name)
        for name in names
    )
    return {"type": "string", "pattern": f"^(?:{alternatives})$", "examples": names}


def _option(key: str) -> dict:
    """The choices of a key of the vocabulary, in any case."""
    return _choice(OPTIONS[key].values)


_PRIORITY = {"anyOf": [_option("priority"), _limited(limits.PRIORITY)]}
_PRIORITY_FILTER = {
    "anyOf": [{"enum": list(OPTIONS["priority"].values)}, _limited(limits.PRIORITY)]
}
"""``GET /jobs?priority=``: the names as the API writes them (lower case)."""
_TIME = {"anyOf": [{"type": "string"}, {"type": "integer"}]}
_IDENTIFIER = {
    "anyOf": [
        {"type": "string", "pattern": "^(?=.*\\S)[^,]{1,100}$"},
        {"type": "integer"},
    ],
    "description": "a name of 1-100 characters, no ','; a bare number is its text",
}
_SUBSCRIPTION = {
    "type": "object",
    "properties": {
        "on": {"type": "array", "items": _choice(n.value for n in NotifyOn), "minItems": 1},
        "channel": _choice(c.value for c in Channel),
        "to": {"type": "string", "pattern": "\\S"},
    },
    "required": ["on", "channel", "to"],
    "additionalProperties": False,
}
_WORDS = {"type": "string", "pattern": "\\S"}
"""A string that is not blank."""
_KEY_FORMS: dict[str, dict] = {
    "id": {"type": "string"},
    "at": _TIME,
    "every": {"type": "integer", "minimum": 1, "maximum": MAX_TICK},
    "first": _TIME,
    "daily": {"type": "string"},
    "weekly": {"anyOf": [{"type": "string"}, {"type": "object"}]},
    "monthly": {"anyOf": [{"type": "string"}, {"type": "object"}]},
    "cron": {
        "anyOf": [
            {"type": "string"},
            {"type": "array", "items": {"type": "string"}, "minItems": 1},
        ]
    },
    "repeat": {"type": "integer", "minimum": 1, "maximum": MAX_TICK},
    "timezone": {"type": "string"},
    "dst": _option("dst"),
    "priority": _PRIORITY,
    "max_retries": _limited(limits.RETRIES),
    "max_attempts": _limited(limits.ATTEMPTS),
    "timeout": {"anyOf": [{"type": "null"}, _choice(["none"]), _limited(limits.TIMEOUT)]},
    "run_timeout": _limited(limits.RUN_TIMEOUT),
    "payload": {"type": "string"},
    "catch_up": _option("catch_up"),
    "overlap": _option("overlap"),
    "max_active": _limited(limits.MAX_ACTIVE),
    "pool": _IDENTIFIER,
    "catch_up_window": _limited(limits.CATCH_UP_WINDOW),
    "max_missed": _limited(limits.MAX_MISSED),
    "deadline": _limited(limits.DEADLINE),
    "start_deadline": _limited(limits.START_DEADLINE),
    "depends_on": {"type": "array", "items": {"type": "string"}},
    "trigger_rule": _option("trigger_rule"),
    "backoff": {"type": "object"},
    "notify": {"type": "array", "items": _SUBSCRIPTION},
    RUN_KEY: _WORDS | {"description": "an executor named in the server's config"},
}
"""Each job key's JSON form, as its reader takes it (engine.scenario.jobs, schedule_keys)."""


def _properties(verb: str) -> dict[str, dict]:
    """The body keys of ``verb`` (``schedule``: POST, ``modify``: PUT), each with its form and
    the vocabulary's help."""
    properties = {}
    for key in body_keys(verb):
        if key == CANCEL_NEXT:
            continue
        help_text = OPTIONS[key].help if key in OPTIONS else None
        properties[key] = _KEY_FORMS[key] | ({"description": help_text} if help_text else {})
    return properties


JOB_INPUT = {
    "type": "object",
    "properties": _properties("schedule"),
    "additionalProperties": False,
    "examples": [
        {"id": "nightly", "daily": "02:00", "timezone": "Europe/Paris", "priority": "high"},
        {"every": 3600, "first": "+600", "max_retries": 2, "payload": "p"},
    ],
}
JOB_AMENDMENT = {
    "oneOf": [
        {
            "type": "object",
            "properties": _properties("modify"),
            "minProperties": 1,
            "additionalProperties": False,
        },
        {
            "type": "object",
            "description": "cancel the job's next run; alone",
            "properties": {CANCEL_NEXT: {"const": True}},
            "required": [CANCEL_NEXT],
            "additionalProperties": False,
        },
    ],
    "examples": [{"priority": "low", "max_retries": 1}, {CANCEL_NEXT: True}],
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
    },
    "dst": {
        "anyOf": [{"enum": [rule.value for rule in DstRule]}, {"type": "null"}],
        "description": "a calendar schedule's rule at DST changes, which an amended calendar "
        "schedule keeps; else null",
    },
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
    "description": "true: while a run of the job runs, answer 202 and apply the change when "
    "that run ends, before the job's next run starts (a deletion pauses the job meanwhile) "
    "instead of answering 409",
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
                        {"name": "priority", "in": "query", "schema": _PRIORITY_FILTER},
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
