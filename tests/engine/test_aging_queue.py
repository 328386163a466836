"""The aging ready queue: its pick against brute force, its undo steps, its size, and the engine's
aging order against a reference that materialises every run.

Aging (seed 001): effective priority = priority + floor(waited / step), waited counted from the
tick the run could first run; ties go to the run that fell due first (its scheduled tick, then
its job's submission order, the order in which the engine processes runs falling due at one tick).
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from cronlapse.analyses.invariants import violations
from engine.core import Engine
from engine.model import events as ev
from engine.model.commands import RegisterWorker, ScheduleJob
from engine.model.ordering import java_order_key
from engine.model.policies import DispatchOrder, Policy
from engine.model.records import JobSpec
from engine.parts.aging_queue import AgingReadyQueue
from engine.parts.ready_entry import Waiting
from engine.schedules.kinds import Every, Once


def entry(scheduled: int, submission: int, priority: int, ready_since: int) -> Waiting:
    job_id = f"j{submission}"
    return Waiting(
        job_id, scheduled, java_order_key(job_id), priority, ready_since, submission, None
    )


def brute_best(entries: list[Waiting], step: int, now: int) -> Waiting:
    """The best entry by the definition, scanning them all."""
    return min(
        entries,
        key=lambda e: (
            -(e.priority + (now - e.ready_since) // step),
            e.scheduled,
            e.submission,
        ),
    )


# One operation on the queue: push a new entry, remove one held (by index), or pop at a tick.
operations = st.lists(
    st.one_of(
        st.tuples(
            st.just("push"),
            st.integers(0, 30),  # scheduled
            st.integers(0, 4),  # submission
            st.integers(-3, 3),  # priority
            st.integers(0, 30),  # ready_since - scheduled
        ),
        st.tuples(st.just("remove"), st.integers(0, 50)),
        st.tuples(st.just("pop"), st.integers(0, 40)),
    ),
    max_size=60,
)


@settings(max_examples=300)
@given(st.integers(1, 7), operations)
def test_the_pick_is_the_best_by_the_definition(step: int, ops: list[tuple]) -> None:
    queue = AgingReadyQueue(step)
    held: dict[tuple[int, int], Waiting] = {}
    now = 0
    for op in ops:
        if op[0] == "push":
            _, scheduled, submission, priority, wait = op
            new = entry(scheduled, submission, priority, scheduled + wait)
            queue.push(new)  # a run with the same (scheduled, submission) is replaced
            held[(scheduled, submission)] = new
        elif op[0] == "remove" and held:
            key = sorted(held)[op[1] % len(held)]
            queue.remove(held.pop(key))
        elif op[0] == "pop":
            now += op[1]
            expected = brute_best(list(held.values()), step, now) if held else None
            assert queue.pop(now) is expected
            if expected is not None:
                del held[(expected.scheduled, expected.submission)]
        assert len(queue) == len(held)
        assert bool(queue) == bool(held)
        assert set(queue.snapshot()) == set(held.values())
        check_structure(queue, step)


def check_structure(queue: AgingReadyQueue, step: int) -> None:
    """The queue's own invariants: every entry in the group of its ``a`` under its key, each
    group a heap, each bucket's values sorted and its heads its groups' smallest keys, and every
    bucket reachable from the heap of tops."""
    groups: dict[int, list[int]] = {}
    for key, held in queue._entries.items():
        assert key == (held.scheduled << 64) + held.submission
        groups.setdefault(held.priority * step - held.ready_since, []).append(key)
    assert {a: sorted(keys) for a, keys in queue._groups.items()} == {
        a: sorted(keys) for a, keys in groups.items()
    }
    for group in queue._groups.values():
        assert all(group[(i - 1) // 2] <= group[i] for i in range(1, len(group)))
    buckets: dict[int, list[int]] = {}
    for a in sorted(groups):
        buckets.setdefault(a // step, []).append(a)
    assert {q: values for q, (values, _) in queue._buckets.items()} == buckets
    for values, heads in queue._buckets.values():
        assert heads == [min(groups[a]) for a in values]
    assert queue._topped == {-q for q in queue._tops} >= set(queue._buckets)


def test_removing_an_entry_no_longer_held_changes_nothing() -> None:
    # An engine withdraws a front it may already have replaced: only the very entry is removed.
    queue = AgingReadyQueue(10)
    old, new = entry(5, 1, 0, 5), entry(5, 1, 3, 5)
    queue.push(old)
    queue.push(new)
    queue.remove(old)
    assert queue.snapshot() == (new,)


@settings(max_examples=200)
@given(st.integers(1, 7), operations, operations)
def test_a_restore_in_place_returns_the_queue_to_its_contents(
    step: int, before: list[tuple], after: list[tuple]
) -> None:
    # Operations, a copy (a keyframe's), more operations, and the copy put back in place: the
    # queue holds what it held, and picks as it would have.
    queue = AgingReadyQueue(step)
    apply_ops(queue, before)
    saved = queue.snapshot()
    apply_ops(queue, after)
    queue.restore(saved)
    assert queue.snapshot() == saved
    assert len(queue) == len(saved)
    check_structure(queue, step)
    twin = AgingReadyQueue(step)
    twin.restore(saved)
    for now in range(0, 300, 7):
        assert queue.pop(now) is twin.pop(now)


def apply_ops(queue: AgingReadyQueue, ops: list[tuple]) -> None:
    now = 0
    for op in ops:
        if op[0] == "push":
            _, scheduled, submission, priority, wait = op
            queue.push(entry(scheduled, submission, priority, scheduled + wait))
        elif op[0] == "remove" and queue:
            held = queue.snapshot()
            queue.remove(held[op[1] % len(held)])
        elif op[0] == "pop":
            now += op[1]
            queue.pop(now)


def test_snapshot_and_restore_keep_the_order_and_the_entries() -> None:
    queue = AgingReadyQueue(3)
    entries = [entry(s, s % 3, s % 4 - 1, s) for s in range(50)]
    for e in reversed(entries):
        queue.push(e)
    saved = queue.snapshot()
    assert saved == tuple(sorted(entries, key=lambda e: (e.scheduled, e.submission)))
    while queue:
        queue.pop(100)
    queue.restore(saved)
    assert queue.snapshot() == saved
    check_structure(queue, 3)
    assert queue.pop(100) is brute_best(entries, 3, 100)


# ------------------------------------------------------------------------------------ size


def test_a_recurring_backlog_over_a_billion_ticks_holds_one_entry_per_waiting_job() -> None:
    # A blocker holds the only worker for 10^9 ticks while two recurring jobs fall due every tick
    # and every 3 ticks: a backlog of over 1.3 * 10^9 runs, all implicit. Then 3,000 ticks run
    # 3,000 of them. The queue holds each job's front only: two entries, not one per run taken
    # (a structure indexed by a counter of runs grows to thousands of slots here).
    engine = Engine(Policy(order=DispatchOrder.AGING, aging_step=10))
    assert engine.apply(RegisterWorker("w1")).accepted
    jump = 10**9
    for spec in (
        JobSpec("blocker", Once(0), priority=10**9, duration=jump),
        JobSpec("every", Every(0, 1)),
        JobSpec("third", Every(0, 3), priority=1),
    ):
        assert engine.apply(ScheduleJob(spec)).accepted
    queue = engine._dispatcher.ready
    assert isinstance(queue, AgingReadyQueue)
    engine.advance(jump)
    assert len(queue) == 2
    assert len(queue.snapshot()) == 2
    engine.advance(jump + 3_000)
    started = [e for e in engine.log if isinstance(e, ev.AttemptStarted)]
    assert len(started) == 1 + 3_000
    assert len(queue) == 2
    assert len(queue.snapshot()) == 2
    assert len(engine.query.records()) == 1 + 3_000
    assert violations(engine) == []


# ----------------------------------------------------------------- the engine against a reference


@dataclass(frozen=True)
class Spec:
    first: int
    interval: int | None
    """None: a one-time job at ``first``."""
    priority: int
    duration: int
    max_attempts: int
    fail_attempts: frozenset[int]

    def fires(self, tick: int) -> bool:
        if self.interval is None:
            return tick == self.first
        return tick >= self.first and (tick - self.first) % self.interval == 0


def reference_starts(
    specs: list[Spec], workers: int, step: int, horizon: int
) -> list[tuple[int, str, int, int, str]]:
    """Every run made a record the tick it falls due; each tick: attempts end (a failure with
    attempts left waits again at once: no backoff), runs fall due, then free workers (lowest id
    first) take the best waiting run, scanning all of them."""
    waiting: list[tuple[int, int, int]] = []  # (job index, scheduled, attempts made)
    running: dict[str, tuple[int, int, int, int]] = {}  # worker -> (end, job, scheduled, number)
    starts = []
    ids = [f"w{n}" for n in range(1, workers + 1)]
    for now in range(horizon):
        for worker, (end, job, scheduled, number) in list(running.items()):
            if end == now:
                del running[worker]
                spec = specs[job]
                if number in spec.fail_attempts and number < spec.max_attempts:
                    waiting.append((job, scheduled, number))
        waiting.extend((job, now, 0) for job, spec in enumerate(specs) if spec.fires(now))
        for worker in ids:
            if worker in running or not waiting:
                continue
            best = min(
                waiting,
                key=lambda run: (
                    -(specs[run[0]].priority + (now - run[1]) // step),
                    run[1],
                    run[0],
                ),
            )
            waiting.remove(best)
            job, scheduled, made = best
            running[worker] = (now + specs[job].duration, job, scheduled, made + 1)
            starts.append((now, f"j{job}", scheduled, made + 1, worker))
    return starts


specs = st.builds(
    Spec,
    first=st.integers(0, 8),
    interval=st.one_of(st.none(), st.integers(1, 4)),
    priority=st.integers(-2, 3),
    duration=st.integers(1, 4),
    max_attempts=st.integers(1, 3),
    fail_attempts=st.frozensets(st.integers(1, 3), max_size=2),
)


@settings(max_examples=250)
@given(
    st.lists(specs, min_size=1, max_size=5),
    st.integers(1, 2),
    st.integers(1, 6),
    st.lists(st.integers(1, 15), min_size=1, max_size=6),
)
def test_the_aging_order_matches_a_reference_that_materialises_every_run(
    jobs: list[Spec], workers: int, step: int, jumps: list[int]
) -> None:
    # The engine keeps each recurring job's backlog implicit behind one front entry; the
    # reference creates every run. Advancing by jumps of any size must start the same attempts.
    engine = Engine(Policy(order=DispatchOrder.AGING, aging_step=step))
    for n in range(1, workers + 1):
        assert engine.apply(RegisterWorker(f"w{n}")).accepted
    for n, spec in enumerate(jobs):
        schedule = Once(spec.first) if spec.interval is None else Every(spec.first, spec.interval)
        job = JobSpec(
            f"j{n}",
            schedule,
            priority=spec.priority,
            duration=spec.duration,
            max_attempts=spec.max_attempts,
            fail_attempts=spec.fail_attempts,
        )
        assert engine.apply(ScheduleJob(job)).accepted
    keyframe = engine.keyframe()
    horizon = 0
    for jump in jumps:
        horizon += jump
        engine.advance(horizon)
    started = [
        (e.tick, e.job_id, e.scheduled, e.attempt, e.worker_id)
        for e in engine.log
        if isinstance(e, ev.AttemptStarted)
    ]
    assert started == reference_starts(jobs, workers, step, horizon)
    assert violations(engine) == []
    # The queue's copy in a keyframe: back to the start, the same future again.
    log = list(engine.log)
    engine.restore(keyframe)
    engine.advance(horizon)
    assert list(engine.log) == log
