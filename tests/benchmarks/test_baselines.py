"""The yardsticks give the engine's answers, call for call, so that the ratios compare like with
like: the two seed 000 schedulers against ``CronJobScheduler``, the event-driven seed 001 session
against ``execute_script`` (output lines and rejected line numbers).

The call generators are the engine tests' own (tests/engine/test_cron_job_scheduler_properties.py
and script_strategies.py), plus the benchmarks' workloads at a small scale.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from script_strategies import SeededChooser, dependency_graphs, random_script, scripts
from test_cron_job_scheduler_properties import (
    CronSchedulerMachine,
    intervals,
    job_ids,
    outcome,
    parse_assignment,
    retries,
    time_steps,
    worker_ids,
)

from benchmarks import cron_job_scheduler as cron_benchmark
from benchmarks import script_protocol as script_benchmark
from benchmarks.baselines.events_001 import execute
from benchmarks.baselines.heap_000 import HeapScheduler
from benchmarks.baselines.lazy_000 import LazyScheduler
from engine import CronJobScheduler
from engine.facades.script import execute_script

pytestmark = pytest.mark.integration

YARDSTICKS_000 = [HeapScheduler, LazyScheduler]

# ------------------------------------------------------------------------------- seed 000

operations = st.lists(
    st.one_of(
        st.tuples(st.just("register"), worker_ids),
        st.tuples(st.just("schedule"), job_ids, st.integers(0, 10), intervals, retries, time_steps),
        st.tuples(st.just("schedule_any"), st.integers(0, 40), time_steps),
        st.tuples(st.just("dispatch"), time_steps),
        st.tuples(st.just("complete"), st.integers(0, 50), st.booleans(), st.integers(-1, 1)),
        st.tuples(st.just("stale"), st.integers(0, 50), st.integers(0, 12), st.booleans()),
        st.tuples(st.just("status"), st.integers(0, 50), st.integers(0, 12), st.integers(-1, 1)),
        st.tuples(st.just("status_any"), job_ids, st.integers(-1, 40) | st.just(10**12 + 1)),
        st.tuples(st.just("back"), st.sampled_from(["dispatch", "status", "complete"])),
        st.tuples(st.just("wrong_type"), st.sampled_from(["dispatch", "complete", "schedule"])),
        st.tuples(st.just("out_of_range"), st.sampled_from(["dispatch", "status", "complete"])),
    ),
    max_size=60,
)


def elsewhere_in_time(kind: str, time: int) -> tuple:
    """A call at ``time``, which is before the scheduler's time or outside 0..10**12."""
    return {
        "dispatch": ("dispatch_jobs", time),
        "status": ("get_job_status", "a", 0, time),
        "complete": ("complete_job", "a", 0, 1, True, time),
    }[kind]


def run_000(scheduler, ops) -> list:
    """Apply ``ops``; every answer or the type of exception raised, in order."""
    now = 0
    jobs: list[tuple[str, int, int]] = []
    running: list[tuple[str, int, int]] = []
    started: list[tuple[str, int, int]] = []
    answers = []

    def call(method, *args):
        answers.append(outcome(getattr(scheduler, method), *args))
        return answers[-1]

    for op in ops:
        kind = op[0]
        if kind == "register":
            call("register_worker", op[1])
        elif kind in ("schedule", "schedule_any"):
            now += op[-1]
            if kind == "schedule":
                args = (op[1], now + op[2], op[3], op[4], now)
            else:
                args = (f"j{op[1]}", now + op[1] % 4, op[1] % 5, op[1] % 3, now)
            if call("schedule_job", *args) == ("ok", True):
                jobs.append((args[0], args[1], args[2]))
        elif kind == "dispatch":
            now += op[1]
            answer = call("dispatch_jobs", now)
            if answer[0] == "ok":
                running.extend(parse_assignment(text)[:3] for text in answer[1])
        elif kind == "complete" and running:
            job_id, at, attempt = running.pop(op[1] % len(running))
            started.append((job_id, at, attempt))
            if call("complete_job", job_id, at, attempt + op[3], op[2], now) != ("ok", True):
                running.append((job_id, at, attempt))
        elif kind == "stale" and started:
            job_id, at, _ = started[op[1] % len(started)]
            call("complete_job", job_id, at, op[2], op[3], now)
        elif kind == "status" and jobs:
            job_id, first, interval = jobs[op[1] % len(jobs)]
            call("get_job_status", job_id, max(0, first + op[2] * interval + op[3]), now)
        elif kind == "status_any":
            call("get_job_status", op[1], op[2], now)
        elif kind == "back" and now:
            call(*elsewhere_in_time(op[1], now - 1))
        elif kind == "out_of_range":
            call(*elsewhere_in_time(op[1], -1 if now % 2 else 10**12 + 1))
        elif kind == "wrong_type":
            bad = {
                "dispatch": ("dispatch_jobs", "1"),
                "complete": ("complete_job", "a", 0, 1, 1, now),
                "schedule": ("schedule_job", "a", now, 0, True, now),
            }
            call(*bad[op[1]])
    return answers


@pytest.mark.parametrize("yardstick", YARDSTICKS_000, ids=lambda c: c.__name__)
@settings(max_examples=150)
@given(ops=operations)
def test_seed_000_yardsticks_answer_like_the_engine(yardstick, ops) -> None:
    assert run_000(yardstick(), ops) == run_000(CronJobScheduler(), ops)


