"""A deleted job's id stays taken (the journal keeps its history): a job posted with it is told
that the id is retired, not that the job already exists, which no read would confirm."""

from __future__ import annotations

from cronlapse.service.store.memory import MemoryStore
from engine.model.commands import Outcome
from tests.service.test_live import Wall, open_live

RETIRED = (
    "job 'gone' was deleted: its id stays retired, since the journal keeps its history; "
    "choose another id"
)


def test_posting_a_deleted_jobs_id_says_the_id_is_retired() -> None:
    live = open_live(MemoryStore(), Wall(), workers=1)
    assert live.submit("schedule", {"id": "gone", "every": 3600, "first": "+100"}).accepted
    assert live.submit("delete", {"job": "gone"}).accepted
    refused = live.submit("schedule", {"id": "gone", "every": 60})
    assert refused.outcome is Outcome.CONFLICT and refused.problem is not None
    assert (refused.problem.path, refused.problem.message) == ("id", RETIRED)


def test_posting_a_live_jobs_id_still_says_it_exists() -> None:
    live = open_live(MemoryStore(), Wall(), workers=1)
    assert live.submit("schedule", {"id": "here", "every": 3600}).accepted
    refused = live.submit("schedule", {"id": "here", "every": 60})
    assert refused.problem is not None and refused.problem.message == "job 'here' already exists"
