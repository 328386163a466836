"""Random programs of every engine command: none may crash, and a rejected one changes nothing.

A program is a list of abstract steps, resolved against the engine as it runs (one of its jobs or
an unknown id, a tick relative to now, "the k-th running attempt" with a skew on its number), so
that hypothesis shrinks a failure to a short program. Every command of ``engine/model/commands.py``
is drawn, with values on both sides of each rule: one-time, interval and calendar schedules, now,
later, and now and then in the past; modify with any mix of fields, bad values and fields that
cannot be modified; reports for the running attempt and for wrong ones; time going backwards.
The policy is drawn too (fifo, priority or aging order; automatic or manual dispatch; simulated
or reported completion). Each program uses only some kinds of step (swarm testing), so that long
chains of a few kinds, which reach deep states, are common.

After each command: no exception escaped, the result has a known outcome, and a rejected command
left the state exactly as it was (every field of every job, occurrence, worker and notification,
the indexes, the heaps, the event log's length). At the end, ``violations()`` is empty.

Measured: it finds the modify crash of issue 11 (a schedule change after a waiting run's old
definition outlived the job's last run) in about one run in three at this size, and in a
1,500-example run; 6,000 examples on the fixed engine found nothing.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model.backoff import Backoff, BackoffKind
from engine.model.commands import (
    Advance,
    BackfillJob,
    CancelOccurrence,
    Command,
    Complete,
    DeleteJob,
    Dispatch,
    DrainWorker,
    ModifyJob,
    Outcome,
    PauseJob,
    RegisterWorker,
    ResumeJob,
    ScheduleJob,
    ScriptFailure,
    WorkerDown,
    WorkerUp,
)
from engine.model.policies import CompletionMode, DispatchMode, DispatchOrder, Policy
from engine.model.records import (
    BackfillOrder,
    CatchUp,
    Channel,
    JobSpec,
    NotifyOn,
    OccurrenceState,
    Subscription,
)
from engine.model.values import is_value
from engine.schedules.calendar import CronSchedule
from engine.schedules.clock import Clock
from engine.schedules.kinds import Every, Once, Schedule

S = OccurrenceState
JOB_IDS = ("a", "b", "c", "d")
WORKER_IDS = ("w1", "w2", "w3")
CLOCK = Clock(datetime(2026, 1, 1, tzinfo=UTC), ZoneInfo("UTC"), 60)
"""One tick a minute, so calendar schedules fire every few ticks."""
CRONS = ("* * * * *", "*/7 * * * *", "0 * * * *", "@daily")

# ----------------------------------------------------------------------------------- strategies

policies = st.builds(
    lambda order, dispatch, completion: Policy(
        order=order,
        aging_step=3 if order is DispatchOrder.AGING else None,
        dispatch=dispatch,
        completion=completion,
    ),
    st.sampled_from(DispatchOrder),
    st.sampled_from(DispatchMode),
    st.sampled_from(CompletionMode),
)

offsets = st.integers(-8, 30)
"""A tick relative to now: negative is in the past."""

schedules = st.one_of(
    st.tuples(st.just("once"), st.sampled_from((0, 0, 1, 2, 3, 5, 10, 30))),
    st.tuples(st.just("every"), offsets, st.integers(1, 12)),
    st.tuples(st.just("cron"), st.sampled_from(CRONS)),
)
"""Schedules with runs to come (an interval or calendar one may have begun in the past)."""
job_ids = st.sampled_from(JOB_IDS)
targets = st.integers(0, 7)
"""The job a command names: one of the engine's jobs, deleted ones included (index 7: unknown)."""

EXTRAS = (
    {},
    {},
    {},
    {"fail_attempts": frozenset({1})},
    {"fail_attempts": frozenset({1, 2}), "backoff": Backoff(BackoffKind.FIXED, 2)},
    {"hang_attempts": frozenset({1}), "timeout": 2},
    {"hang_attempts": frozenset({1})},
    {"failure_rate": 0.5, "catch_up": CatchUp.ALL},
    {"failure_rate": 1.0, "catch_up": CatchUp.LATEST},
    {"notify": (Subscription(frozenset(NotifyOn), Channel.EMAIL, "ops@example.com"),)},
    {"depends_on": ("a",)},
    {"depends_on": ("b", "c")},
    {"start_deadline": 2},
    {"start_deadline": 0, "catch_up": CatchUp.ALL},
    {"run_timeout": 3, "fail_attempts": frozenset({1}), "max_attempts": 3},
    {"run_timeout": 1, "hang_attempts": frozenset({1})},
)
"""The rarer parts of a definition, a few combinations of them."""

SPOILERS = (
    ("schedule", ("once", -3)),
    ("max_attempts", 0),
    ("duration", 0),
    ("timeout", 0),
    ("failure_rate", 1.5),
    ("depends_on", ("ghost",)),
)
"""One bad value each: a rule the command must enforce by refusing, changing nothing."""


def some(values: tuple, ratio: int = 6) -> st.SearchStrategy:
    """Mostly None (``ratio`` to one against each value), else one of ``values``."""
    return st.sampled_from((None,) * ratio * len(values) + values)


