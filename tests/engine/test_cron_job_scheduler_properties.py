"""Properties of seed 000's CronJobScheduler, and a differential test against a reference.

``ReferenceScheduler`` below is written for obviousness, not speed: every dispatch materialises
every due occurrence of every job, then sorts all pending occurrences and all free workers. It
never imports the engine. The state machine drives it and the real scheduler with the same calls
and compares every answer, while checking the invariants on what the scheduler returns and on its
engine's records; at the end it replays the calls on a fresh scheduler (determinism) and drains
everything with plenty of workers (every due occurrence was created, and dispatched, exactly once).

``benchmarks/cron_job_scheduler.py --check`` imports ``ReferenceScheduler`` from this file.
"""

from __future__ import annotations

import unicodedata
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from engine import CronJobScheduler

MAX_TIME = 10**12
MAX_INTERVAL = 10**9
MAX_RETRIES = 10

QUEUED, RUNNING, RETRY_PENDING = "QUEUED", "RUNNING", "RETRY_PENDING"
SUCCEEDED, FAILED, SCHEDULED = "SUCCEEDED", "FAILED", "SCHEDULED"


# ------------------------------------------------------------------------- the reference model


def java_units(text: str) -> tuple[int, ...]:
    """The UTF-16 code units of ``text``: what Java's ``String.compareTo`` compares."""
    data = text.encode("utf-16-le", "surrogatepass")
    return tuple(int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2))


def java_is_whitespace(char: str) -> bool:
    """Java's ``Character.isWhitespace``: space separators but the no-break ones, and controls."""
    if char in "\u00a0\u2007\u202f":
        return False
    return char in " \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f" or unicodedata.category(char) in (
        "Zs",
        "Zl",
        "Zp",
    )


def valid_id(text: str) -> bool:
    """Not blank (Java ``isBlank``), 1 to 100 UTF-16 units (Java ``length()``), no comma."""
    units = java_units(text)
    return (
        0 < len(units) <= 100
        and "," not in text
        and not all(java_is_whitespace(char) for char in text)
    )


