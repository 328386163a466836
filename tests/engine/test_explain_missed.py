"""``cronlapse explain missed``: each system's missed-run rule after an outage, as the engine
plays it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cronlapse.analyses.explain.missed import MissedQuestionError, explain_missed, render
from engine.model import commands as cmd
from engine.scenario import ScenarioRunner, parse_scenario
from engine.scenario.errors import Problems
from engine.scenario.yaml_source import parse_yaml

ROOT = Path(__file__).resolve().parents[2]
OUTAGE = str(ROOT / "scenarios" / "semantics" / "scheduler-outage.yaml")

FLEET = """
scenario: fleet
clock: {until: 2000}
workers: [w1, w2, w3, w4]
jobs:
  - {id: sync, every: 10, duration: 1, catch_up: latest, catch_up_window: 30, max_missed: 5}
  - {id: plain, every: 10, duration: 1}
  - {id: once, at: 3}
"""


def answer(text: str, job: str, start: int, end: int, window: int | None = None):
    return explain_missed(parse_yaml(text, Problems("t")), "t", job, start, end, window)


def started(text: str, job: str, start: int, end: int, window: int | None = None):
    return {a.rule.name: a.started for a in answer(text, job, start, end, window).answers}


def test_each_rule_starts_its_own_runs_after_the_outage() -> None:
    runs = started(FLEET, "sync", 5, 95)
    assert runs["this job, as configured"] == (90,)  # 3 missed within the window: not > 5
    assert runs["Kubernetes CronJob"] == (90,)  # latest, within the 30-tick window
    assert runs["Airflow catchup=True"] == tuple(range(10, 91, 10))
    assert runs["Airflow catchup=False"] == (90,)
    # the job's window, 30 ticks, lets 70, 80 and 90 through; Temporal's default overlap
    # policy, Skip, starts 70 and skips the others, due while it is active
    assert runs["Temporal catch-up window"] == (70,)
    assert runs["systemd Persistent=true"] == (90,)
    assert runs["systemd Persistent=false"] == ()


def test_the_window_option_stands_for_starting_deadline_and_catch_up_window() -> None:
    runs = started(FLEET, "sync", 5, 95, window=5)
    assert runs["Kubernetes CronJob"] == (90,)
    assert runs["Temporal catch-up window"] == (90,)
    runs = started(FLEET, "sync", 5, 96, window=5)
    assert runs["Kubernetes CronJob"] == ()  # 90 is 6 ticks late: past the deadline


def test_max_missed_counts_within_the_window() -> None:
    text = FLEET.replace("catch_up_window: 30", "catch_up_window: 60")
    own = answer(text, "sync", 5, 95).answers[0]
    assert own.too_many is not None  # 6 missed within 60 ticks: more than 5, a warning
    assert own.started == (90,)  # and the latest runs all the same


def test_kubernetes_starts_the_latest_past_100_missed_and_warns() -> None:
    result = answer(FLEET, "plain", 5, 1015)
    kubernetes = next(a for a in result.answers if a.rule.name == "Kubernetes CronJob")
    assert kubernetes.started == (1010,)
    assert kubernetes.too_many is not None and kubernetes.too_many.limit == 100
    warning = "max_missed: 100: more than 100 runs were missed, so only the latest of them may run"
    assert warning in render(result)
    assert len(result.missed) == 101


def test_the_jobs_own_rule_is_what_run_does_with_that_outage() -> None:
    """The answer is the engine's: a run of the file with the same window creates the same."""
    text = FLEET.replace("jobs:", "scheduler_down: [{from: 5, to: 95}]\njobs:").replace(
        "catch_up: latest", "catch_up: all"
    )
    runner = ScenarioRunner(parse_scenario(text), 95)
    runner.run()
    rows = runner.engine.query.runs(job_id="sync", since=6, until=95)
    created = tuple(row.scheduled for row in rows.items)
    assert started(text, "sync", 5, 95)["this job, as configured"] == created == (70, 80, 90)


def test_a_modification_of_the_rule_keys_does_not_undo_the_rule() -> None:
    text = FLEET.replace(
        "jobs:", "timeline:\n  - {at: 2, modify: {job: sync, catch_up: skip}}\njobs:"
    )
    assert started(text, "sync", 5, 95)["Airflow catchup=True"] == tuple(range(10, 91, 10))