def spec_fields(
    base: dict[str, object], extras: dict[str, object], spoiler: tuple[str, object] | None
) -> dict[str, object]:
    fields = {**base, **extras}
    return fields if spoiler is None else {**fields, spoiler[0]: spoiler[1]}


timeouts = st.sampled_from((None, None, None, 1, 3, 6))
specs = st.builds(
    spec_fields,
    st.fixed_dictionaries(
        {
            "job_id": job_ids,
            "schedule": schedules,
            "max_attempts": st.integers(1, 3),
            "priority": st.integers(-1, 3),
            "duration": st.integers(1, 6),
            "timeout": timeouts,
        }
    ),
    st.sampled_from(EXTRAS),
    some(SPOILERS),
)

changes = st.builds(
    spec_fields,
    st.fixed_dictionaries(
        {},
        optional={
            "schedule": schedules,
            "timeout": timeouts,
            "priority": st.integers(-1, 3),
            "duration": st.integers(1, 6),
            "max_attempts": st.integers(1, 3),
            "payload": st.sampled_from((None, "v2")),
            "catch_up": st.sampled_from(CatchUp),
        },
    ),
    st.just({}),
    some((*SPOILERS, ("at", 20), ("every", 5))),
)
"""Any mix of modifiable fields; now and then a bad value or a field that cannot be modified."""

STEPS = {
    "schedule": st.tuples(st.just("schedule"), specs),
    "modify": st.tuples(st.just("modify"), targets, changes),
    "advance": st.tuples(st.just("advance"), st.integers(-2, 6) | st.integers(0, 100)),
    "register": st.tuples(st.just("register"), st.sampled_from(WORKER_IDS)),
    "cancel": st.tuples(st.just("cancel"), targets, st.none() | offsets),
    "delete": st.tuples(st.just("delete"), targets),
    "pause": st.tuples(st.just("pause"), targets),
    "resume": st.tuples(st.just("resume"), targets, st.none() | st.sampled_from(CatchUp)),
    "fail": st.tuples(st.just("fail"), targets, st.integers(0, 3)),
    "worker": st.tuples(
        st.sampled_from(("down", "up", "drain")), st.sampled_from((*WORKER_IDS, "ghost"))
    ),
    "complete": st.tuples(
        st.just("complete"),
        st.integers(0, 3),
        st.sampled_from((0, 0, 0, -1, 1, 2)),
        st.booleans(),
    ),
    "dispatch": st.tuples(st.just("dispatch")),
    "backfill": st.tuples(
        st.just("backfill"),
        targets,
        st.integers(-40, 2),
        st.integers(-1, 40),
        st.sampled_from(BackfillOrder),
        st.sampled_from((50, 50, 2)),
    ),
}
"""Every command, as an abstract step."""


def program_of(kinds: frozenset[str]) -> st.SearchStrategy[list[tuple]]:
    # Jobs and time are what the other commands act on: every program has them.
    chosen = sorted(kinds | {"schedule", "advance"})
    return st.lists(st.one_of(*(STEPS[kind] for kind in chosen)), min_size=10, max_size=30)


programs = st.frozensets(st.sampled_from(sorted(STEPS)), min_size=1).flatmap(program_of)
"""Swarm testing: each program uses only some kinds of step, so that long runs of a few kinds
(the chains that reach deep states) are common rather than drowned out by the others."""

fuzzed_programs = given(
    policy=policies,
    seed=st.integers(0, 2**16),
    workers=st.sampled_from((1, 1, 0)),
    jobs=st.lists(specs, max_size=3),
    program=programs,
)
"""What a fuzz test plays: a policy, a seed, no worker or one, up to three jobs and a program.
The fuzz tests of the archive and of the streaming checks play the same."""


def kept_and_archiving(policy: Policy, seed: int, workers: int) -> tuple[Engine, Engine]:
    """Two engines a fuzzed program plays side by side: one that keeps its finished runs and
    one that archives them, each with the program's workers registered."""
    kept, archiving = Engine(policy, seed=seed), Engine(policy, seed=seed, archive=True)
    for worker_id in WORKER_IDS[:workers]:
        kept.apply(RegisterWorker(worker_id))
        archiving.apply(RegisterWorker(worker_id))
    return kept, archiving


# -------------------------------------------------------------------------------- resolving


def schedule_of(template: tuple, now: int) -> Schedule:
    match template:
        case ("once", offset):
            return Once(max(0, now + offset))
        case ("every", offset, interval):
            return Every(max(0, now + offset), interval)
        case ("cron", expression):
            return CronSchedule(expression, CLOCK)
    raise AssertionError(template)


def target(engine: Engine, index: int) -> str:
    ids = sorted(engine.query.jobs())
    return "ghost" if index == 7 or not ids else ids[index % len(ids)]


