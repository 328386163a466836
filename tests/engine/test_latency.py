"""Latency attribution: each run's lag, wait and backoff, their summaries, and ``run --stats``."""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, settings

from cronlapse.analyses.latency.attribution import METRICS, latency_report
from cronlapse.analyses.latency.tables import print_latency
from cronlapse.analyses.stats import run_stats
from cronlapse.cli.main import main
from engine.core import Engine
from engine.model.commands import RegisterWorker
from engine.model.policies import Policy
from engine.model.records import OccurrenceState
from engine.scenario import ScenarioRunner
from tests.engine.explain_helpers import SCENARIOS, bundled, history_at, inline
from tests.engine.test_command_fuzz import WORKER_IDS, command_of, fuzzed_programs

S = OccurrenceState

BUNDLED = [
    "nightly-etl-dst.yaml",
    "retry-storm-jitter.yaml",
    "worker-crash.yaml",
    "stuck-job-timeout.yaml",
    "seed-001-aging-cascade.yaml",
    "starvation-aging.yaml",
    "thundering-herd.yaml",
]


def _played(name: str):
    runner = ScenarioRunner(bundled(name))
    runner.run()
    return runner.engine


def test_each_kind_of_waiting_lands_in_its_own_column() -> None:
    report = latency_report(_played("nightly-etl-dst.yaml"))
    runs = {(r.job_id, r.scheduled): r for r in report.runs}
    assert (runs[("close-load", 1530)].lag, runs[("close-load", 1530)].wait) == (130, 0)
    assert (runs[("transform", 1560)].lag, runs[("transform", 1560)].wait) == (0, 110)
    close = runs[("close-extract", 1530)]
    assert (close.wait, close.backoff) == (15, 5)
    assert report.worst[0].job_id == "close-load"


@pytest.mark.parametrize("name", BUNDLED)
def test_a_finished_run_is_lag_wait_backoff_and_running_end_to_end(name: str) -> None:
    """Nothing is counted twice or lost: from its tick to its end, a run that succeeded was
    lagging, waiting, backing off or running."""
    engine = _played(name)
    report = latency_report(engine)
    for run in report.runs:
        if not run.started:
            continue
        record = engine.query.record(run.job_id, run.scheduled)
        if record.state is not OccurrenceState.SUCCEEDED:
            continue
        running = sum(a.ended - a.started for a in record.attempts)
        assert run.total + running == record.attempts[-1].ended - run.scheduled, run


def test_summaries_are_nearest_rank_percentiles_per_priority_and_job() -> None:
    report = latency_report(_played("nightly-etl-dst.yaml"))
    assert report.metric("p95_wait") == 110
    assert report.metric("max_lag", priority=2) == 130
    assert report.metric("p95_wait", priority=1) == 110
    assert report.metric("p50_wait", job="extract") == 0
    assert report.metric("max_wait", job="extract") == 10
    assert report.metric("runs", priority=2) == 6
    assert report.metric("p95_wait", job="nobody") is None
    assert list(report.by_priority) == [2, 1]


def test_a_report_of_some_jobs_keeps_only_their_figures_and_the_same_overall_ones() -> None:
    """A sweep names the jobs its metrics select: the others' figures are not worked out."""
    engine = _played("nightly-etl-dst.yaml")
    full = latency_report(engine)
    some = latency_report(engine, worst=0, jobs={"extract"})
    assert some.by_job == {"extract": full.by_job["extract"]}
    assert latency_report(engine, jobs=()).by_job == {}
    assert some.worst == () and latency_report(engine, worst=3).worst == full.worst[:3]
    assert (some.overall, some.by_priority, some.runs) == (
        full.overall,
        full.by_priority,
        full.runs,
    )
    assert some.metrics() == full.metrics()


def test_a_report_of_some_priorities_keeps_only_their_figures_and_the_same_overall_ones() -> None:
    """A sweep names the priorities its metrics select, as it names the jobs: with neither,
    the report's runs are not grouped at all, and its overall figures are the same."""
    engine = _played("nightly-etl-dst.yaml")
    full = latency_report(engine)
    assert len(full.by_priority) > 1
    priority = next(iter(full.by_priority))
    some = latency_report(engine, priorities={priority, 99})
    assert some.by_priority == {priority: full.by_priority[priority]}
    assert (some.overall, some.by_job, some.metrics()) == (
        full.overall,
        full.by_job,
        full.metrics(),
    )
    bare = latency_report(engine, jobs=(), priorities=())
    assert (bare.by_priority, bare.by_job, bare.overall) == ({}, {}, full.overall)


