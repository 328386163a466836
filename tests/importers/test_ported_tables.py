"""The Kubernetes CronJob controller's and systemd's own test tables, ported as data
(``tests/data/``): each case cites its file and case name, and the import and the engine must
answer it as the source system's tests do (issue 37, item 6)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from cronlapse.importers.calendar_event import CalendarError, NoCronForm, parse_calendar_event
from cronlapse.importers.fleet import ImportOptions, import_fleet
from engine.model import events as ev
from engine.model.records import OccurrenceState
from engine.scenario import ScenarioRunner, parse_scenario
from engine.schedules.calendar import CronSchedule, DstRule
from engine.schedules.clock import Clock, parse_zone

DATA = Path(__file__).resolve().parents[1] / "data"
KUBERNETES = yaml.safe_load((DATA / "kubernetes_cronjob_cases.yaml").read_text())["cases"]
SYSTEMD = yaml.safe_load((DATA / "systemd_calendarspec_cases.yaml").read_text())
TEMPLATE = "jobTemplate: {spec: {template: {spec: {containers: [{name: c, image: busybox}]}}}}"


@pytest.mark.parametrize("case", KUBERNETES, ids=[case["case"] for case in KUBERNETES])
def test_the_cronjob_controllers_cases(case: dict, tmp_path: Path) -> None:
    spec = f"schedule: '0 * * * *', concurrencyPolicy: {case['policy']}"
    if "deadline" in case:
        spec += f", startingDeadlineSeconds: {case['deadline']}"
    manifest = tmp_path / "cronjob.yaml"
    head = "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: job}\n"
    manifest.write_text(head + f"spec: {{{spec}, {TEMPLATE}}}\n")
    options = ImportOptions(start="2026-01-05T00:30:00", days=8, duration=case.get("duration", 1))
    fleet = import_fleet("k8s", [str(manifest)], options)
    start, now = case["down"]
    text = fleet.text + f"scheduler_down: [{{from: {start}, to: {now}}}]\n"
    runner = ScenarioRunner(parse_scenario(text, "cronjob.yaml"), now)
    runner.run()
    events = [event for event in runner.engine.log if event.tick == now]
    started = [e for e in events if isinstance(e, ev.AttemptStarted)]
    warned = any(isinstance(e, ev.TooManyMissedRuns) for e in events)
    active = runner.engine.query.count_runs(state=OccurrenceState.RUNNING, job_id="job")
    assert (len(started), warned, active) == (case["started"], case["warning"], case["active"])


EVENTS = SYSTEMD["events"]


@pytest.mark.parametrize("case", EVENTS, ids=[case["case"] for case in EVENTS])
def test_systemds_calendar_cases(case: dict) -> None:
    if "refused" in case:
        with pytest.raises(CalendarError, match=case["refused"]) as refused:
            parse_calendar_event(case["input"]).cron()
        assert not isinstance(refused.value, NoCronForm)
        return
    event = parse_calendar_event(case["input"])
    if "not_imported" in case:
        with pytest.raises(NoCronForm) as listed:
            event.cron()
        assert case["not_imported"] in str(listed.value)
        return
    assert event.cron() == case["cron"]
    assert event.timezone == case.get("zone")


ELAPSES = SYSTEMD["elapses"]


@pytest.mark.parametrize("case", ELAPSES, ids=[case["case"] for case in ELAPSES])
def test_systemds_next_elapses_with_its_dst_rule(case: dict) -> None:
    event = parse_calendar_event(case["input"])
    zone = parse_zone(event.timezone or case["zone"])
    after = datetime.fromtimestamp(case["after"] // 1_000_000, UTC)
    clock = Clock(after.replace(second=0), zone, 60)
    schedule = CronSchedule(event.cron(), clock, DstRule.SYSTEMD)
    fire = schedule.first_at_or_after(1)
    assert fire is not None
    assert clock.to_datetime(fire).timestamp() * 1_000_000 == case["expect"]
