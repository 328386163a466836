"""Retries, faults, cancellations and calendar runs, each answered from the engine's events."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cronlapse.analyses.explain.lines import Line, plain
from cronlapse.analyses.explain.retry import formula
from engine.model.backoff import Backoff, BackoffKind, Jitter
from tests.engine.explain_helpers import bundled, inline, why


def _texts(lines: list[Line]) -> list[str]:
    return [item.text for item in lines]


def test_a_retry_shows_the_exponential_formula_the_cap_and_the_full_jitter_draw() -> None:
    text = why(bundled("retry-storm-jitter.yaml"), "client-03", 0, at=40)
    assert "Retries (the policy's backoff: exponential, base 2, cap 60, jitter full)" in text
    assert "exponential: base 2 x 2^(attempt 3 - 1) = 8" in text
    assert "full jitter: a draw in [0, 8] from the seeded generator: 5" in text
    assert "attempt 4 eligible at tick 9" in text


def test_equal_jitter_splits_the_delay_into_the_fixed_half_and_the_draw() -> None:
    backoff = Backoff(BackoffKind.EXPONENTIAL, base=10, cap=30, jitter=Jitter.EQUAL)
    lines = _texts(formula(backoff, failed=3, drawn=22))
    assert lines == [
        "exponential: base 10 x 2^(attempt 3 - 1) = 40",
        "cap 30: 30 (capped)",
        "equal jitter: 15 + a draw in [0, 15] from the seeded generator (7) = 22",
        "delay: 22 ticks",
    ]


@given(
    kind=st.sampled_from([BackoffKind.FIXED, BackoffKind.EXPONENTIAL]),
    base=st.integers(1, 50),
    cap=st.none() | st.integers(1, 100),
    jitter=st.sampled_from(list(Jitter)),
    failed=st.integers(1, 8),
    seed=st.integers(0, 2**32),
)
def test_the_formula_ends_at_the_delay_the_engine_drew(
    kind: BackoffKind, base: int, cap: int | None, jitter: Jitter, failed: int, seed: int
) -> None:
    import random

    backoff = Backoff(kind, base, cap, jitter)
    drawn = backoff.delay(failed, random.Random(seed))
    lines = _texts(formula(backoff, failed, drawn))
    assert lines[-1] == f"delay: {drawn} tick{'' if drawn == 1 else 's'}"
    assert not any("recorded" in item for item in lines)


def test_a_lost_attempt_names_the_worker_that_went_down_and_what_followed() -> None:
    text = why(bundled("worker-crash.yaml"), "render", 0, at=100)
    assert "attempt 1 was lost at tick 30: worker w-a went down" in text
    assert "then: attempt 2 started on w-b at tick 30" in text
    assert "a lost attempt retries at once: no backoff, and it does not count" in text


def test_a_timed_out_attempt_names_the_limit_and_what_followed() -> None:
    text = why(bundled("stuck-job-timeout.yaml"), "sync-ledger", 0, at=12)
    assert "limit 5 ticks, reaped at 0 + 5" in text
    assert "scripted to hang" in text
    assert "then: attempt 2 started on reviewer-demo at tick 8" in text


CHAIN = """
scenario: chain
clock: {until: 20}
workers: [w1]
jobs:
  - {id: root, duration: 2, fail: [1]}
  - {id: middle, duration: 1, depends_on: [root]}
  - {id: leaf, duration: 1, depends_on: [middle]}
"""


def test_a_cascade_is_a_tree_from_the_root_cause_to_the_run() -> None:
    text = why(inline(CHAIN), "leaf", 0, at=5)
    assert "Cancelled by a cascade at tick 2: root can never succeed" in text
    root = text.index("root: run @0 failed for good at tick 2 after 1 attempt(s)")
    middle = text.index("middle: cancelled (depends on root)")
    leaf = text.index("leaf: this run, cancelled (depends on middle)")
    assert root < middle < leaf
    assert "waiting for a dependency: 2 ticks" in text


def test_a_user_cancel_says_so() -> None:
    scenario = inline(
        "scenario: c\nclock: {until: 9}\nworkers: [w1]\n"
        "jobs: [{id: a, at: 5}]\ntimeline:\n  - {at: 2, cancel: {job: a, scheduled: 5}}\n"
    )
    assert "by a cancel command at tick 2" in why(scenario, "a", 5, at=9)


def test_the_spring_gap_moves_a_fixed_time_run_to_the_jump() -> None:
    text = why(bundled("nightly-etl-dst.yaml"), "extract", 1560, at=4000)
    assert (
        "DST gap: 02:30 on Sun 2026-03-29 does not exist (the clocks jump from 02:00 to 03:00)"
        in text
    )
    assert "this run moved to 03:00 +02:00" in text
    assert "tick 4410 (Tue 2026-03-31 02:30 +02:00)" in text


def test_a_run_at_its_own_time_on_the_gap_night_was_not_moved() -> None:
    text = why(bundled("nightly-etl-dst.yaml"), "transform", 1560, at=4000)
    assert "no daylight-saving change moved this run" in text


FALL_BACK = """
scenario: fall back
clock: {epoch: "2026-10-25T00:00:00", timezone: Europe/Berlin, tick: 60, until: 300}
workers: [w1]
jobs:
  - {id: nightly, daily: "02:30"}
  - {id: often, cron: "*/30 * * * *"}
"""


@pytest.mark.parametrize(
    ("job", "scheduled", "expected"),
    [
        ("nightly", 150, "a fixed-time job runs in the first pass only: this run, at +02:00"),
        ("often", 150, "runs in both passes: this is the first pass (02:30 +02:00)"),
        ("often", 210, "runs in both passes: this is the second pass (02:30 +01:00)"),
    ],
)
def test_the_fall_back_fold_says_which_pass_a_run_is(
    job: str, scheduled: int, expected: str
) -> None:
    text = why(inline(FALL_BACK), job, scheduled, at=300)
    assert "DST fold: 02:30 happens twice on Sun 2026-10-25 (+02:00 then +01:00)" in text
    assert expected in text


def test_a_tick_that_is_not_a_run_says_when_the_job_fires() -> None:
    text = why(bundled("nightly-etl-dst.yaml"), "extract", 151, at=200)
    assert text.startswith("extract has no run at tick 151")
    assert "its next fire time from there: tick 1560" in text


def test_plain_text_draws_the_tree_with_guides() -> None:
    tree = Line("root", (Line("a", (Line("a1"),)), Line("b")))
    assert plain(tree) == "root\n├─ a\n│  └─ a1\n└─ b\n"
