"""A scenario's fleet written back as the files of the source systems: crontabs, Kubernetes
CronJob manifests, systemd timers and services, or each job as the kind of file it came from.

The one entry point is :func:`write_fleet`, for ``cronlapse export`` and any command that
writes a changed fleet back. Each job that came from a file goes back to that file's text, kept
as written where nothing the format holds has changed (:mod:`cronlapse.exports.fleet_jobs`);
the others are written in a canonical form. Importing the files again gives the same jobs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePath

from cronlapse.exports import cronjob_text, crontab_text, systemd_units
from cronlapse.exports.fleet_jobs import FleetJob, NotExportable, fleet_jobs, schedule_parts
from engine.scenario import Scenario

FORMATS = ("crontab", "k8s", "systemd")
"""The source systems' formats, by ``cronlapse import``'s names for them."""
SOURCE = "source"
"""Each job in the format of the file it came from."""
KEPT: dict[str, frozenset[str]] = {
    "crontab": frozenset({"cron", "daily", "timezone"}),
    "k8s": frozenset({"cron", "daily", "timezone"}),
    "systemd": frozenset({"cron", "daily", "timezone", "catch_up"}),
}
"""The job keys each format writes so that an import reads them back the same: a new schedule
or zone everywhere, a catch-up in a calendar timer (``Persistent=true``, which only
``OnCalendar=`` heeds). What a change to an imported job may set when the fleet goes back to
its files (``cronlapse advise``); the rest (an overlap rule, a start deadline) a format either
cannot say or reads back as another rule of its own (a CronJob's ``Forbid`` is Kubernetes'
``BufferLatest``)."""


@dataclass(frozen=True, slots=True)
class ExportedFleet:
    files: dict[str, str]
    """Each file's text by its path (relative: a directory to write them in is the caller's)."""
    notes: tuple[str, ...] = ()
    """``job: not exported: why`` for each job the format cannot say."""


@dataclass(slots=True)
class _Files:
    """The files being written: crontabs and manifests gather their jobs, units are one per job."""

    crontabs: dict[str, crontab_text.CrontabWriter] = field(default_factory=dict)
    manifests: dict[str, list[str]] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def texts(self) -> dict[str, str]:
        texts = {path: writer.text() for path, writer in self.crontabs.items()}
        texts |= {path: cronjob_text.manifest(docs) for path, docs in self.manifests.items()}
        return texts | self.units


def write_fleet(scenario: Scenario, kind: str) -> ExportedFleet:
    """The files of ``scenario``'s jobs in ``kind`` (one of :data:`FORMATS`, or :data:`SOURCE`
    for each job in its own file's format); jobs the format cannot say are left out, each with
    a note saying why."""
    files = _Files()
    for job in fleet_jobs(scenario):
        if kind == SOURCE and job.source is None:
            files.notes.append(
                f"{job.job_id}: not exported: it came from no file; export it as crontab, k8s "
                "or systemd"
            )
            continue
        format_ = job.source["format"] if kind == SOURCE and job.source else kind
        try:
            _WRITERS[format_](files, job)
        except NotExportable as why:
            files.notes.append(f"{job.job_id}: not exported as {format_}: {why}")
            continue
        if job.paused and format_ != "k8s":
            files.notes.append(
                f"{job.job_id}: written as running: it is paused from the start, which only a "
                "CronJob (spec.suspend) can say"
            )
    return ExportedFleet(files.texts(), tuple(files.notes))


def goes_back(scenario: Scenario) -> bool:
    """Whether every job of ``scenario`` came from a crontab, manifest or timer, so that the
    fleet can be written back as those files (:data:`SOURCE`) with nothing left out."""
    return bool(scenario.jobs) and all(spec.job_id in scenario.sources for spec in scenario.jobs)


def kept_keys(scenario: Scenario) -> dict[str, frozenset[str]] | None:
    """The keys of each job that its file keeps (:data:`KEPT`), when ``scenario`` goes back to
    its files; None when it is a scenario."""
    if not goes_back(scenario):
        return None
    kept = {}
    for job in fleet_jobs(scenario):
        assert job.source is not None  # goes back: every job has one
        keys = KEPT.get(job.source.get("format", ""), frozenset())
        if not _on_calendar(job):
            keys -= {"catch_up"}
        kept[job.job_id] = keys
    return kept


def _on_calendar(job: FleetJob) -> bool:
    try:
        return bool(schedule_parts(job.spec.schedule).crons)
    except NotExportable:
        return False


def _crontab(files: _Files, job: FleetJob) -> None:
    source = job.source_of("crontab")
    path = crontab_text.crontab_path(source["file"]) if source else crontab_text.CANONICAL_FILE
    writer = files.crontabs.get(path) or crontab_text.CrontabWriter()
    writer.add(job)
    files.crontabs[path] = writer


def _k8s(files: _Files, job: FleetJob) -> None:
    source = job.source_of("k8s")
    path = PurePath(source["file"]).name if source else cronjob_text.CANONICAL_FILE
    document = cronjob_text.cronjob_document(job)
    around = source or {}  # the manifest's other documents, kept in place (a ConfigMap...)
    files.manifests.setdefault(path, []).extend(
        text for text in (around.get("before"), document, around.get("after")) if text
    )


def _systemd(files: _Files, job: FleetJob) -> None:
    units = systemd_units.unit_files(job)
    clashes = [name for name, text in units.items() if files.units.get(name, text) != text]
    if clashes:
        raise NotExportable(f"{', '.join(clashes)}: another job's unit has that name")
    files.units |= units


_WRITERS: dict[str, Callable[[_Files, FleetJob], None]] = {
    "crontab": _crontab,
    "k8s": _k8s,
    "systemd": _systemd,
}
