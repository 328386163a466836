"""An engine that archives its finished runs answers exactly as one that keeps them live.

The archive (:mod:`engine.parts.run_archive`) takes finished runs out of the live table; every
reader goes through the store or the query API, which read both. So the same program of commands,
played on an engine with the archive and on one without, must give the same results, the same
events and the same answers to every question about runs, after every command; and the archiving
engine's live table must hold live work only. The programs are the command fuzzer's
(tests/engine/test_command_fuzz.py): every command, every policy, stale reports and timers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from cronlapse.analyses.invariants import violations
from cronlapse.analyses.latency.attribution import latency_report
from engine.core import Engine
from engine.model.commands import Advance, Complete, RegisterWorker, ScheduleJob
from engine.model.policies import CompletionMode, DispatchMode, DispatchOrder, Policy
from engine.model.records import FINAL_STATES, JobSpec, OccurrenceState
from engine.parts.run_archive import RunArchive
from engine.play.history import History
from engine.scenario import ScenarioRunner, load_scenario
from engine.schedules.kinds import Every
from tests.engine.test_command_fuzz import (
    command_of,
    freeze,
    fuzzed_programs,
    kept_and_archiving,
)

pytestmark = pytest.mark.integration

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def answers(engine: Engine) -> tuple:
    """Every answer about runs that a reader can get, in a form that ignores where a run lives."""
    query = engine.query
    keys = set(query.records())
    for job_id, job in query.jobs().items():
        keys.update((job_id, tick) for tick in range(max(0, engine.now - 3), engine.now + 3))
        keys.update((job_id, tick) for tick in job.open)
    return (
        {key: freeze(record) for key, record in query.records().items()},
        {state: set(query.record_keys(state)) for state in OccurrenceState},
        {state: len(query.record_keys(state)) for state in OccurrenceState},
        {key: query.run_state(*key) for key in sorted(keys)},
        {key: freeze(query.attempts(*key)) for key in sorted(keys)},
        {state: query.count_runs(state=state) for state in OccurrenceState},
        query.count_runs(),
    )


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@fuzzed_programs
def test_an_archiving_engine_answers_as_one_that_keeps_every_run(
    policy: Policy, seed: int, workers: int, jobs: list[dict], program: list[tuple]
) -> None:
    kept, archived = kept_and_archiving(policy, seed, workers)
    for step in [("schedule", fields) for fields in jobs] + program:
        command = command_of(step, kept)
        result = kept.apply(command)
        assert archived.apply(command) == result, command
        assert list(archived.log) == list(kept.log), command
        assert answers(archived) == answers(kept), command
        finished = {key for key, run in archived._store.records.items() if run.state.is_final}
        assert finished <= {run.key for run in archived._finished}, "a finished run stayed live"
    assert violations(archived) == violations(kept)


def test_finished_runs_add_no_live_record() -> None:
    """Memory follows live work: after 100 times as many runs, the live table is the same size
    (the running ones)."""
    policy = Policy(
        dispatch=DispatchMode.AUTO,
        completion=CompletionMode.SIMULATED,
        order=DispatchOrder.FIFO,
    )
    engine = Engine(policy, archive=True)
    for worker_id in ("w1", "w2", "w3", "w4"):
        engine.apply(RegisterWorker(worker_id))
    for job_id in ("a", "b", "c", "d"):
        engine.apply(ScheduleJob(JobSpec(job_id, Every(0, 1), duration=1)))
    live_sizes = []
    for stop in (250, 25_000):
        engine.apply(Advance(stop))
        live_sizes.append(len(engine._store.records))
    assert len(engine._store.archive) > 99_000
    assert live_sizes[1] == live_sizes[0] <= 8


def test_archived_runs_read_back_as_they_were() -> None:
    """A run read from the archive equals the record it was, attempts and all."""
    policy = Policy(dispatch=DispatchMode.MANUAL, completion=CompletionMode.REPORTED)
    kept, archived = Engine(policy), Engine(policy, archive=True)
    for engine in (kept, archived):
        engine.apply(RegisterWorker("w1"))
        engine.apply(ScheduleJob(JobSpec("job", Every(0, 10), max_attempts=3)))
        for tick, succeeded in ((0, False), (1, False), (2, True)):
            engine.apply(Advance(tick))
            engine.dispatch()
            engine.apply(Complete("job", 0, tick + 1, succeeded))
        engine.apply(Advance(3))
    assert ("job", 0) not in archived._store.records
    assert archived.query.record("job", 0) == kept.query.record("job", 0)
    assert [a.outcome for a in archived.query.attempts("job", 0)] == [
        a.outcome for a in kept.query.attempts("job", 0)
    ]


def test_an_archiving_engine_is_rewound_by_keyframes() -> None:
    """A history rewinds by keyframes and replay, which truncate the archive
    (tests/engine/test_history.py walks one through time)."""
    history = History(lambda: Engine(archive=True))
    history.seek(10)
    history.seek(0)
    assert history.tick == 0


def test_truncating_the_archive_forgets_the_later_runs() -> None:
    kept = Engine(Policy(dispatch=DispatchMode.AUTO, completion=CompletionMode.SIMULATED))
    kept.apply(RegisterWorker("w1"))
    kept.apply(ScheduleJob(JobSpec("job", Every(0, 2))))
    kept.apply(Advance(20))
    finished = [r for r in kept.query.records().values() if r.state in FINAL_STATES]
    archive = RunArchive()
    for record in finished:
        archive.add(record)
    archive.truncate(3)
    assert len(archive) == 3
    assert [archive.get(r.key) for r in finished] == finished[:3] + [None] * (len(finished) - 3)
    assert archive.count(OccurrenceState.SUCCEEDED) == 3


def test_a_tick_of_runs_archived_at_once_replays_the_hidden_rows_it_matches() -> None:
    """``add_all`` (a tick's finished runs at once) writes what ``add`` writes one at a time,
    and after a truncation shows the hidden rows its runs match, up to the first that differs,
    which drops the rest."""
    kept = Engine(Policy(dispatch=DispatchMode.AUTO, completion=CompletionMode.SIMULATED))
    kept.apply(RegisterWorker("w1"))
    kept.apply(ScheduleJob(JobSpec("job", Every(0, 2))))
    kept.apply(ScheduleJob(JobSpec("other", Every(1, 3))))
    kept.apply(Advance(20))
    finished = [r for r in kept.query.records().values() if r.state in FINAL_STATES]
    one_by_one, at_once = RunArchive(), RunArchive()
    for record in finished:
        one_by_one.add(record)
    at_once.add_all(finished)
    assert [at_once.get(r.key) for r in finished] == [one_by_one.get(r.key) for r in finished]
    assert list(at_once.keys()) == list(one_by_one.keys())
    at_once.truncate(2)
    at_once.add_all(finished[2:4])
    assert at_once.reaches(len(finished)) and len(at_once) == 4
    at_once.add_all([finished[5], finished[4]])
    assert not at_once.reaches(len(finished)) and len(at_once) == 6
    assert list(at_once.keys()) == [r.key for r in [*finished[:4], finished[5], finished[4]]]


@pytest.mark.parametrize(
    "name", ["demo.yaml", "retry-storm-jitter.yaml", "worker-crash.yaml", "stuck-job-timeout.yaml"]
)
def test_bundled_scenarios_report_the_same_with_the_archive(name: str) -> None:
    """What a sweep reads (the latency report) and what the checker finds are the same whether
    the runs were archived or kept."""
    scenario = load_scenario(str(SCENARIOS / name))
    until = min(scenario.until or 1_440, 1_440)
    kept = ScenarioRunner(scenario, until)
    archived = ScenarioRunner(scenario, until, archive=True)
    kept.run()
    archived.run()
    assert len(archived.engine._store.records) < len(kept.engine._store.records)
    assert latency_report(archived.engine) == latency_report(kept.engine)
    assert violations(archived.engine) == violations(kept.engine)
    assert answers(archived.engine) == answers(kept.engine)
