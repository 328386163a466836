"""An engine that forgets its archived runs behind a horizon plays exactly as one that keeps them.

:meth:`Engine.forget_archived` drops finished runs that no live rule reads
(:mod:`engine.parts.horizon`). So the same program of commands, played on an engine that forgets
at random points and on one that keeps every run, must give the same results and the same events
after every command; what asks behind the horizon is answered "forgotten", never wrongly. The
programs are the command fuzzer's (tests/engine/test_command_fuzz.py): every command, every
policy, stale reports and timers, dependencies, deadlines and backfills.
"""

from __future__ import annotations

import base64
import gc
import pickle
import tracemalloc
import zlib
from array import array
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import Engine
from engine.model import events as ev
from engine.model.commands import (
    Advance,
    BackfillJob,
    CancelOccurrence,
    Complete,
    Outcome,
    PauseJob,
    RegisterWorker,
    ResumeJob,
    ScheduleJob,
)
from engine.model.policies import CompletionMode, DispatchMode, DispatchOrder, Policy
from engine.model.problems import Code
from engine.model.records import BackfillOrder, CatchUp, JobSpec, OccurrenceState
from engine.parts.run_archive import RunArchive, _squeeze, _unsqueeze
from engine.schedules.kinds import AnyOf, Every, Once
from tests.engine.test_command_fuzz import (
    command_of,
    freeze,
    kept_and_archiving,
    policies,
    programs,
    specs,
)

S = OccurrenceState


def live_state(engine: Engine) -> tuple:
    """The jobs (their cursors and rules' ticks) and the runs not over, comparable."""
    query = engine.query
    return (
        {job_id: (freeze(job), freeze(job.front)) for job_id, job in query.jobs().items()},
        {
            key: freeze(record)
            for key, record in query.live_records().items()
            if not record.state.is_final
        },
    )


@contextmanager
def collector_paused() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def refused_as_forgotten(result: object) -> bool:
    problem = getattr(result, "problem", None)
    return problem is not None and problem.code is Code.RUN_FORGOTTEN


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    policy=policies,
    seed=st.integers(0, 2**16),
    workers=st.sampled_from((1, 1, 0)),
    jobs=st.lists(specs, max_size=3),
    program=programs,
    forgets=st.lists(st.sampled_from((None, 0, 0, 0, 3, 10)), min_size=1, max_size=8),
)
def test_an_engine_that_forgets_plays_as_one_that_keeps_every_run(
    policy: Policy,
    seed: int,
    workers: int,
    jobs: list[dict],
    program: list[tuple],
    forgets: list[int | None],
) -> None:
    """``forgets``: after each step, no forgetting (None) or a forget of what lies that many
    ticks before now."""
    kept, forgetting = kept_and_archiving(policy, seed, workers)
    steps = [("schedule", fields) for fields in jobs] + program
    for number, step in enumerate(steps):
        command = command_of(step, kept)
        result = kept.apply(command)
        answer = forgetting.apply(command)
        if refused_as_forgotten(answer):
            # Behind the horizon: only a backfill reaching back there or a cancel of a run
            # there, and the keeping engine had the history to answer it.
            assert isinstance(command, BackfillJob | CancelOccurrence), command
            return
        assert answer == result, command
        assert list(forgetting.log) == list(kept.log), command
        assert live_state(forgetting) == live_state(kept), command
        back = forgets[number % len(forgets)]
        if back is not None:
            forgetting.forget_archived(max(0, forgetting.now - back))
            for job_id in kept.query.jobs():
                for tick in range(max(0, kept.now - 12), kept.now + 3):
                    if not forgetting.query.is_forgotten(job_id, tick):
                        assert forgetting.query.run_state(job_id, tick) == kept.query.run_state(
                            job_id, tick
                        ), (job_id, tick)


def fleet(jobs: int) -> Engine:
    """``jobs`` jobs due every tick, one-tick runs, a worker each: a run finishes per job per
    tick."""
    policy = Policy(
        dispatch=DispatchMode.AUTO, completion=CompletionMode.SIMULATED, order=DispatchOrder.FIFO
    )
    engine = Engine(policy, archive=True)
    for n in range(jobs):
        engine.apply(RegisterWorker(f"w{n}"))
        engine.apply(ScheduleJob(JobSpec(f"j{n}", Every(0, 1), duration=1)))
    return engine


