"""Retry backoff: none, fixed, exponential with a cap, and jitter none/full/equal drawn from the
engine's seeded generator, so the same seed gives the same retry ticks."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.backoff import Backoff, BackoffKind, Jitter
from engine.model.commands import RegisterWorker, ScheduleJob
from engine.model.policies import Policy
from engine.model.records import JobSpec, OccurrenceState
from engine.schedules.kinds import Every, Once

S = OccurrenceState
EXP = BackoffKind.EXPONENTIAL


# ------------------------------------------------------------------------------ the delay formula


@pytest.mark.parametrize(
    ("backoff", "delays"),
    [
        (Backoff(), [0, 0, 0, 0]),
        (Backoff(BackoffKind.NONE, base=7), [0, 0, 0, 0]),
        (Backoff(BackoffKind.FIXED, base=7), [7, 7, 7, 7]),
        (Backoff(BackoffKind.FIXED, base=7, cap=5), [5, 5, 5, 5]),
        # base * 2^(n-1): 3, 6, 12, 24, 48
        (Backoff(EXP, base=3), [3, 6, 12, 24, 48]),
        (Backoff(EXP, base=3, cap=20), [3, 6, 12, 20, 20]),
        (Backoff(EXP, base=1, cap=60), [1, 2, 4, 8, 16, 32, 60, 60]),
    ],
)
def test_delays_without_jitter(backoff: Backoff, delays: list[int]) -> None:
    rng = random.Random(1)
    state = rng.getstate()
    assert [backoff.delay(n, rng) for n in range(1, len(delays) + 1)] == delays
    assert rng.getstate() == state  # no jitter, no draw: the generator is untouched


@given(
    st.sampled_from([BackoffKind.FIXED, EXP]),
    st.integers(0, 50),
    st.none() | st.integers(0, 200),
    st.integers(1, 12),
    st.integers(0, 2**32),
)
def test_jitter_stays_in_range(
    kind: BackoffKind, base: int, cap: int | None, failures: int, seed: int
) -> None:
    plain = Backoff(kind, base, cap).delay(failures, random.Random(seed))
    full = Backoff(kind, base, cap, Jitter.FULL).delay(failures, random.Random(seed))
    equal = Backoff(kind, base, cap, Jitter.EQUAL).delay(failures, random.Random(seed))
    assert 0 <= full <= plain
    assert plain // 2 <= equal <= plain


def test_jitter_draws_from_the_given_generator() -> None:
    # full: uniform over [0, d]; equal: d // 2 + uniform over [0, d - d // 2]. Same seed, same
    # draws.
    backoff_full = Backoff(EXP, base=10, jitter=Jitter.FULL)
    backoff_equal = Backoff(EXP, base=10, jitter=Jitter.EQUAL)
    reference = random.Random(7)
    expected_full = [reference.randint(0, 10 * 2 ** (n - 1)) for n in (1, 2, 3)]
    rng = random.Random(7)
    assert [backoff_full.delay(n, rng) for n in (1, 2, 3)] == expected_full
    reference = random.Random(7)
    expected_equal = [5 + reference.randint(0, 5), 10 + reference.randint(0, 10)]
    rng = random.Random(7)
    assert [backoff_equal.delay(n, rng) for n in (1, 2)] == expected_equal
    # The draws spread over the range (jitter is not a constant).
    rng = random.Random(3)
    assert len({backoff_full.delay(3, rng) for _ in range(200)}) > 10


# ------------------------------------------------------------------------------------ in the engine


def retrying_engine(backoff: Backoff | None, seed: int = 0, policy_backoff: Backoff | None = None):
    engine = Engine(Policy(backoff=policy_backoff or Backoff()), seed=seed)
    assert engine.apply(RegisterWorker("w1")).accepted
    spec = JobSpec(
        "a", Once(0), max_attempts=4, fail_attempts=frozenset({1, 2, 3}), backoff=backoff
    )
    assert engine.apply(ScheduleJob(spec)).accepted
    return engine


def attempt_starts(engine: Engine) -> list[int]:
    return [e.tick for e in engine.log if isinstance(e, ev.AttemptStarted)]


def test_exponential_backoff_with_cap_gives_hand_computed_retry_ticks() -> None:
    # Duration 1; base 2, cap 5. Attempt 1 runs [0, 1), fails: delay 2 -> eligible 3.
    # Attempt 2 [3, 4) fails: delay 4 -> 8. Attempt 3 [8, 9) fails: delay min(8, 5) = 5 -> 14.
    # Attempt 4 [14, 15) succeeds.
    engine = retrying_engine(Backoff(EXP, base=2, cap=5))
    engine.advance(2)
    occurrence = engine.query.record("a", 0)
    assert (occurrence.state, occurrence.eligible_at, occurrence.retry_delay) == (
        S.RETRY_PENDING,
        3,
        2,
    )
    engine.advance(20)
    retries = [e for e in engine.log if isinstance(e, ev.RetryScheduled)]
    assert retries == [
        ev.RetryScheduled(1, "a", 0, 2, 3, 2),
        ev.RetryScheduled(4, "a", 0, 3, 8, 4),
        ev.RetryScheduled(9, "a", 0, 4, 14, 5),
    ]
    assert attempt_starts(engine) == [0, 3, 8, 14]
    assert occurrence.state is S.SUCCEEDED
    assert (occurrence.eligible_at, occurrence.retry_delay) == (None, None)  # cleared on start


def test_fixed_backoff() -> None:
    # Fixed 4: eligible at 1 + 4 = 5, 6 + 4 = 10, 11 + 4 = 15.
    engine = retrying_engine(Backoff(BackoffKind.FIXED, base=4))
    engine.advance(20)
    assert attempt_starts(engine) == [0, 5, 10, 15]


def test_no_backoff_retries_in_the_same_tick() -> None:
    engine = retrying_engine(Backoff())
    engine.advance(10)
    assert attempt_starts(engine) == [0, 1, 2, 3]
    assert [e.delay for e in engine.log if isinstance(e, ev.RetryScheduled)] == [0, 0, 0]


def test_the_job_backoff_overrides_the_policy_one() -> None:
    fixed = Backoff(BackoffKind.FIXED, base=4)
    assert attempt_starts(_run(retrying_engine(None, policy_backoff=fixed))) == [0, 5, 10, 15]
    overridden = retrying_engine(Backoff(BackoffKind.FIXED, base=1), policy_backoff=fixed)
    assert attempt_starts(_run(overridden)) == [0, 2, 4, 6]


def _run(engine: Engine) -> Engine:
    engine.advance(30)
    return engine


def test_full_jitter_draws_from_the_engine_seed() -> None:
    # Exponential base 8, full jitter, seed 42: the delays are the engine generator's first three
    # draws randint(0, 8), randint(0, 16), randint(0, 32) (nothing else draws: no failure rate).
    reference = random.Random(42)
    delays = [reference.randint(0, 8), reference.randint(0, 16), reference.randint(0, 32)]
    engine = _run(retrying_engine(Backoff(EXP, base=8, jitter=Jitter.FULL), seed=42))
    assert [e.delay for e in engine.log if isinstance(e, ev.RetryScheduled)] == delays
    starts = [0]
    for delay in delays:
        starts.append(starts[-1] + 1 + delay)
    assert attempt_starts(engine) == starts


def jittery_fleet(seed: int) -> Engine:
    """Five recurring jobs failing at random with equal-jitter exponential backoff."""
    engine = Engine(
        Policy(backoff=Backoff(EXP, base=3, cap=40, jitter=Jitter.EQUAL)),
        seed=seed,
    )
    for n in range(3):
        assert engine.apply(RegisterWorker(f"w{n}")).accepted
    for n in range(5):
        spec = JobSpec(f"j{n}", Every(n, 10 + n), max_attempts=4, failure_rate=0.5, duration=2)
        assert engine.apply(ScheduleJob(spec)).accepted
    engine.advance(300)
    return engine


def retry_ticks(engine: Engine) -> list[tuple[str, int, int, int]]:
    return [
        (e.job_id, e.scheduled, e.next_attempt, e.eligible_at)
        for e in engine.log
        if isinstance(e, ev.RetryScheduled)
    ]


def test_same_seed_same_retry_ticks_different_seeds_differ() -> None:
    first = jittery_fleet(11)
    assert retry_ticks(first)  # there were retries
    assert retry_ticks(jittery_fleet(11)) == retry_ticks(first)
    assert list(jittery_fleet(11).log) == list(first.log)
    assert len({tuple(retry_ticks(jittery_fleet(seed))) for seed in range(6)}) > 1
    assert violations(first) == []


def test_retry_pending_rows_show_their_retry_tick() -> None:
    # Every RETRY_PENDING occurrence carries eligible_at (its retry tick) and the delay that set
    # it, both in the record and in the RetryScheduled event that put it there. (A row whose
    # retry tick has passed waits for a worker.)
    for seed in range(20):
        engine = jittery_fleet(seed)
        pending = engine.query.runs(state=S.RETRY_PENDING, limit=100).items
        if pending:
            break
    assert pending, "no seed left an occurrence in backoff at tick 300"
    for row in pending:
        record = row.record
        assert record is not None and record.eligible_at is not None
        last = [
            e
            for e in engine.log
            if isinstance(e, ev.RetryScheduled) and (e.job_id, e.scheduled) == row.record.key
        ][-1]
        assert (last.eligible_at, last.delay) == (record.eligible_at, record.retry_delay)
        assert last.tick + last.delay == last.eligible_at
        assert engine.query.run(row.job_id, row.scheduled) == row
