"""The run summary (``cronlapse run``'s tables) counts what the log says.

``run_stats`` reads attempts from the log's stored fields and builds only the other events; the
oracle here derives the same figures from built events, through the attempt records the CSV
export pairs (``attempt_records``), so the two readings are independent.
"""

from __future__ import annotations

import io
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cronlapse.analyses.stats import Waits, attempt_records, percentile, run_stats
from cronlapse.exports.report import print_summary
from engine.core import Engine
from engine.model import events as ev
from engine.model.records import AttemptOutcome
from engine.scenario import ScenarioRunner, load_scenario, parse_scenario
from tests.engine.test_invariants import POLICIES, _busy

SCENARIOS = sorted((Path(__file__).parents[2] / "scenarios").glob("*.yaml"))


def _expected(engine: Engine) -> dict[str, object]:
    """Per job and per worker, the summary's figures from built events."""
    records = attempt_records(engine.log)
    runs, retries, successes = Counter(), Counter(), Counter()
    waits: dict[str, list[int]] = defaultdict(list)
    busy: Counter[str] = Counter()
    for record in records:
        runs[record.job_id] += 1
        if record.attempt == 1:
            waits[record.job_id].append(record.start - record.scheduled)
        else:
            retries[record.job_id] += 1
        successes[record.job_id] += record.outcome is AttemptOutcome.SUCCEEDED
        end = engine.now if record.end is None else record.end
        busy[record.worker_id] += max(0, end - record.start)
    failures, skipped, cancellations = Counter(), Counter(), Counter()
    for event in engine.log:
        if isinstance(event, ev.OccurrenceFailed):
            failures[event.job_id] += 1
        elif isinstance(event, ev.OccurrenceSkipped):
            skipped[event.job_id] += 1
        elif isinstance(event, ev.OccurrenceCancelled) and event.cause == "BufferLatest":
            skipped[event.job_id] += 1  # held, and let go for a newer run: never started
        elif isinstance(event, ev.OccurrenceCancelled):
            cancellations[event.job_id] += 1
        elif isinstance(event, ev.BacklogCancelled):
            cancellations[event.job_id] += event.runs
    return {
        "runs": +runs,
        "retries": +retries,
        "successes": +successes,
        "failures": +failures,
        "skipped": +skipped,
        "cancellations": +cancellations,
        "waits": {job_id: sorted(job_waits) for job_id, job_waits in waits.items()},
        "busy": +busy,
    }


def _summarised(engine: Engine) -> dict[str, object]:
    stats = run_stats(engine.log, engine.now)
    jobs = stats.jobs.items()
    return {
        "runs": +Counter({job_id: job.runs for job_id, job in jobs}),
        "retries": +Counter({job_id: job.retries for job_id, job in jobs}),
        "successes": +Counter({job_id: job.successes for job_id, job in jobs}),
        "failures": +Counter({job_id: job.failures for job_id, job in jobs}),
        "skipped": +Counter({job_id: job.skipped for job_id, job in jobs}),
        "cancellations": +Counter({job_id: job.cancellations for job_id, job in jobs}),
        "waits": {job_id: list(job.waits) for job_id, job in jobs if job.waits},
        "busy": +Counter({worker_id: w.busy for worker_id, w in stats.workers.items()}),
    }


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: f"{p.order.value}-{p.dispatch.value}")
@pytest.mark.parametrize("seed", [0, 1])
def test_the_summary_of_a_busy_engine_counts_what_its_log_says(policy, seed: int) -> None:
    # Retries, timeouts, lost attempts, cancellations, pauses and a drained worker.
    engine = _busy(policy, seed)
    assert _summarised(engine) == _expected(engine)


@pytest.mark.integration
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda path: path.stem)
def test_the_summary_of_every_bundled_scenario_counts_what_its_log_says(path: Path) -> None:
    runner = ScenarioRunner(load_scenario(path))
    for _ in runner.steps():
        pass
    assert _summarised(runner.engine) == _expected(runner.engine)


def test_jobs_and_workers_are_listed_in_the_order_the_log_first_names_them() -> None:
    engine = _busy(POLICIES[0], 0)
    stats = run_stats(engine.log, engine.now)
    named: dict[str, None] = {}
    for event in engine.log:
        job_id = getattr(event, "job_id", None)
        if job_id is not None and not isinstance(event, ev.OccurrencesSkipped | ev.JobModified):
            named.setdefault(job_id, None)
    assert list(stats.jobs) == list(named)
    assert list(stats.workers) == ["w0", "w1", "w2"]


OVERLAP_DROPS = """\
scenario: Overlap drops
clock: {until: 12}
workers: [w1, w2]
jobs:
  - {id: forbid, every: 1, duration: 3, overlap: Forbid}
  - {id: latest, every: 1, duration: 3, overlap: BufferLatest}
"""


def test_runs_an_overlap_rule_drops_are_skipped_not_cancelled() -> None:
    # issue 37: a BufferLatest fleet's summary said "cancelled 5,016" and "skipped 0"
    runner = ScenarioRunner(parse_scenario(OVERLAP_DROPS, "drops.yaml"))
    runner.run()
    stats = run_stats(runner.engine.log, runner.processed)
    # each runs at 0, 3, 6, 9 and 12; Forbid skips the runs due meanwhile, BufferLatest lets
    # each held run go when a newer one falls due (it never starts, as Kubernetes never creates it)
    assert [(job.skipped, job.cancellations) for job in stats.jobs.values()] == [(8, 0), (8, 0)]
    out = io.StringIO()
    print_summary(stats, out)
    header, forbid = (
        line for line in out.getvalue().splitlines() if "job " in line or "forbid" in line
    )
    assert header.split("┃")[6].strip() == "skipped" and forbid.split("│")[6].strip() == "8"


@given(st.lists(st.integers(0, 30), max_size=40), st.sampled_from((0.01, 0.5, 0.95, 1.0)))
def test_waits_kept_as_counts_give_the_percentiles_of_the_list(waits: list[int], share) -> None:
    counted = Waits.merged([Waits(dict(Counter(waits))), Waits()])
    assert counted.percentile(share) == percentile(waits, share)
    assert counted.max() == max(waits, default=None)
    assert list(counted) == sorted(waits) and len(counted) == len(waits)


def test_waits_over_counts_follow_what_their_maker_goes_on_counting() -> None:
    # The summary reader counts each first attempt's wait in the dict under the job's Waits.
    counts: dict[int, int] = {}
    waits = Waits(counts)
    assert len(waits) == 0 and waits.percentile(0.5) is None
    counts[3] = 2
    counts[0] = 1
    assert len(waits) == 3 and list(waits) == [0, 3, 3]
    assert (waits.percentile(0.5), waits.max()) == (3, 3)
    assert Waits.merged([waits, Waits({0: 1})]) == Waits({0: 2, 3: 2})