def test_forgotten_runs_leave_the_archive_and_the_live_tables_bounded_by_the_jobs() -> None:
    """Memory stops growing with the history: after 40 times as many runs, each forgotten as
    it goes, the archive holds at most a run or two per job (its latest, and the ones its
    cursor has not passed), and the live tables are the same size."""
    engine = fleet(4)
    sizes = []
    for stop in (250, 10_000):
        for tick in range(engine.now + 100, stop + 1, 100):
            engine.apply(Advance(tick))
            engine.forget_archived()
        sizes.append((len(engine._store.archive), len(engine._store.records)))
    assert engine.query.archived_count() > 39_000
    assert sizes[1] == sizes[0]
    assert sizes[1][0] <= 2 * 4


def test_forgetting_keeps_what_the_cursor_walks_past() -> None:
    """A run cancelled ahead of its job's cursor (no dispatch has created its runs) is archived
    and must stay, though it is behind now: the cursor skips it when it gets there, as in the
    engine that kept it."""
    policy = Policy(dispatch=DispatchMode.MANUAL, completion=CompletionMode.REPORTED)
    kept, forgetting = Engine(policy, archive=True), Engine(policy, archive=True)
    for engine in (kept, forgetting):
        engine.apply(ScheduleJob(JobSpec("job", Every(0, 10))))
        assert engine.apply(CancelOccurrence("job", 20)).accepted
        assert engine.apply(CancelOccurrence("job", 30)).accepted
        engine.apply(Advance(35))
    forgetting.forget_archived()
    assert forgetting.query.run_state("job", 20) is S.CANCELLED
    for engine in (kept, forgetting):
        engine.apply(RegisterWorker("w1"))
        for _ in range(4):
            engine.dispatch()
            for key in list(engine.query.record_keys(S.RUNNING)):
                engine.apply(Complete(*key, 1, True))
    assert list(forgetting.log) == list(kept.log)


def test_behind_the_horizon_a_backfill_a_cancel_and_a_query_are_told_forgotten() -> None:
    policy = Policy(dispatch=DispatchMode.AUTO, completion=CompletionMode.SIMULATED)
    engine = Engine(policy, archive=True)
    engine.apply(RegisterWorker("w1"))
    engine.apply(ScheduleJob(JobSpec("job", Every(0, 10), duration=1)))
    engine.apply(Advance(100))
    assert engine.forget_archived() > 0
    assert engine.horizon == 100
    assert engine.query.is_forgotten("job", 20)
    assert engine.query.run_state("job", 20) is None
    assert engine.query.run_state("job", 90) is S.SUCCEEDED, "the job's latest run stays"
    assert engine.query.forgotten_before("job") == 100
    backfill = engine.apply(BackfillJob("job", 0, 50))
    assert backfill.outcome is Outcome.CONFLICT
    assert backfill.problem is not None and backfill.problem.code is Code.RUN_FORGOTTEN
    assert "runs before tick 100 were forgotten" in backfill.message
    cancel = engine.apply(CancelOccurrence("job", 20))
    assert cancel.problem is not None and cancel.problem.code is Code.RUN_FORGOTTEN
    late = engine.apply(Complete("job", 20, 1, True))
    assert late.problem is not None and late.problem.code is Code.NO_RUNNING_ATTEMPT


def test_a_job_with_no_run_to_come_keeps_its_latest_run_and_its_status() -> None:
    """A finished schedule's status word is its latest run's: that run stays, the ones before
    it go."""
    policy = Policy(dispatch=DispatchMode.AUTO, completion=CompletionMode.SIMULATED)
    engine = Engine(policy, archive=True)
    engine.apply(RegisterWorker("w1"))
    schedule = AnyOf((Once(10), Once(20), Once(30)))
    engine.apply(ScheduleJob(JobSpec("job", schedule, duration=1)))
    engine.apply(Advance(100))
    word = engine.query.job_word("job")
    assert engine.forget_archived() > 0
    assert engine.query.run_state("job", 30) is S.SUCCEEDED
    assert engine.query.is_forgotten("job", 20)
    assert engine.query.job_word("job") == word == "succeeded"


def test_only_an_archiving_engine_forgets_and_never_ahead_of_now() -> None:
    with pytest.raises(TypeError, match="archives"):
        Engine().forget_archived()
    engine = Engine(archive=True)
    with pytest.raises(ValueError, match="after now"):
        engine.forget_archived(5)


