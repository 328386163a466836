"""The "Attempts" section of a why-answer: each attempt's worker, start and end, or that it runs."""

from __future__ import annotations

import pytest

from cronlapse.analyses.explain import explain_run
from cronlapse.analyses.explain.attempts import attempts
from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.lines import Line, Tag
from engine.scenario import Scenario
from tests.engine.explain_helpers import SCENARIOS, bundled, history_at, inline, why


def _rows(scenario: Scenario, job_id: str, scheduled: int, at: int) -> list[str]:
    """The lines of the why-answer's Attempts section."""
    answer = explain_run(history_at(scenario, at), job_id, scheduled, scenario.clock)
    (section,) = [part for part in answer.children if part.text == "Attempts"]
    return [row.text for row in section.children]


def test_each_attempt_of_a_retried_run_names_its_worker_its_span_and_how_it_ended() -> None:
    assert _rows(bundled("retry-storm-jitter.yaml"), "client-02", 0, at=60) == [
        "attempt 1 on w02 from tick 0: failed at tick 1, after 1 tick",
        "attempt 2 on w01 from tick 3: failed at tick 4, after 1 tick",
        "attempt 3 on w01 from tick 5: failed at tick 6, after 1 tick",
        "attempt 4 on w01 from tick 11: succeeded at tick 12, after 1 tick",
    ]


def test_a_running_attempt_says_where_it_runs_and_for_how_long_so_far() -> None:
    assert _rows(bundled("worker-crash.yaml"), "render", 0, at=40) == [
        "attempt 1 on w-a from tick 0: lost at tick 30, after 30 ticks",
        "attempt 2 on w-b from tick 30: running, 10 ticks so far",
    ]


def test_the_section_comes_after_the_time_so_far_and_before_the_retries() -> None:
    text = why(bundled("retry-storm-jitter.yaml"), "client-02", 0, at=60)
    assert text.index("Time so far") < text.index("Attempts") < text.index("Retries")


def test_an_attempt_a_newer_run_took_the_place_of_is_terminated() -> None:
    assert _rows(bundled("semantics/overlap-kubernetes.yaml"), "replace", 0, at=40) == [
        "attempt 1 on w3 from tick 0: terminated at tick 10, after 10 ticks"
    ]


def test_spans_read_in_time_when_the_scenario_has_a_clock() -> None:
    assert _rows(bundled("demo.yaml"), "svc-1193", 1200, at=1201) == [
        "attempt 1 on w-06 from tick 1200 (Mon 2026-03-09 20:00 +01:00): running, 1 tick (1m) "
        "so far"
    ]


def test_a_run_that_never_started_has_no_attempts_section() -> None:
    scenario = inline(
        "scenario: one worker\nclock: {until: 9}\nworkers: [w1]\n"
        "jobs:\n  - {id: long, duration: 20}\n  - {id: waits, duration: 1}\n"
    )
    text = why(scenario, "waits", 0, at=5)
    assert "QUEUED" in text.splitlines()[0]
    assert "Attempts" not in text


FAILED = {"failed", "timed out", "lost", "terminated"}


PLAYED_TO_AN_END = sorted(
    str(path.relative_to(SCENARIOS))
    for path in [*SCENARIOS.glob("*.yaml"), *SCENARIOS.glob("semantics/*.yaml")]
    if path.name != "demo.yaml" and bundled(str(path.relative_to(SCENARIOS))).until is not None
)
"""The bundled scenarios but the demo (its 77,000 runs would take minutes here; the tests above
read it) and the seed 000 examples, which are calls at given ticks with no end to play to."""


@pytest.mark.parametrize("name", PLAYED_TO_AN_END)
def test_the_section_agrees_with_the_runs_records_in_every_bundled_scenario(name: str) -> None:
    """Built from the log, checked against the records: one row per attempt, in order, on the
    attempt's worker, ended as the record says (or running), warned about when it did not
    succeed."""
    scenario = bundled(name)
    history = history_at(scenario, scenario.until)
    context = Context(history.engine, scenario.clock)
    for (job_id, scheduled), record in history.engine.query.records().items():
        section = attempts(context, job_id, scheduled)
        if not record.attempts:
            assert section is None
            continue
        assert isinstance(section, Line)
        assert len(section.children) == len(record.attempts)
        for row, attempt in zip(section.children, record.attempts, strict=True):
            assert row.text.startswith(
                f"attempt {attempt.number} on {attempt.worker_id} from "
                f"{context.at(attempt.started)}: "
            )
            outcome = row.text.split(": ", 1)[1].split(" at ")[0].split(",")[0]
            expected = "running" if attempt.ended is None else _word(attempt.outcome.value)
            assert outcome == expected, row.text
            assert (row.tag is Tag.WARN) == (outcome in FAILED)


def _word(outcome: str) -> str:
    return outcome.lower().replace("_", " ")