def test_seed_000_yardsticks_accept_the_ids_the_engine_accepts() -> None:
    """Every ASCII id of up to two characters (the yardsticks check ASCII ids their own fast
    way) and the lengths around the limit."""
    ascii_chars = [chr(code) for code in range(128)]
    ids = ["", *ascii_chars, *(a + b for a in ascii_chars for b in ascii_chars)]
    ids += ["a" * 100, "a" * 101, " " * 100, "\x1c\x1fa", "a\x1c\x1f"]
    engine = CronJobScheduler()
    expected = [engine.register_worker(worker_id) for worker_id in ids]
    for yardstick in YARDSTICKS_000:
        scheduler = yardstick()
        assert [scheduler.register_worker(worker_id) for worker_id in ids] == expected


class HeapAgainstEngine(CronSchedulerMachine):
    """The engine tests' state machine (invariants, drain, determinism) with the heap yardstick
    where the reference scheduler was."""

    def __init__(self) -> None:
        super().__init__()
        self.ref = HeapScheduler()


class LazyAgainstEngine(CronSchedulerMachine):
    def __init__(self) -> None:
        super().__init__()
        self.ref = LazyScheduler()


MACHINE_SETTINGS = settings(
    max_examples=40,
    stateful_step_count=40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
HeapAgainstEngine.TestCase.settings = MACHINE_SETTINGS
LazyAgainstEngine.TestCase.settings = MACHINE_SETTINGS
TestHeapAgainstEngine = HeapAgainstEngine.TestCase
TestLazyAgainstEngine = LazyAgainstEngine.TestCase


@pytest.mark.parametrize("name", sorted(cron_benchmark.WORKLOADS))
def test_seed_000_yardsticks_answer_like_the_engine_on_the_benchmark_workload(name) -> None:
    """The benchmark's own workload at 1/100 of its size: backlogs, retries, stale reports."""
    plan = cron_benchmark.make_plan(cron_benchmark.WORKLOADS[name].scaled(100))
    record: list = []
    cron_benchmark.run(plan, CronJobScheduler(), record)
    for yardstick in YARDSTICKS_000:
        scheduler = yardstick()
        answers = [getattr(scheduler, method)(*args) for method, args, _ in record]
        assert answers == [answer for _, _, answer in record], yardstick.__name__


# ------------------------------------------------------------------------------- seed 001


def engine_001(script: list[str]) -> tuple[list[str], list[int]]:
    result = execute_script(script)
    numbers = [int(re.match(r"line (\d+): ", error).group(1)) for error in result.errors]
    return result.output, numbers


@settings(max_examples=300)
@given(scripts())
def test_seed_001_yardstick_answers_like_the_engine(script: list[str]) -> None:
    assert execute(script) == engine_001(script)


@settings(max_examples=150)
@given(dependency_graphs())
def test_seed_001_yardstick_cascades_like_the_engine(script: list[str]) -> None:
    assert execute(script) == engine_001(script)


@pytest.mark.parametrize("seed", range(4))
def test_seed_001_yardstick_answers_like_the_engine_on_seeded_scripts(seed: int) -> None:
    for n in range(250):
        script = random_script(SeededChooser(seed * 1000 + n))
        assert execute(script) == engine_001(script), script


def test_seed_001_yardstick_answers_like_the_engine_on_the_benchmark_script() -> None:
    """The benchmark's script at 2,000 jobs: dependencies, retries, cascades, one huge TICK."""
    script = script_benchmark.make_script(2_000)
    assert execute(script) == engine_001(script)


EDGES_001 = [
    # Limits: priorities are 32-bit, durations at most 10**12, at most 1001 attempts, and a FAIL
    # given before the SUBMIT counts as part of the job's definition.
    [
        "INIT 1 0",
        "SUBMIT a 2147483647 1 1 0",
        "SUBMIT b 2147483648 1 1 0",
        "SUBMIT c -2147483648 1 1 0",
        "SUBMIT d -2147483649 1 1 0",
        "SUBMIT e 0 1000000000000 1 0",
        "SUBMIT f 0 1000000000001 1 0",
        "SUBMIT g 0 1 1001 0",
        "SUBMIT h 0 1 1002 0",
        "FAIL i 1002",
        "SUBMIT i 0 1 1 0",
        "SUBMIT j 0 1 1 1 zz",
        "SUBMIT k 99999999999 1 1 1 zz",
        "FAIL a 5000",
        "TICK 3",
        "STATUS a",
        "RUNNING",
    ],
    # Huge ticks and backoffs: the event-driven session jumps over them.
    [
        "INIT 1000000000 1000000000000000",
        "SUBMIT a 0 1000000000000 3 0",
        "FAIL a 1",
        "FAIL a 2",
        "SUBMIT b -5 1 1 1 a",
        "TICK 1000000000000000000",
        "STATUS a",
        "TICK 1000000000000000000000",
        "STATUS a",
        "STATUS b",
    ],
    # A dependency already failed at submission: OK only, PENDING until another dependency's
    # permanent failure cascades; repeated dependencies count once.
    [
        "INIT 2 1",
        "SUBMIT a 0 1 1 0",
        "FAIL a 1",
        "SUBMIT b 0 5 1 0",
        "FAIL b 1",
        "TICK 3",
        "SUBMIT c 1 1 1 3 a b a",
        "SUBMIT d 1 1 1 1 c",
        "STATUS c",
        "TICK 10",
        "STATUS c",
        "STATUS d",
    ],
    # Errors and blank lines before INIT, then a valid INIT late.
    ["", "SUBMIT a 1 1 1 0", "INIT 0 0", "INIT 1 -1", "INIT 3 1", "INIT 3 1", "SUBMIT a 1 1 1 -1"],
]


@pytest.mark.parametrize("script", EDGES_001, ids=range(len(EDGES_001)))
def test_seed_001_yardstick_answers_like_the_engine_at_the_edges(script: list[str]) -> None:
    assert execute(script) == engine_001(script)