def played_twice(setup, forget_at: int, until: int) -> tuple[Engine, Engine]:
    """The same commands on an engine that keeps its archive and on one that forgets it all
    at ``forget_at``: ``setup(engine, tick)`` applies what each tick brings."""
    policy = Policy(dispatch=DispatchMode.AUTO, completion=CompletionMode.SIMULATED)
    kept, forgetting = Engine(policy, archive=True), Engine(policy, archive=True)
    for engine in (kept, forgetting):
        for tick in range(until + 1):
            engine.apply(Advance(tick))
            setup(engine, tick)
            if engine is forgetting and tick == forget_at:
                engine.forget_archived()
    return kept, forgetting


def test_forgetting_keeps_the_upstream_runs_a_paused_dependent_will_read() -> None:
    """A dependent paused for a while reads, once resumed with every missed run, its upstream
    job's runs from its pause on: those stay, though they are long over."""

    def setup(engine: Engine, tick: int) -> None:
        if tick == 0:
            engine.apply(RegisterWorker("w1"))
            engine.apply(ScheduleJob(JobSpec("up", Every(0, 10), duration=1, failure_rate=0.5)))
            engine.apply(ScheduleJob(JobSpec("down", Every(5, 10), duration=1, depends_on=("up",))))
            engine.apply(PauseJob("down"))
        if tick == 100:
            engine.apply(ResumeJob("down", CatchUp.ALL))

    kept, forgetting = played_twice(setup, 90, 200)
    assert list(forgetting.log) == list(kept.log)


def test_forgetting_keeps_the_runs_a_backfill_under_way_will_find() -> None:
    """A sequential backfill goes on from run to run behind now: the runs it will find still
    existing are not forgotten, or it would create them twice."""

    def setup(engine: Engine, tick: int) -> None:
        if tick == 0:
            engine.apply(RegisterWorker("w1"))
            engine.apply(ScheduleJob(JobSpec("job", Every(0, 10), duration=5)))
        if tick == 21:
            engine.apply(PauseJob("job"))
        if tick == 45:
            engine.apply(ResumeJob("job", CatchUp.SKIP))
        if tick == 100:
            order = BackfillOrder.SEQUENTIAL
            assert engine.apply(BackfillJob("job", 0, 90, order)).accepted

    kept, forgetting = played_twice(setup, 101, 200)
    assert any(isinstance(event, ev.BackfillRunExists) for event in kept.log)
    assert list(forgetting.log) == list(kept.log)


def test_an_archive_that_forgot_refuses_to_go_back_behind_its_floor() -> None:
    """Lengths count the runs held, not those ever archived, once some are forgotten: a
    truncation to a length from before the forgetting would take the wrong rows."""
    engine = fleet(2)
    engine.apply(Advance(10))
    archive = engine._store.archive
    assert archive is not None
    archive.truncate(len(archive))
    engine.forget_archived(5)  # the runs from tick 5 on stay
    assert len(archive) > 1
    with pytest.raises(ValueError, match="forgot"):
        archive.truncate(1)


def runs_of(engine: Engine) -> list:
    return [run for job in ("j0", "j1") for run in engine.query.runs(job_id=job, limit=10**6).items]


def test_an_engine_that_forgot_rewinds_to_a_keyframe_taken_since() -> None:
    """The live dashboard's engine is loaded from a service's snapshot, which forgot: keyframes
    taken after that (lengths counted from the runs it kept) restore exactly, back and forward
    again, and the state back is the state when it was taken."""
    engine = fleet(2)
    engine.apply(Advance(10))
    assert engine.forget_archived() > 0
    frames = engine.record_keyframes(check=True)
    taken = (runs_of(engine), live_state(engine))
    engine.apply(Advance(20))
    frames.take(20)
    ahead = (runs_of(engine), live_state(engine))
    assert len(ahead[0]) == len(taken[0]) + 2 * 10
    frames.restore(0)
    assert (runs_of(engine), live_state(engine)) == taken
    frames.restore(1)
    assert (runs_of(engine), live_state(engine)) == ahead