def command_of(step: tuple, engine: Engine) -> Command:
    """The concrete command a step stands for in the engine's current state."""
    now = engine.now
    match step:
        case ("register", worker_id):
            return RegisterWorker(worker_id)
        case ("schedule", fields):
            schedule = schedule_of(fields["schedule"], now)
            return ScheduleJob(JobSpec(**{**fields, "schedule": schedule}))
        case ("modify", index, wanted):
            if "schedule" in wanted:
                wanted = {**wanted, "schedule": schedule_of(wanted["schedule"], now)}
            return ModifyJob.of(target(engine, index), **wanted)
        case ("cancel", index, offset):
            job_id = target(engine, index)
            job = engine.query.job(job_id)
            if offset is None:
                return CancelOccurrence(job_id)
            tick = max(0, now + offset)
            fire = job.spec.schedule.first_at_or_after(tick) if job is not None else None
            return CancelOccurrence(job_id, tick if fire is None else fire)
        case ("delete", index):
            return DeleteJob(target(engine, index))
        case ("pause", index):
            return PauseJob(target(engine, index))
        case ("resume", index, catch_up):
            return ResumeJob(target(engine, index), catch_up)
        case ("fail", index, attempt):
            return ScriptFailure(target(engine, index), attempt)
        case ("down" | "up" | "drain" as action, worker_id):
            return {"down": WorkerDown, "up": WorkerUp, "drain": DrainWorker}[action](worker_id)
        case ("complete", index, skew, succeeded):
            return complete_of(engine, index, skew, succeeded)
        case ("dispatch",):
            return Dispatch()
        case ("backfill", index, back, length, order, max_runs):
            first = max(0, now + back)
            last = first + length if back > 0 or length < 0 else min(now, first + length)
            return BackfillJob(target(engine, index), first, last, order, max_runs)
        case ("advance", step_by):
            return Advance(now + step_by)
    raise AssertionError(step)


def complete_of(engine: Engine, index: int, skew: int, succeeded: bool) -> Complete:
    """A report for the index-th running attempt (its number skewed), or for any occurrence."""
    running = sorted(engine.query.record_keys(S.RUNNING), key=lambda k: (k[1], k[0]))
    if running:
        key = running[index % len(running)]
        attempt = engine.query.records()[key].running_attempt
        assert attempt is not None
        return Complete(*key, attempt.number + skew, succeeded)
    others = sorted(engine.query.records(), key=lambda k: (k[1], k[0]))
    if others:
        key = others[index % len(others)]
        return Complete(*key, len(engine.query.records()[key].attempts) + skew, succeeded)
    return Complete("a", 0, 1, succeeded)


# ------------------------------------------------------------------------------ fingerprint


_FIELDS: dict[type, tuple[str, ...]] = {}


def freeze(value: object) -> object:
    """A comparable copy of a mutable record: every field that takes part in equality, recursively.
    Frozen values (definitions, schedules, ready entries) are kept as they are."""
    kind = type(value)
    if kind is dict:
        return tuple((key, freeze(item)) for key, item in value.items())  # type: ignore[union-attr]
    if kind is list or kind is tuple:
        return tuple(freeze(item) for item in value)  # type: ignore[union-attr]
    names = _FIELDS.get(kind)
    if names is None:
        mutable = dataclasses.is_dataclass(kind) and not (
            is_value(kind) or kind.__dataclass_params__.frozen  # type: ignore[attr-defined]
        )
        fields = dataclasses.fields(kind) if mutable else ()
        names = _FIELDS[kind] = tuple(f.name for f in fields if f.compare)
    if not names:
        return value
    return (kind.__name__, *(freeze(getattr(value, name)) for name in names))


def fingerprint(engine: Engine) -> tuple:
    """Everything a command could change."""
    return (
        engine.now,
        len(engine.log),
        engine.query.created_through(),
        engine.query.dispatches(),
        engine._rng.getstate(),
        {job_id: (freeze(job), freeze(job.front)) for job_id, job in engine.query.jobs().items()},
        {key: freeze(occurrence) for key, occurrence in engine.query.records().items()},
        {worker_id: freeze(worker) for worker_id, worker in engine.query.workers().items()},
        {key: freeze(notification) for key, notification in engine.query.notifications().items()},
        {state: tuple(engine.query.record_keys(state)) for state in OccurrenceState},
        engine._timers.heap.snapshot(),
        engine._timers.ends.snapshot(),
        engine._cursors.due.snapshot(),
        engine._workforce.idle.snapshot(),
    )


# ------------------------------------------------------------------------------------- test


@settings(
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@fuzzed_programs
@pytest.mark.integration
def test_no_program_crashes_and_a_rejected_command_changes_nothing(
    policy: Policy, seed: int, workers: int, jobs: list[dict], program: list[tuple]
) -> None:
    engine = Engine(policy, seed=seed)
    for worker_id in WORKER_IDS[:workers]:
        assert engine.apply(RegisterWorker(worker_id)).accepted
    for step in [("schedule", fields) for fields in jobs] + program:
        command = command_of(step, engine)
        before = fingerprint(engine)
        result = engine.apply(command)
        assert isinstance(result.outcome, Outcome), command
        if not result.accepted:
            assert result.message, command
            assert fingerprint(engine) == before, f"rejected {command} changed the engine"
    assert violations(engine) == []