def _check_str(name: str, value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str")


def _check_int(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int")


class RefOccurrence:
    def __init__(self, max_attempts: int) -> None:
        self.state = QUEUED
        self.max_attempts = max_attempts
        self.attempts: list[int] = []
        self.worker: str | None = None


class ReferenceScheduler:
    """Seed 000 by the book: materialise everything, sort everything."""

    def __init__(self) -> None:
        self.now = 0
        self.workers: dict[str, tuple[str, int] | None] = {}
        self.jobs: dict[str, tuple[int, int, int]] = {}
        self.next_time: dict[str, int | None] = {}
        """Per job: the earliest schedule time that no dispatch has created yet."""
        self.occurrences: dict[tuple[str, int], RefOccurrence] = {}
        self._keys: dict[str, tuple[int, ...]] = {}

    def _key(self, text: str) -> tuple[int, ...]:
        key = self._keys.get(text)
        if key is None:
            key = self._keys[text] = java_units(text)
        return key

    def _move(self, current_time: int) -> bool:
        if not 0 <= current_time <= MAX_TIME:
            return False
        if current_time < self.now:
            raise ValueError(f"current_time {current_time} is before {self.now}")
        self.now = current_time
        return True

    def register_worker(self, worker_id: str) -> bool:
        _check_str("worker_id", worker_id)
        if not valid_id(worker_id) or worker_id in self.workers:
            return False
        self.workers[worker_id] = None
        return True

    def schedule_job(
        self, job_id: str, first_run_time: int, interval: int, max_retries: int, current_time: int
    ) -> bool:
        _check_str("job_id", job_id)
        for name, value in (
            ("first_run_time", first_run_time),
            ("interval", interval),
            ("max_retries", max_retries),
            ("current_time", current_time),
        ):
            _check_int(name, value)
        if not self._move(current_time):
            return False
        if (
            not valid_id(job_id)
            or job_id in self.jobs
            or not self.now <= first_run_time <= MAX_TIME
            or not 0 <= interval <= MAX_INTERVAL
            or not 0 <= max_retries <= MAX_RETRIES
        ):
            return False
        self.jobs[job_id] = (first_run_time, interval, max_retries)
        self.next_time[job_id] = first_run_time
        return True

    def dispatch_jobs(self, current_time: int) -> list[str]:
        _check_int("current_time", current_time)
        if not self._move(current_time):
            return []
        for job_id, (_, interval, max_retries) in self.jobs.items():
            t = self.next_time[job_id]
            while t is not None and t <= self.now:
                self.occurrences[(job_id, t)] = RefOccurrence(max_retries + 1)
                t = t + interval if interval else None
            self.next_time[job_id] = t
        pending = sorted(
            (key for key, occ in self.occurrences.items() if occ.state in (QUEUED, RETRY_PENDING)),
            key=lambda key: (key[1], self._key(key[0])),
        )
        free = sorted((w for w, busy in self.workers.items() if busy is None), key=self._key)
        out = []
        for key, worker_id in zip(pending, free, strict=False):
            occ = self.occurrences[key]
            occ.attempts.append(len(occ.attempts) + 1)
            occ.state = RUNNING
            occ.worker = worker_id
            self.workers[worker_id] = key
            out.append(f"{key[0]},{key[1]},{occ.attempts[-1]},{worker_id}")
        return out

    def complete_job(
        self,
        job_id: str,
        scheduled_time: int,
        attempt_number: int,
        successful: bool,
        current_time: int,
    ) -> bool:
        _check_str("job_id", job_id)
        _check_int("scheduled_time", scheduled_time)
        _check_int("attempt_number", attempt_number)
        if not isinstance(successful, bool):
            raise TypeError("successful must be a bool")
        _check_int("current_time", current_time)
        if not self._move(current_time):
            return False
        if not 1 <= attempt_number <= MAX_RETRIES + 1:
            return False
        occ = self.occurrences.get((job_id, scheduled_time))
        if occ is None or occ.state != RUNNING or occ.attempts[-1] != attempt_number:
            return False
        assert occ.worker is not None
        self.workers[occ.worker] = None
        occ.worker = None
        if successful:
            occ.state = SUCCEEDED
        elif attempt_number < occ.max_attempts:
            occ.state = RETRY_PENDING
        else:
            occ.state = FAILED
        return True

    def get_job_status(self, job_id: str, scheduled_time: int, current_time: int) -> str:
        _check_str("job_id", job_id)
        _check_int("scheduled_time", scheduled_time)
        _check_int("current_time", current_time)
        if not self._move(current_time):
            return ""
        job = self.jobs.get(job_id)
        if job is None or not 0 <= scheduled_time <= MAX_TIME:
            return ""
        first, interval, _ = job
        if interval == 0:
            in_schedule = scheduled_time == first
        else:
            in_schedule = scheduled_time >= first and (scheduled_time - first) % interval == 0
        if not in_schedule:
            return ""
        occ = self.occurrences.get((job_id, scheduled_time))
        return SCHEDULED if occ is None else occ.state


def outcome(method, *args) -> tuple[str, object]:
    """A call's answer, or the type of the exception it raised."""
    try:
        return ("ok", method(*args))
    except (TypeError, ValueError) as error:
        return ("raised", type(error).__name__)


def parse_assignment(text: str) -> tuple[str, int, int, str]:
    job_id, scheduled, attempt, worker_id = text.split(",")
    return job_id, int(scheduled), int(attempt), worker_id


# ----------------------------------------------------------------------------- strategies

# Any characters but lone surrogates (Java would pair two of them into one character, so ids that
# differ in Python could be one id in Java). Commas are allowed: both reject them.
generated_ids = st.text(
    alphabet=st.characters(exclude_categories=("Cs",)) | st.sampled_from(" \t\xa0\x85,"),
    min_size=0,
    max_size=4,
)
JOB_IDS = [
    "a",
    "b",
    "B",
    "ab",
    " a",
    "a ",
    "job-1",
    "\U0001f600",
    "\uffff",
    "\ue000",
    "\U00010000x",
    "é",
    "",
    "  ",
    "a,b",
    "x" * 101,
    "y" * 100,
    "\U0001f600" * 50,  # Java length 100
    "\U0001f600" * 51,  # Java length 102: too long
    "\xa0",  # not blank in Java
    "\u2000\u3000",  # blank
]
WORKER_IDS = [
    "w",
    "W",
    "w1",
    "w10",
    "w2",
    " w",
    "\U0001f600",
    "\uffff",
    "\U0001f601w",
    "",
    "\t",
    "a,b",
    "z" * 101,
    "\U0001f601" * 50,
    "a" + "\U0001f601" * 50,
    "\x85",
    "\x1c",
]
job_ids = st.sampled_from(JOB_IDS) | generated_ids
worker_ids = st.sampled_from(WORKER_IDS) | generated_ids
time_steps = st.sampled_from([0, 0, 0, 1, 1, 2, 3, 5])
intervals = st.sampled_from([0, 0, 0, 1, 2, 3, 5, 7, MAX_INTERVAL, -1, MAX_INTERVAL + 1])
retries = st.sampled_from([0, 0, 1, 1, 2, 3, MAX_RETRIES, -1, MAX_RETRIES + 1])


# ---------------------------------------------------------------------------- state machine


class CronSchedulerMachine(RuleBasedStateMachine):
    """The scheduler and the reference, call by call; invariants after every step."""

    def __init__(self) -> None:
        super().__init__()
        self.sut = CronJobScheduler()
        self.ref = ReferenceScheduler()
        self.now = 0
        self.calls: list[tuple[str, tuple, tuple[str, object]]] = []
        self.schedules: dict[str, tuple[int, int, int]] = {}
        self.running: dict[tuple[str, int], tuple[int, str]] = {}
        self.busy: dict[str, tuple[str, int]] = {}
        self.attempts: dict[tuple[str, int], list[int]] = {}
        self.assignments: list[tuple[str, int, int, str]] = []
        self.last_job = ""

    def call(self, name: str, *args):
        got = outcome(getattr(self.sut, name), *args)
        want = outcome(getattr(self.ref, name), *args)
        assert got == want, (name, args, got, want)
        self.calls.append((name, args, got))
        if name != "register_worker" and got[0] == "ok" and 0 <= args[-1] <= MAX_TIME:
            self.now = args[-1]
        if name == "schedule_job" and got == ("ok", True):
            job_id, first, interval, max_retries, _ = args
            self.schedules[job_id] = (first, interval, max_retries)
            self.last_job = job_id
        if name == "dispatch_jobs" and got[0] == "ok":
            self.record_assignments(got[1])
        if name == "complete_job" and got == ("ok", True):
            job_id, scheduled, attempt, _, _ = args
            number, worker_id = self.running.pop((job_id, scheduled))
            assert number == attempt
            del self.busy[worker_id]
        return got

    def record_assignments(self, assignments: list[str]) -> None:
        for text in assignments:
            job_id, scheduled, attempt, worker_id = parse_assignment(text)
            key = (job_id, scheduled)
            # No occurrence dispatched twice at once; no worker given two attempts.
            assert key not in self.running, text
            assert worker_id not in self.busy, text
            # Attempt numbers run 1..k without gaps and stop at maxRetries + 1.
            previous = self.attempts.setdefault(key, [])
            assert attempt == len(previous) + 1, text
            first, interval, max_retries = self.schedules[job_id]
            assert attempt <= max_retries + 1, text
            # Only times of the job's schedule, and only due ones.
            assert scheduled <= self.now
            assert scheduled >= first
            assert (scheduled - first) % interval == 0 if interval else scheduled == first
            previous.append(attempt)
            self.running[key] = (attempt, worker_id)
            self.busy[worker_id] = key
            self.assignments.append((job_id, scheduled, attempt, worker_id))

    def later(self, step: int) -> int:
        return min(self.now + step, MAX_TIME)

    @initialize(workers=st.lists(worker_ids, max_size=3))
    def some_workers(self, workers: list[str]) -> None:
        for worker_id in workers:
            self.call("register_worker", worker_id)

    @rule(worker_id=worker_ids)
    def register_worker(self, worker_id: str) -> None:
        self.call("register_worker", worker_id)

    @rule(
        job_id=job_ids,
        offset=st.sampled_from([0, 0, 1, 2]) | st.integers(-1, 12),
        interval=intervals,
        max_retries=retries,
        step=time_steps,
    )
    def schedule_job(
        self, job_id: str, offset: int, interval: int, max_retries: int, step: int
    ) -> None:
        now = self.later(step)
        self.call("schedule_job", job_id, now + offset, interval, max_retries, now)

    @rule(job_id=job_ids, interval=intervals, max_retries=retries)
    def schedule_job_due_now(self, job_id: str, interval: int, max_retries: int) -> None:
        """Due at once, maybe just after a dispatch at the same time (which did not create it)."""
        self.call("schedule_job", job_id, self.now, interval, max_retries, self.now)

    @rule(step=time_steps)
    def dispatch_jobs(self, step: int) -> None:
        self.call("dispatch_jobs", self.later(step))

    @rule(step=time_steps)
    def dispatch_twice(self, step: int) -> None:
        now = self.later(step)
        self.call("dispatch_jobs", now)
        assert self.call("dispatch_jobs", now) == ("ok", [])

    @precondition(lambda self: self.running)
    @rule(data=st.data(), successful=st.booleans(), step=time_steps)
    def complete_running(self, data, successful: bool, step: int) -> None:
        key = data.draw(st.sampled_from(sorted(self.running)))
        attempt, _ = self.running[key]
        attempt += data.draw(st.sampled_from([0, 0, 0, 0, -1, 1]))
        self.call("complete_job", key[0], key[1], attempt, successful, self.later(step))

    @precondition(lambda self: self.attempts)
    @rule(data=st.data(), successful=st.booleans(), step=time_steps)
    def complete_earlier_attempt(self, data, successful: bool, step: int) -> None:
        key = data.draw(st.sampled_from(sorted(self.attempts)))
        attempt = data.draw(st.integers(0, MAX_RETRIES + 2))
        self.call("complete_job", key[0], key[1], attempt, successful, self.later(step))

    @rule(
        job_id=job_ids,
        scheduled=st.integers(-1, 40) | st.just(MAX_TIME + 1),
        attempt=st.integers(1, 3),
        successful=st.booleans(),
        step=time_steps,
    )
    def complete_anything(
        self, job_id: str, scheduled: int, attempt: int, successful: bool, step: int
    ) -> None:
        self.call("complete_job", job_id, scheduled, attempt, successful, self.later(step))

    @rule(data=st.data(), step=time_steps)
    def status(self, data, step: int) -> None:
        if self.schedules and data.draw(st.booleans()):
            job_id = data.draw(st.sampled_from(sorted(self.schedules)) | st.just(self.last_job))
            first, interval, _ = self.schedules[job_id]
            k = data.draw(st.sampled_from([0, 0, 1, 2]) | st.integers(0, 30))
            scheduled = first + k * interval + data.draw(st.sampled_from([0, 0, 0, 1, -1]))
            scheduled = max(0, scheduled)
        else:
            job_id = data.draw(job_ids)
            scheduled = data.draw(st.integers(-1, 60) | st.sampled_from([MAX_TIME, MAX_TIME + 1]))
        before = len(self.sut.engine.query.records())
        self.call("get_job_status", job_id, scheduled, self.later(step))
        assert len(self.sut.engine.query.records()) == before

    @rule(
        which=st.sampled_from(["schedule", "dispatch", "complete", "status"]),
        back=st.integers(1, 3),
    )
    def time_goes_backwards(self, which: str, back: int) -> None:
        if self.now == 0:
            return
        then = max(0, self.now - back)
        args = {
            "schedule": ("schedule_job", "late", then, 0, 0, then),
            "dispatch": ("dispatch_jobs", then),
            "complete": ("complete_job", "a", 0, 1, True, then),
            "status": ("get_job_status", "a", 0, then),
        }[which]
        before = len(self.sut.engine.log), self.sut.engine.now
        assert self.call(*args) == ("raised", "ValueError")
        assert (len(self.sut.engine.log), self.sut.engine.now) == before

    @rule(
        which=st.sampled_from(["schedule", "dispatch", "complete", "status"]),
        bad=st.sampled_from([-1, MAX_TIME + 1]),
    )
    def time_out_of_range(self, which: str, bad: int) -> None:
        args = {
            "schedule": ("schedule_job", "new", MAX_TIME, 0, 0, bad),
            "dispatch": ("dispatch_jobs", bad),
            "complete": ("complete_job", "a", 0, 1, True, bad),
            "status": ("get_job_status", "a", 0, bad),
        }[which]
        before = len(self.sut.engine.log), self.sut.engine.now
        rejected = {"schedule": False, "dispatch": [], "complete": False, "status": ""}[which]
        assert self.call(*args) == ("ok", rejected)
        assert (len(self.sut.engine.log), self.sut.engine.now) == before

    @invariant()
    def engine_records_are_consistent(self) -> None:
        engine = self.sut.engine
        assert engine.now == self.now
        running_on: dict[str, tuple[str, int]] = {}
        for key, occurrence in engine.query.records().items():
            numbers = [attempt.number for attempt in occurrence.attempts]
            assert numbers == list(range(1, len(numbers) + 1))
            assert len(numbers) <= self.schedules[key[0]][2] + 1
            live = [a for a in occurrence.attempts if a.outcome.value == "RUNNING"]
            assert len(live) <= 1
            assert all(a.outcome.value != "RUNNING" for a in occurrence.attempts[:-1])
            if live:
                assert occurrence.state.value == RUNNING
                assert live[0].worker_id not in running_on
                running_on[live[0].worker_id] = key
                assert self.running[key] == (live[0].number, live[0].worker_id)
        assert running_on == self.busy
        for worker_id, worker in engine.query.workers().items():
            assert worker.running == self.busy.get(worker_id)

    @invariant()
    def statuses_agree_around_now(self) -> None:
        """Status queries at the current time change nothing, so they can be asked at every step."""
        for job_id, (first, interval, _) in self.schedules.items():
            times = {first, first + interval, self.now}
            if interval and self.now >= first:
                last = self.now - (self.now - first) % interval
                times.update((last, last + interval))
            for t in times:
                got = self.sut.get_job_status(job_id, t, self.now)
                assert got == self.ref.get_job_status(job_id, t, self.now), (job_id, t)

    def teardown(self) -> None:
        self.check_determinism()
        self.drain_and_check_every_due_occurrence_ran_once()

    def check_determinism(self) -> None:
        twin = CronJobScheduler()
        for name, args, got in self.calls:
            assert outcome(getattr(twin, name), *args) == got, (name, args)
        assert list(twin.engine.log) == list(self.sut.engine.log)

    def drain_and_check_every_due_occurrence_ran_once(self) -> None:
        for n in range(30):
            self.call("register_worker", f"~drain{n:02d}")
        now = self.now
        for _ in range(1000):
            for (job_id, scheduled), (attempt, _) in sorted(self.running.items()):
                assert self.call("complete_job", job_id, scheduled, attempt, True, now)[1]
            if not self.call("dispatch_jobs", now)[1] and not self.running:
                break
        else:
            raise AssertionError("drain did not finish")
        first_attempts = Counter((j, t) for j, t, attempt, _ in self.assignments if attempt == 1)
        expected = set()
        for job_id, (first, interval, _) in self.schedules.items():
            times = range(first, now + 1, interval) if interval else [first] * (first <= now)
            expected.update((job_id, t) for t in times)
        assert set(first_attempts) == expected
        assert all(count == 1 for count in first_attempts.values())
        for job_id, scheduled in expected:
            state = self.call("get_job_status", job_id, scheduled, now)[1]
            assert state in (SUCCEEDED, FAILED)


# Half of this machine's time is hypothesis choosing among the rules (most have preconditions):
# 100 examples of the same 40 steps.
CronSchedulerMachine.TestCase.settings = settings(
    max_examples=50,
    stateful_step_count=40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestCronSchedulerMachine = pytest.mark.integration(CronSchedulerMachine.TestCase)


# --------------------------------------------------------------------- random call sequences

operations = st.lists(
    st.one_of(
        st.tuples(st.just("register"), worker_ids),
        st.tuples(st.just("schedule"), job_ids, st.integers(0, 10), intervals, retries, time_steps),
        st.tuples(st.just("dispatch"), time_steps),
        st.tuples(st.just("complete"), st.integers(0, 50), st.booleans(), time_steps),
        st.tuples(st.just("status"), job_ids, st.integers(-1, 40), time_steps),
    ),
    max_size=60,
)


def run_operations(scheduler, ops, *, statuses: bool = True) -> list:
    """Apply ``ops``; completions target the running attempt chosen by index, when there is one."""
    now = 0
    running: list[tuple[str, int, int]] = []
    answers = []
    for op in ops:
        kind = op[0]
        if kind == "register":
            answers.append(scheduler.register_worker(op[1]))
            continue
        now += op[-1]
        if kind == "schedule":
            answers.append(scheduler.schedule_job(op[1], now + op[2], op[3], op[4], now))
        elif kind == "dispatch":
            out = scheduler.dispatch_jobs(now)
            answers.append(out)
            running.extend(parse_assignment(text)[:3] for text in out)
        elif kind == "complete" and running:
            job_id, scheduled, attempt = running.pop(op[1] % len(running))
            answers.append(scheduler.complete_job(job_id, scheduled, attempt, op[2], now))
        elif kind == "status" and statuses:
            answers.append(scheduler.get_job_status(op[1], op[2], now))
    return answers


@settings(max_examples=300)
@given(ops=operations)
def test_same_calls_give_the_same_answers(ops) -> None:
    first, second = CronJobScheduler(), CronJobScheduler()
    assert run_operations(first, ops) == run_operations(second, ops)
    assert list(first.engine.log) == list(second.engine.log)


@settings(max_examples=300)
@given(ops=operations)
def test_random_call_sequences_match_the_reference(ops) -> None:
    assert run_operations(CronJobScheduler(), ops) == run_operations(ReferenceScheduler(), ops)


@settings(max_examples=300)
@given(ops=operations)
def test_status_queries_change_no_other_answer(ops) -> None:
    with_statuses = run_operations(CronJobScheduler(), ops)
    without = run_operations(CronJobScheduler(), ops, statuses=False)
    assert [a for a in with_statuses if not isinstance(a, str)] == without


@settings(max_examples=100)
@given(
    first=st.integers(0, 10**12),
    interval=st.integers(1, 10**9),
    k=st.integers(0, 10**6),
    delta=st.integers(-3, 3),
)
def test_status_arithmetic_matches_the_reference(first, interval, k, delta) -> None:
    scheduler, reference = CronJobScheduler(), ReferenceScheduler()
    for target in (scheduler, reference):
        assert target.schedule_job("j", first, interval, 0, 0) is True
    scheduled = first + k * interval + delta
    assert scheduler.get_job_status("j", scheduled, 0) == reference.get_job_status(
        "j", scheduled, 0
    )
    assert scheduler.engine.query.records() == {}


def test_reference_reproduces_the_specification_examples() -> None:
    r = ReferenceScheduler()
    assert r.register_worker("worker-b") and r.register_worker("worker-a")
    assert r.schedule_job("inventory-sync", 10, 5, 1, 0)
    assert r.dispatch_jobs(9) == []
    assert r.get_job_status("inventory-sync", 10, 9) == "SCHEDULED"
    assert r.dispatch_jobs(10) == ["inventory-sync,10,1,worker-a"]
    assert r.complete_job("inventory-sync", 10, 1, True, 11) is True
    assert r.get_job_status("inventory-sync", 10, 11) == "SUCCEEDED"
    assert r.dispatch_jobs(15) == ["inventory-sync,15,1,worker-a"]
    r = ReferenceScheduler()
    assert r.register_worker("worker-7")
    assert r.schedule_job("daily-report", 20, 0, 1, 0)
    assert r.dispatch_jobs(20) == ["daily-report,20,1,worker-7"]
    assert r.complete_job("daily-report", 20, 1, False, 21) is True
    assert r.get_job_status("daily-report", 20, 21) == "RETRY_PENDING"
    assert r.dispatch_jobs(21) == ["daily-report,20,2,worker-7"]
    assert r.complete_job("daily-report", 20, 1, True, 22) is False
    assert r.get_job_status("daily-report", 20, 22) == "RUNNING"
    assert r.complete_job("daily-report", 20, 2, False, 23) is True
    assert r.get_job_status("daily-report", 20, 23) == "FAILED"
    r = ReferenceScheduler()
    assert r.register_worker("worker-z") and r.register_worker("worker-a")
    assert r.schedule_job("beta", 30, 0, 0, 0) and r.schedule_job("alpha", 30, 0, 0, 0)
    assert r.dispatch_jobs(30) == ["alpha,30,1,worker-a", "beta,30,1,worker-z"]
    assert r.dispatch_jobs(30) == []
