"""What the fleet exporters read of a scenario's job: its schedule in parts, whether it is paused
from the start, and, for an imported job, its ``source:`` and what changed since the import.

A job imported from a crontab, a CronJob or a timer keeps its source text and the keys it was
imported with (:mod:`cronlapse.importers.fleet`). The job as the scenario now has it is compared
with the job those keys make, field by field: an exporter writes the source text back as it was
when nothing its format holds has changed, and otherwise changes only what did.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from engine.model.commands import PauseJob
from engine.model.records import JobSpec
from engine.scenario import Scenario, ScenarioInvalid, parse_scenario
from engine.scenario.yaml_text import flow
from engine.schedules.calendar import CronSchedule
from engine.schedules.clock import Clock
from engine.schedules.kinds import AnyOf, Every, Once, Repeating, Schedule


class NotExportable(ValueError):
    """A job the format cannot say: the message says what it cannot say."""


@dataclass(frozen=True, slots=True)
class ScheduleParts:
    """A job's schedule as the source systems write one."""

    crons: tuple[str, ...] = ()
    zone: str | None = None
    """The zone the cron expressions are read in."""
    first: int | None = None
    """A first run at this tick (a timer's ``OnBootSec=``; with ``every``, ``@every``)."""
    every: int | None = None
    """Runs every so many ticks from ``first``."""
    repeat: int | None = None
    """Again every so many ticks after each run (``OnUnitActiveSec=``)."""


@dataclass(frozen=True, slots=True)
class FleetJob:
    spec: JobSpec
    paused: bool
    """Paused at tick 0 (a suspended CronJob)."""
    source: dict[str, str] | None
    imported: JobSpec | None
    """The job its source's keys make, None without a source (or with one that no longer
    loads)."""
    imported_paused: bool = False

    @property
    def job_id(self) -> str:
        return self.spec.job_id

    def source_of(self, kind: str) -> dict[str, str] | None:
        """The source, if the job came from a file of ``kind``."""
        return self.source if self.source and self.source.get("format") == kind else None

    def changed(self, *names: str) -> set[str]:
        """Which of the JobSpec fields ``names`` (and ``paused``) differ from the import; every
        one of them without an import to compare with."""
        if self.imported is None:
            return set(names)
        found = {name for name in names if name != "paused" and _differs(self, name)}
        if "paused" in names and self.paused != self.imported_paused:
            found.add("paused")
        return found


def _differs(job: FleetJob, name: str) -> bool:
    return getattr(job.spec, name) != getattr(job.imported, name)


def fleet_jobs(scenario: Scenario) -> list[FleetJob]:
    """The scenario's jobs, in order, as the exporters read them."""
    paused = {
        entry.action.job_id
        for entry in scenario.timeline
        if entry.tick == 0 and isinstance(entry.action, PauseJob)
    }
    jobs = []
    for spec in scenario.jobs:
        source = scenario.sources.get(spec.job_id)
        imported = _imported(source, spec, scenario.clock)
        was_paused = bool(source and source.get("suspended") == "true")
        jobs.append(FleetJob(spec, spec.job_id in paused, source, imported, was_paused))
    return jobs


def _imported(source: dict[str, str] | None, spec: JobSpec, clock: Clock | None) -> JobSpec | None:
    """The job the source's ``imported`` keys make on the scenario's clock, with the job's own
    duration (which no source file holds); None if there is none, or it does not load."""
    if source is None or "imported" not in source or clock is None:
        return None
    try:
        keys = json.loads(source["imported"])
    except ValueError:
        return None
    if not isinstance(keys, dict):
        return None
    epoch = clock.epoch.replace(tzinfo=None).isoformat()
    items = ", ".join(f"{key}: {flow(value)}" for key, value in keys.items())
    text = (
        f"scenario: imported\nclock: {{epoch: {flow(epoch)}, timezone: {flow(clock.zone.key)}, "
        f"tick: {clock.tick_seconds}}}\njobs:\n"
        f"  - {{id: {flow(spec.job_id)}, duration: {spec.duration}, {items}}}\n"
    )
    try:
        loaded = parse_scenario(text, "<imported>")
    except ScenarioInvalid:
        return None
    return loaded.jobs[0] if loaded.jobs else None


def schedule_parts(schedule: Schedule) -> ScheduleParts:
    """``schedule`` in parts; :class:`NotExportable` for one no source system writes (a union
    of cron expressions in several zones, repeats of repeats)."""
    if isinstance(schedule, CronSchedule):
        return ScheduleParts((schedule.cron,), schedule.clock.zone.key)
    if isinstance(schedule, Every):
        return ScheduleParts(first=schedule.first, every=schedule.interval)
    if isinstance(schedule, Once):
        return ScheduleParts(first=schedule.at)
    if isinstance(schedule, Repeating):
        anchors = schedule_parts(schedule.anchors)
        if anchors.every is not None or anchors.repeat is not None:
            raise NotExportable(f"a schedule of repeats of repeats ({schedule.describe()})")
        return ScheduleParts(anchors.crons, anchors.zone, anchors.first, repeat=schedule.interval)
    if isinstance(schedule, AnyOf):
        crons: list[str] = []
        zones = set()
        first = None
        for part in schedule.parts:
            if isinstance(part, CronSchedule):
                crons.append(part.cron)
                zones.add(part.clock.zone.key)
            elif isinstance(part, Once) and first is None:
                first = part.at
            else:
                raise NotExportable(f"a union with {part.describe()}")
        if len(zones) > 1:
            raise NotExportable("cron expressions in several zones in one job")
        return ScheduleParts(tuple(crons), next(iter(zones), None), first)
    raise NotExportable(f"the schedule {schedule.describe()}")
