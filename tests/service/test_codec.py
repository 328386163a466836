"""Reading the service's inputs: a refused unknown key lists the keys the service takes."""

from __future__ import annotations

import re

import pytest

from cronlapse.service.clock import ENGINE_CLOCK
from cronlapse.service.codec import (
    CANCEL_NEXT,
    RUN_KEY,
    SIMULATION_ONLY,
    InputInvalid,
    read_input,
)
from engine.scenario.vocabulary import VERBS

SCHEDULE_BODY = {*VERBS["schedule"].keys, RUN_KEY} - set(SIMULATION_ONLY)
MODIFY_BODY = {*VERBS["modify"].keys, RUN_KEY, CANCEL_NEXT} - {*SIMULATION_ONLY, "job"}
"""PUT's body: the job is in the URL, and ``cancel_next`` is PUT's own."""


@pytest.mark.parametrize(
    ("verb", "args", "accepted"),
    [
        ("schedule", {"id": "a", "every": 60, "bogus": 1}, SCHEDULE_BODY),
        ("modify", {"job": "a", "every": 60, "bogus": 1}, MODIFY_BODY),
    ],
)
def test_an_unknown_key_lists_exactly_the_keys_the_service_accepts(
    verb: str, args: dict, accepted: set[str]
) -> None:
    with pytest.raises(InputInvalid) as refused:
        read_input(verb, args, 0, ENGINE_CLOCK)
    (problem,) = refused.value.problems
    unknown, _, expected = problem.message.partition(": expected ")
    assert unknown == "unknown key 'bogus'"
    listed = re.findall(r"'(\w+)'", expected)
    assert listed == sorted(listed)
    assert set(listed) == accepted


def test_a_misspelt_key_is_told_the_nearest_key_the_service_accepts() -> None:
    with pytest.raises(InputInvalid) as refused:
        read_input("schedule", {"id": "a", "every": 60, "runn": "x"}, 0, ENGINE_CLOCK)
    assert [(p.path, p.message) for p in refused.value.problems] == [
        ("runn", "unknown key 'runn' (did you mean 'run'?)")
    ]


NOW = 1_796_528_844
"""2026-12-06T03:47:24Z"""


def test_a_time_already_past_is_named_by_its_date_not_its_tick() -> None:
    with pytest.raises(InputInvalid) as refused:
        read_input("schedule", {"id": "a", "at": "2020-01-01T00:00:00Z"}, NOW, ENGINE_CLOCK)
    assert [(p.path, p.message) for p in refused.value.problems] == [
        (
            "at",
            "2020-01-01T00:00:00+00:00 is before 2026-12-06T03:47:24+00:00, when this job is "
            "scheduled: it would never run",
        )
    ]
