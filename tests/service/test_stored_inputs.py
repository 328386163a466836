"""Journal rows in a plain form are decoded without the scenario readers, into the very command
the readers build (issue 36: re-reading rows through them was a third of a restart)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cronlapse.service.clock import ENGINE_CLOCK
from cronlapse.service.codec import InputInvalid, read_input
from cronlapse.service.store import JournalRow, read_row
from cronlapse.service.store.memory import MemoryStore
from cronlapse.service.stored_inputs import LAST_NAMED_TICK, NOT_PLAIN, decode_stored
from engine.model.records import OccurrenceState
from engine.scenario.command_reader import CommandReader
from tests.service.test_live import Wall, open_live

TICK = 1_800_000_000

ids = st.one_of(
    st.sampled_from(["etl", "job7", " spaced ", "a,b", "", "x" * 101]),
    st.integers(0, 99),
    st.none(),
)
ticks = st.one_of(
    st.integers(TICK - 10, TICK + 10**6),
    st.sampled_from([0, -1, LAST_NAMED_TICK, LAST_NAMED_TICK + 1, 10**15 + 1, True]),
    st.sampled_from(["+60", "2027-01-01T00:00:00Z", "14:30"]),
)
numbers = st.one_of(st.integers(-3, 3), st.sampled_from([10**9, 2**31, "high", None, 1.5, True]))
job_keys = {
    "id": ids,
    "every": numbers | st.integers(1, 10**6),
    "first": ticks,
    "at": ticks,
    "payload": st.sampled_from(["p", "", 7, None]),
    "run": st.sampled_from(["noop", " ", 3]),
    "priority": numbers,
    "max_attempts": numbers,
    "max_retries": numbers,
    "timeout": numbers,
    "cron": st.just("*/5 * * * *"),
    "catch_up": st.sampled_from(["all", "skip"]),
}


@st.composite
def schedule_args(draw: st.DrawFn) -> dict[str, object]:
    keys = draw(st.sets(st.sampled_from(sorted(set(job_keys) - {"id"})), max_size=4))
    args = {"id": draw(job_keys["id"]) if draw(st.booleans()) else "etl"}
    return args | {key: draw(job_keys[key]) for key in keys}


@st.composite
def other_args(draw: st.DrawFn) -> tuple[str, dict[str, object]]:
    verb = draw(st.sampled_from(["complete", "register", "drain", "pause", "resume", "cancel"]))
    if verb == "complete":
        args = {"job": draw(ids), "scheduled": draw(ticks), "attempt": draw(numbers)}
        args["ok"] = draw(st.sampled_from([True, False, "yes", 1]))
    else:
        args = {"worker" if verb in ("register", "drain") else "job": draw(ids)}
    if draw(st.booleans()):
        args["scheduled" if verb == "cancel" else "extra"] = draw(ticks)
    return verb, args


def read_by_the_readers(verb: str, args: dict[str, object]):
    try:
        return read_input(verb, args, TICK, ENGINE_CLOCK)
    except InputInvalid:
        return None


@settings(max_examples=200, deadline=None)
@given(st.one_of(schedule_args().map(lambda args: ("schedule", args)), other_args()))
def test_a_row_decoded_directly_is_what_the_readers_build(verb_and_args) -> None:
    verb, args = verb_and_args
    direct = decode_stored(verb, args, TICK)
    if direct is not NOT_PLAIN:
        assert direct == read_by_the_readers(verb, args)


@pytest.mark.parametrize(
    ("verb", "args"),
    [
        ("schedule", {"id": "s1", "every": 3600, "first": TICK + 1800}),
        ("schedule", {"id": "s2", "at": TICK, "payload": "p", "run": "backup", "priority": 3}),
        ("schedule", {"id": "s3", "every": 60, "max_retries": 2, "timeout": 30}),
        ("schedule", {"id": "s4"}),
        ("complete", {"job": "s1", "scheduled": TICK, "attempt": 1, "ok": True}),
        ("register", {"worker": "w1"}),
        ("cancel", {"job": "s1"}),
    ],
)
def test_the_common_rows_replay_without_the_scenario_readers(
    verb: str, args: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = read_by_the_readers(verb, args)
    assert expected is not None

    def refused(*_: object) -> None:
        raise AssertionError("a plain row went through the scenario readers")

    monkeypatch.setattr(CommandReader, "command", refused)
    assert read_row(JournalRow(1, TICK, 0, verb, args)) == expected


def test_the_apis_plain_inputs_are_decoded_without_the_scenario_readers_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    live = open_live(MemoryStore(), Wall(), workers=1)

    def refused(*_: object) -> None:
        raise AssertionError("a plain input went through the scenario readers")

    monkeypatch.setattr(CommandReader, "command", refused)
    live.submit("schedule", {"id": "now"})
    (key,) = live.engine.query.record_keys(OccurrenceState.RUNNING)
    live.submit("complete", {"job": "now", "scheduled": key[1], "attempt": 1, "ok": True})
    assert live.engine.query.job_word("now") == "succeeded"
