"""Kubernetes' own rules in an imported CronJob, held against the controller's behaviour
(issue 37, item 6): second-level deadlines, ``Allow`` overlaps, missed schedules."""

from __future__ import annotations

from pathlib import Path

from cronlapse.importers.fleet import ImportOptions, import_fleet
from engine.model import events as ev
from engine.scenario import ScenarioRunner

HEAD = "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: job}\n"
TEMPLATE = "jobTemplate: {spec: {template: {spec: {containers: [{name: c, image: busybox}]}}}}"


def manifest(tmp_path: Path, spec: str) -> Path:
    path = tmp_path / "cronjob.yaml"
    path.write_text(HEAD + f"spec: {{{spec}, {TEMPLATE}}}\n", encoding="utf-8")
    return path


def imported(tmp_path: Path, spec: str, **options: object):
    return import_fleet("k8s", [str(manifest(tmp_path, spec))], ImportOptions(**options))


def test_a_deadline_in_seconds_is_rounded_down_to_whole_minutes(tmp_path: Path) -> None:
    """The controller skips a run more than startingDeadlineSeconds late; a tick is a minute,
    so a run is late by whole minutes, and rounding up (10 s to a minute) would start a run 60 s
    late that Kubernetes skips. Rounded down, none starts that Kubernetes would not."""
    for seconds, minutes in ((10, 0), (59, 0), (60, 1), (150, 2)):
        policy = "concurrencyPolicy: Forbid"
        spec = f"schedule: '*/5 * * * *', {policy}, startingDeadlineSeconds: {seconds}"
        job = imported(tmp_path, spec).scenario.jobs[0]
        assert (job.catch_up_window, job.start_deadline) == (minutes, minutes), seconds


def test_a_held_run_a_minute_late_is_not_started_with_a_ten_second_deadline(
    tmp_path: Path,
) -> None:
    """Forbid: the run of 00:05 is held while 00:00's runs to 00:06; at 00:06 it is 60 s late,
    past startingDeadlineSeconds: 10, so Kubernetes skips it; the next starts at 00:10."""
    spec = "schedule: '*/5 * * * *', concurrencyPolicy: Forbid, startingDeadlineSeconds: 10"
    fleet = imported(tmp_path, spec, days=1, duration=6)
    runner = ScenarioRunner(fleet.scenario)
    runner.run()
    started = [e.scheduled for e in runner.engine.log if isinstance(e, ev.AttemptStarted)]
    assert started[:2] == [0, 10]


def test_allow_runs_overlap_on_as_many_workers_as_can_be_active(tmp_path: Path) -> None:
    """The controller's "still active, is time" case: with Allow a new Job starts while the
    last is active. Every minute, 5-minute runs: 5 active at once, each started on time (the
    clock runs a day and a tick)."""
    fleet = imported(tmp_path, "schedule: '* * * * *'", days=1, duration=5)
    assert fleet.scenario.jobs[0].overlap is None
    runner = ScenarioRunner(fleet.scenario)
    runner.run()
    starts = [e for e in runner.engine.log if isinstance(e, ev.AttemptStarted)]
    assert len(starts) == 24 * 60 + 1 and all(e.tick == e.scheduled for e in starts)
    assert len({e.worker_id for e in starts}) == 5 == len(fleet.scenario.workers)