@pytest.mark.parametrize("name", BUNDLED)
def test_a_report_that_keeps_no_runs_builds_none_and_has_the_same_figures(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweep reads a report's figures alone: building a RunLatency for each of the demo's
    78,000 runs was a fifth of its report. Only the worst runs are built."""
    import cronlapse.analyses.latency.attribution as attribution

    engine = _played(name)
    full = latency_report(engine)
    built = []
    monkeypatch.setattr(
        attribution, "RunLatency", lambda *fields: built.append(fields) or full.runs[0]
    )
    lean = latency_report(engine, worst=2, keep_runs=False)
    assert lean.runs == () and len(full.runs) >= 2
    assert len(built) == 2 == len(full.worst[:2])
    assert [tuple(run) for run in built] == [
        (r.job_id, r.scheduled, r.priority, r.lag, r.wait, r.backoff, r.started)
        for r in full.worst[:2]
    ]
    assert (lean.overall, lean.by_priority, lean.by_job) == (
        full.overall,
        full.by_priority,
        full.by_job,
    )
    assert lean.metrics() == full.metrics()


def test_every_metric_has_a_value_and_an_unknown_one_is_named() -> None:
    report = latency_report(_played("seed-001-aging-cascade.yaml"))
    assert set(report.metrics()) == set(METRICS)
    assert report.metric("failed") == 1 and report.metric("cancelled") == 1
    with pytest.raises(KeyError, match="no metric 'p99_wait'; the metrics are p50_lag"):
        report.metric("p99_wait")


def test_a_backoff_still_running_counts_up_to_now_and_unstarted_runs_are_waiting() -> None:
    history = history_at(bundled("stuck-job-timeout.yaml"), 6)
    report = latency_report(history.engine)
    runs = {r.job_id: r for r in report.runs}
    assert runs["sync-ledger"].backoff == 1
    assert report.waiting == 0
    early = latency_report(history_at(bundled("stuck-job-timeout.yaml"), 3).engine)
    assert early.waiting == 1


def test_skipped_runs_are_counted_from_the_schedule() -> None:
    scenario = inline(
        "scenario: s\nclock: {until: 40}\nworkers: [w]\njobs: [{id: x, every: 5}]\n"
        "timeline:\n  - {at: 3, pause: {job: x}}\n  - {at: 22, resume: {job: x, catch_up: skip}}\n"
    )
    report = latency_report(history_at(scenario, 40).engine)
    assert report.skipped == 4


def test_run_stats_prints_the_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--stats", str(SCENARIOS / "nightly-etl-dst.yaml")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Latency in ticks, at tick 4320")
    assert "│ priority high   │   6 │       0 │     130 │     130 │" in out
    assert "close-load@1530" in out
    assert "runs started 12, still waiting 0, failed 0" in out
    assert "AttemptStarted" not in out  # no event lines


def test_stats_and_jsonl_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["run", "--stats", "--jsonl", str(SCENARIOS / "worker-crash.yaml")])
    assert exit_.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


@pytest.mark.parametrize("name", BUNDLED)
def test_utilisation_from_the_workers_counters_is_the_logs(name: str) -> None:
    engine = _played(name)
    workers = run_stats(engine.log, engine.now).workers.values()
    span = sum(engine.now - w.registered for w in workers)
    assert latency_report(engine).utilisation == pytest.approx(sum(w.busy for w in workers) / span)


def test_runs_still_waiting_count_with_their_waiting_so_far() -> None:
    """One worker, a ten-tick job due every tick: by tick 30 four runs have started (at 0, 10,
    20, 30) and the runs due at 4 to 30 wait, each for as long as it has been due; y is blocked
    on z from 5, which is lag, not waiting for a worker."""
    scenario = inline(
        "scenario: s\nclock: {until: 30}\nworkers: [w]\n"
        "jobs: [{id: x, every: 1, duration: 10}, {id: z, at: 40},"
        " {id: y, at: 5, depends_on: [z]}]\n"
    )
    report = latency_report(history_at(scenario, 30).engine)
    waiting = {(run.job_id, run.scheduled): run for run in report.runs if not run.started}
    assert report.metric("runs") == 4
    assert report.waiting == len(waiting) == 27 + 1
    assert [waiting[("x", tick)].wait for tick in (4, 17, 30)] == [26, 13, 0]
    assert (waiting[("y", 5)].lag, waiting[("y", 5)].wait) == (25, 0)
    assert report.metric("max_wait", job="x") == 27


def test_the_tables_count_the_due_runs_their_figures_are_over() -> None:
    """A job whose one run still waits: its row counts that run (it counted started runs only,
    so it read 0 runs beside a 25-tick wait), and the figures are over it."""
    scenario = inline(
        "scenario: s\nclock: {until: 30}\nworkers: [w]\n"
        "jobs: [{id: long, at: 0, duration: 40}, {id: queued, at: 5}]\n"
    )
    report = latency_report(history_at(scenario, 30).engine)
    assert (report.by_job["queued"].due, report.by_job["queued"].runs) == (1, 0)
    assert (report.overall.due, report.metric("runs")) == (2, 1)
    out = io.StringIO()
    print_latency(report, out)
    assert "┃ job    ┃ due ┃ lag p50 ┃" in out.getvalue()
    assert "│ queued │   1 │       0 │       0 │       0 │       25 │" in out.getvalue()


def _waiting_runs(engine: Engine) -> int:
    return sum(engine.query.count_runs(state=state) for state in (S.QUEUED, S.BLOCKED))


@pytest.mark.parametrize("name", [*BUNDLED, "demo.yaml"])
def test_the_waiting_count_is_the_due_runs_not_started_with_no_count_of_the_backlogs(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run is created when it falls due, so the runs the figures list as not started are
    every run waiting: the report reads that off its figures rather than counting every job's
    backlog again (a sweep's variant on the demo spent 22 ms there)."""
    for tick in (0, 3, 60, 300):
        engine = history_at(bundled(name), tick).engine
        expected = _waiting_runs(engine)
        with monkeypatch.context() as patched:
            patched.setattr(type(engine.query), "count_runs", None)
            assert latency_report(engine).waiting == expected, (name, tick)


@settings(
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    deadline=None,
)
@fuzzed_programs
def test_the_waiting_count_is_count_runs_after_any_program(
    policy: Policy, seed: int, workers: int, jobs: list[dict], program: list[tuple]
) -> None:
    """Every command, manual dispatch and reported completion included (300 programs found no
    run waiting ahead of its tick)."""
    engine = Engine(policy, seed=seed)
    for worker_id in WORKER_IDS[:workers]:
        engine.apply(RegisterWorker(worker_id))
    for step in [("schedule", fields) for fields in jobs] + program:
        engine.apply(command_of(step, engine))
    assert latency_report(engine).waiting == _waiting_runs(engine)