def test_an_engine_that_forgot_a_long_history_pickles_as_one_that_forgot_a_short_one() -> None:
    """What an engine keeps of a forgotten history is a bounded cost per job, not its runs: the
    same recurring jobs pickle within a few bytes a job alike after 2 periods of runs and after
    60 (a service's snapshot is this pickle, and a restart loads it). Each job keeps its latest
    run, which its status word and a dependent created later read."""
    jobs, start, period = 50, 1_000_000, 60

    def played(periods: int) -> int:
        policy = Policy(
            dispatch=DispatchMode.AUTO,
            completion=CompletionMode.SIMULATED,
            order=DispatchOrder.FIFO,
        )
        engine = Engine(policy, archive=True)
        for n in range(jobs):
            engine.apply(RegisterWorker(f"w{n}"))
            engine.apply(ScheduleJob(JobSpec(f"j{n}", Every(start, period), duration=1)))
        engine.apply(Advance(start - period // 2))
        for stretch in range(periods):
            engine.apply(Advance(start + stretch * period + period // 2))
            engine.forget_archived()
            engine.log.truncate(0)  # a service hands its events on, then drops them
        return len(pickle.dumps(engine, pickle.HIGHEST_PROTOCOL))

    some, many = played(2), played(60)
    assert many - some <= 16, (some, many)


OLD_ARCHIVE = (
    "eJx1Uj1PwzAQTQqhHxSJgQEk2MNSiZUNsREJoY5FyHJSU4eCXc4OUQeksjB56/F/OadJKRVcJN/L3ct7js+L6Ouy"
    "FVThjoWa5EoMZhysGUChGIdM5m8CXW9YqKv6ZYnnH/iOseuwJ52yfGzwAd0OYeSuW9UyPRZEke0kMG6flRqmAhpm"
    "q7wgYr+pNty+57ZZOvcK1ccyIIsbnZK3WbneetvDRw0Tba1QLBWEBSZjtwu6NOgiDsDn6I5YBRiITCtjocisBtKI"
    "14w6L9GFr5j0rztBHWhxSG2bZ1OD8iSWp/LM90eb/eITU+MiBn5rP6S7RqQhR3UOg98x+ru+2KLVm+kyTr/7MrOb"
    "XvF/mvdb2iuNA2Yst4KOu1DWzyFOgvUT+lW4PZbxwvhpEARhYe5hxKZiZjEJCaWc2kmP5vRMl8VKqhbp4Bu4BKjK"
)
"""A run archive pickled by the code before its forgotten-before ticks left the per-job index
(zlib, base64): one job every 10 ticks, run to tick 100, then forgotten before 100 (its latest
run, at 90, kept then)."""


def test_an_archive_pickled_before_loads_with_its_forgotten_history() -> None:
    archive = pickle.loads(zlib.decompress(base64.b64decode("".join(OLD_ARCHIVE))))
    assert (len(archive), archive.total) == (1, 10)
    assert archive.forgotten_before("job") == 100
    assert archive.is_forgotten(("job", 20)) and not archive.is_forgotten(("job", 90))
    assert archive.state(("job", 90)) is S.SUCCEEDED
    archive.forget({"job": 200})
    assert archive.forgotten_before("job") == 200 and not archive.is_forgotten(("job", 90))
    again = pickle.loads(pickle.dumps(archive, pickle.HIGHEST_PROTOCOL))
    assert (len(again), again.total, again.forgotten_before("job")) == (1, 10, 200)


def test_a_dependent_created_after_forgetting_reads_its_upstreams_latest_run() -> None:
    """Forgetting keeps each job's latest run although its next run is due: a job created later
    that depends on it reads that run (found by the fuzzed programs above, when forgetting
    dropped it: the dependent waited for ever on an engine that forgot, and ran on one that
    kept everything)."""
    played = []
    for forget in (False, True):
        policy = Policy(dispatch=DispatchMode.AUTO, completion=CompletionMode.SIMULATED)
        engine = Engine(policy, archive=True)
        engine.apply(RegisterWorker("w1"))
        engine.apply(ScheduleJob(JobSpec("upstream", Every(0, 7), duration=1)))
        engine.apply(Advance(2))
        if forget:
            assert engine.forget_archived() == 0, "the latest run stays"
        dependent = JobSpec("dependent", Once(2), duration=1, depends_on=("upstream",))
        engine.apply(ScheduleJob(dependent))
        engine.apply(Advance(4))
        played.append(engine.query.run_state("dependent", 2))
    assert played == [S.SUCCEEDED, S.SUCCEEDED]


def test_the_due_heap_holds_one_entry_a_waiting_job_after_forgetting() -> None:
    """Each pause and resume puts a job on the due heap again (its old entry goes stale): a
    service that comes back after downtime pauses and resumes every job, so the heap grew by a
    job's worth per restart. Forgetting (before every snapshot) drops the stale entries; the
    engine plays on as one that kept them."""
    played = []
    for forget in (False, True):
        engine = Engine(
            Policy(dispatch=DispatchMode.AUTO, completion=CompletionMode.SIMULATED), archive=True
        )
        engine.apply(RegisterWorker("w1"))
        for n in range(5):
            engine.apply(ScheduleJob(JobSpec(f"j{n}", Every(100, 60), duration=1)))
        for _ in range(6):
            engine.apply(Advance(engine.now + 1))
            for n in range(5):
                engine.apply(PauseJob(f"j{n}"))
                engine.apply(ResumeJob(f"j{n}"))
            if forget:
                engine.forget_archived()
                assert len(engine._cursors.due.items) == 5
        engine.apply(Advance(400))
        played.append((list(engine.log), live_state(engine)))
    assert played[0] == played[1]


OLD_ARCHIVE_INDEX = (
    "eNqlmE1PE1EYhVugUr6lglQExF1JhEAhGAwGgYDoGGwJCMHgMJ0OtHzM1JmpyMKkGuPGYcVl59aN4Sf4C9yY8Btc+hNc"
    "OMVePk4yOSYMSWc678nDTXvnvOdtKXL0OxY6Pby4YW7mTWOgoNmuM2AXTVWz9Vz+jSG8+oWiOVl5cyj63ot3IuE1qHuW"
    "vW3Yaj7riDX/RtXekPBfksLwGmVNt7JGWZ2rVUK5qBIuehHVRzvCi2i2re0Lr009vVBtQ7dMx7WLumvZ/n9JnCkq50Ph"
    "hV8LpXEqVB86OyJwDocuHwH3SyA7qycIL0F48n5V5TxIeIOEVwX1JOElCa8auMOEN0x4NcAbJbxRwosAb4zwxgjvGtTH"
    "CW+c8GphfVflRYE3QXgThFcHvCnCmyK8euDNEN4M4TVAfZbwZgmvEdY3R3hzhNcEPIXwFMJrBt484c0TXgvUU4SXIrzr"
    "sL404aUJrxV4i4S3SHgx4C0T3jLh3YD6KuGtEl4brO+qvHbgrRHeGuHdBN464a0TXgfwdMLTCS8O9SzhZQnvFqxvg/A2"
    "CK8TeHnCyxPebeDtEN4O4XVB3SQ8k/C6YX0W4VmE1wM8m/BswrtTOQtXLAivTtVc19gtuI7INSdyrblYOR5GgmMgxoGg"
    "eNdHdDK2DRFdMiBGBcWsEaKT8ek+0clY9IDoZDx5GKAL/6cO48kjopOxY5roZgJiQFBMeEx0sv0/ITrZ1p8RnWzXz4ku"
    "FdA+g9rrAtHJtrlEdLIdrhCdbEsvyT5gOmxLr4hOthuN6PQA+w9qDwbRSdvfJDpp51tEJ216l+jMANsMstUC0Um7dKD+"
    "zx6bVMfVXMMfwoumezqjK6Gzv97yq+FdU3Wt6JRndP/SNlx7v3wZUbeNgiuUuH+V0fyycs+rVXcMc9PNCaXXn+8Lmr5t"
    "ZNUtK+OIxHT32y+fX/z4qcwvnaRTT/uV/m8jI6Xhg6NM+MPd6PG5OU/HwzD4dFxc8QUTD5+bdgLMdBwe+hRszix82INg"
    "sqNgkuNgXlNgPnNgCvPwsC7Cw7YKD8E6bOIN2Fw78KXbwR8J/sxQDWNpI8T6NohF2N5rAvpjFMbJehjfmmC8aYH4H4O4"
    "3Q5xtAPiXyfEoy6ID5faviu8mLph2ZuW3/xNNbOvunl929/eSnK6p7wRKxswdZIuDR5MHv/5/mvx60roY9zfiZ+EVswM"
    "/AWEjvLc"
)
"""A run archive pickled by the code before a job's one run left the per-job index for its row
alone and the columns were squeezed (zlib, base64): jobs every 10 and 3 ticks and one once at 5,
played to 100 on two workers, forgotten before 50, played on to 120 (:func:`indexed_played`)."""


def indexed_played() -> RunArchive:
    engine = Engine(
        Policy(dispatch=DispatchMode.AUTO, completion=CompletionMode.SIMULATED), archive=True
    )
    engine.apply(RegisterWorker("w1"))
    engine.apply(RegisterWorker("w2"))
    engine.apply(ScheduleJob(JobSpec("every10", Every(0, 10), duration=1)))
    engine.apply(ScheduleJob(JobSpec("every3", Every(0, 3), duration=1)))
    engine.apply(ScheduleJob(JobSpec("once", Once(5), duration=1)))
    engine.apply(Advance(100))
    engine.forget_archived(50)
    engine.apply(Advance(120))
    return engine._store.archive


def archive_facts(archive: RunArchive) -> tuple:
    jobs = ("every10", "every3", "once")
    keys = list(archive.keys())
    return (
        len(archive),
        archive.total,
        keys,
        [archive.get(key) for key in keys],
        [archive.forgotten_before(job_id) for job_id in jobs],
        [list(archive.job_ticks(job_id, 0)) for job_id in jobs],
        [archive.is_forgotten((job_id, tick)) for job_id in jobs for tick in range(0, 130)],
    )


def test_an_archive_pickled_with_its_per_job_index_loads_and_plays_on() -> None:
    old = pickle.loads(zlib.decompress(base64.b64decode("".join(OLD_ARCHIVE_INDEX))))
    new = indexed_played()
    assert archive_facts(old) == archive_facts(new)
    for archive in (old, new):
        archive.forget({"every10": 200, "every3": 200, "once": 200})
    assert archive_facts(old) == archive_facts(new)
    again = pickle.loads(pickle.dumps(old, pickle.HIGHEST_PROTOCOL))
    assert archive_facts(again) == archive_facts(new)


def test_a_jobs_latest_run_costs_a_few_bytes_of_snapshot_and_little_memory() -> None:
    """What forgetting leaves a job (its latest run) is nearly free: an engine whose 300 jobs
    ran and forgot pickles within a few bytes a job of the same engine before any of them ran,
    and loads within a few hundred bytes a job of it (it was 148 and 570: an index object and
    two columns a job, and the rows as they are)."""
    jobs, start, period = 300, 1_000_000, 3600

    def played(periods: int) -> bytes:
        engine = Engine(
            Policy(dispatch=DispatchMode.AUTO, completion=CompletionMode.SIMULATED), archive=True
        )
        for n in range(4):
            engine.apply(RegisterWorker(f"w{n}"))
        for n in range(jobs):
            spec = JobSpec(f"job{n}", Every(start + n, period), duration=1 + n % 7)
            engine.apply(ScheduleJob(spec))
        engine.apply(Advance(start - period // 2))
        engine.log.truncate(0)
        for stretch in range(periods):
            engine.apply(Advance(start + stretch * period + period // 2))
            engine.forget_archived()
            engine.log.truncate(0)
        return pickle.dumps(engine, pickle.HIGHEST_PROTOCOL)

    def loaded(data: bytes) -> int:
        with collector_paused():
            tracemalloc.start()
            try:
                pickle.loads(data)
                return tracemalloc.get_traced_memory()[0]
            finally:
                tracemalloc.stop()

    none, ran = played(0), played(3)
    assert len(ran) - len(none) <= 16 * jobs, (len(none), len(ran))
    assert loaded(ran) - loaded(none) <= 350 * jobs


def test_an_archive_with_hidden_rows_loads_its_index_from_its_rows() -> None:
    """The per-job index is not pickled but rebuilt from the rows: jobs of one run and of many,
    and hidden rows (a truncation), load as they were, and go forward again alike; so does the
    archive once the hidden rows are dropped."""
    archive = indexed_played()
    length = len(archive)
    archive.truncate(length - 5)
    again = pickle.loads(pickle.dumps(archive, pickle.HIGHEST_PROTOCOL))
    assert archive_facts(again) == archive_facts(archive)
    for loaded in (archive, again):
        loaded.advance(length)
    assert archive_facts(again) == archive_facts(archive)
    archive.truncate(archive._kept)  # back to the floor: the runs archived since are hidden
    archive.drop_hidden()
    again = pickle.loads(pickle.dumps(archive, pickle.HIGHEST_PROTOCOL))
    assert archive_facts(again) == archive_facts(archive)


@given(
    width=st.integers(1, 4),
    values=st.lists(
        st.one_of(
            st.integers(-(2**63), 2**63 - 1),
            st.sampled_from((-(2**63), 2**63 - 1, 0, 300, 1_000_000)),
        ),
        max_size=40,
    ),
)
def test_squeezed_rows_load_as_they_were(width: int, values: list[int]) -> None:
    """Any column squeezes and loads back: one that counts in steps, or would but for leaving
    64 bits (the stand-in for None beside a tick), or counts in none."""
    rows = array("q", values[: len(values) // width * width])
    assert _unsqueeze(_squeeze(rows, width), width) == rows
    steps = array("q", [-(2**63), 300, 300, 300] * width)
    assert _unsqueeze(_squeeze(steps, width), width) == steps