@pytest.mark.parametrize(
    ("job", "start", "end", "message"),
    [
        ("nope", 5, 95, "has no job 'nope'"),
        ("snyc", 5, 95, "did you mean sync?"),
        ("once", 5, 95, "one-time job"),
        ("sync", 95, 5, "must end after it starts"),
        ("sync", 5, 5000, "ends after the scenario does"),
    ],
)
def test_questions_that_cannot_be_answered(job: str, start: int, end: int, message: str) -> None:
    with pytest.raises(MissedQuestionError, match=message):
        answer(FLEET, job, start, end)


def test_a_job_paused_by_the_timeline_is_not_held_back() -> None:
    text = FLEET.replace("jobs:", "timeline:\n  - {at: 2, pause: {job: sync}}\njobs:")
    with pytest.raises(MissedQuestionError, match="not held back"):
        answer(text, "sync", 5, 95)


def test_a_job_defined_after_the_outage_starts_is_refused() -> None:
    text = FLEET + "timeline:\n  - {at: 50, schedule: {id: late, every: 10}}\n"
    with pytest.raises(MissedQuestionError, match="defined at 50"):
        answer(text, "late", 5, 95)
    assert isinstance(parse_scenario(text).timeline[-1].action, cmd.ScheduleJob)


def cronlapse(*argv: str) -> subprocess.CompletedProcess[str]:
    """The real command, as a user runs it."""
    code = "import sys; from cronlapse.cli.main import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, check=False
    )


@pytest.mark.e2e
def test_the_command_prints_every_rule_side_by_side() -> None:
    done = cronlapse("explain", "missed", "--job", "cleanup", "--outage", "5..95", OUTAGE)
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0].startswith("cleanup (every 10 from 0) while the scheduler is down from 5 to 95")
    assert "missed: 10, 20, ..., 90 (9)" in lines
    for name in ("Kubernetes CronJob", "Airflow catchup=True", "Temporal", "systemd Persistent"):
        assert any(line.strip().startswith(name) for line in lines)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--job", "nope", "--outage", "5..95", OUTAGE], "has no job 'nope'"),
        (["--job", "k8s", "--outage", "5-95", OUTAGE], "expected FROM..TO"),
        (["--job", "k8s", "--outage", "95..5", OUTAGE], "expected FROM before TO"),
        (["--job", "k8s", "--outage", "5..500", OUTAGE], "after the scenario does"),
        (["--job", "k8s", "--outage", "5..14:00", OUTAGE], "this run has no clock"),
        (["--job", "k8s", "--outage", "5..95", "/no/such/file.yaml"], "cannot read"),
        (["--job", "k8s", "--outage", "5..95", str(ROOT / "README.md")], "README.md:"),
    ],
)
@pytest.mark.e2e
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str) -> None:
    done = cronlapse("explain", "missed", *argv)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert "Traceback" not in done.stderr and done.stdout == ""


FORBID = """
scenario: forbid
clock: {until: 2000}
workers: [w1, w2, w3, w4]
jobs:
  - {id: slow, every: 10, duration: 25, overlap: OVERLAP}
"""


def by_rule(text: str, job: str, start: int, end: int):
    return {a.rule.name: a for a in answer(text, job, start, end).answers}


def test_each_system_row_plays_that_systems_own_overlap_rule_not_the_jobs() -> None:
    """A Forbid job's rule is its own: Airflow (max_active_runs 16) starts every missed run,
    where the job's Forbid would have let only the first run."""
    rows = by_rule(FORBID.replace("OVERLAP", "Forbid"), "slow", 5, 95)
    assert rows["Airflow catchup=True"].started == tuple(range(10, 91, 10))
    assert rows["Airflow catchup=True"].rule.overlap is not None
    assert rows["Airflow catchup=True"].skipped == 0
    assert rows["this job, as configured"].started == ()  # catch_up: skip, its own
    temporal = rows["Temporal catch-up window"]  # Temporal's default overlap policy: Skip
    assert (temporal.started, temporal.skipped) == ((10,), 8)
    assert "overlap: Skip" in temporal.rule.settings()


@pytest.mark.parametrize("overlap", ["Forbid", "BufferLatest"])
def test_runs_the_jobs_overlap_rule_drops_are_skipped_not_started(overlap: str) -> None:
    text = FORBID.replace("OVERLAP", overlap).replace(
        "duration: 25,", "duration: 25, catch_up: all,"
    )
    rows = by_rule(text, "slow", 5, 95)
    own = rows["this job, as configured"]
    latest = (90,) if overlap == "BufferLatest" else ()
    assert own.started == (10, *latest)  # a held run a newer one replaced never started
    assert own.skipped == 9 - len(own.started)
    shown = render(answer(text, "slow", 5, 95))
    assert f"{own.skipped} skipped by overlap: {overlap}" in shown
