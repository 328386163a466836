"""An imported fleet: the jobs of crontabs, CronJob manifests and systemd timers, as scenario text.

The files may be of different kinds (a crontab, the CronJobs of a cluster and the timers of a
machine run side by side in real fleets): their jobs go into one scenario, each id unique
across the files (:func:`fleet_ids`).

Cron, Kubernetes and systemd start every due run when it falls due, with no limit on how many
run together, so the scenario has as many workers as runs can be active at once
(:mod:`cronlapse.importers.pool`), unless ``workers`` asks for a limited pool; each run takes
``duration`` minutes (a tick is a minute). The clock starts at ``start`` (a fixed Monday by
default, so that imports are reproducible) and runs ``days`` days. ``cronlapse import`` writes
the text; ``check``, ``run`` and ``tui`` build it on the fly for a file they recognise
(:mod:`cronlapse.sources`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from cronlapse.importers.command_name import command_name
from cronlapse.importers.crontab import Crontab, CrontabEntry, crontab_files, read_crontab
from cronlapse.importers.files import ImportProblems, at
from cronlapse.importers.kubernetes import CronJob, documents, read_manifest
from cronlapse.importers.pool import Pool, workers_needed
from cronlapse.importers.scenario_text import (
    Horizon,
    ImportedJob,
    Origin,
    id_base,
    job_lines,
    scenario_text,
    suffixed,
)
from cronlapse.importers.systemd import Timer, TimerSchedule, read_timer
from engine.model.problems import Problem
from engine.scenario import Scenario, ScenarioInvalid, parse_scenario
from engine.scenario.jobs import SOURCE_KEY
from engine.schedules.calendar import NeverFires, ScheduleError, parse_schedule_expression

DEFAULT_FROM = "2026-01-05T00:00:00"
"""A Monday."""

KINDS = ("crontab", "k8s", "systemd")


@dataclass(frozen=True, slots=True)
class InputFile:
    """A file to import and what it is (one of :data:`KINDS`), recognised or named."""

    kind: str
    path: str


_SYSTEMD_NOTES = (
    "Timers without a zone in OnCalendar= run in the machine's zone: here, the clock's.",
    "Drop-ins are read from NAME.timer.d/ and NAME.service.d/ next to each timer (and a "
    "template's PREFIX@.service.d/); those in other unit directories (/etc/systemd/system, "
    "/run/systemd/system) are not seen.",
)


@dataclass(frozen=True, slots=True)
class ImportOptions:
    start: str = DEFAULT_FROM
    days: int = 7
    duration: int = 1
    """Minutes each run takes."""
    seed: int = 0
    """Draws systemd's ``RandomizedDelaySec=``."""
    workers: int | None = None
    """A limited pool to model; None: as many workers as runs can be active at once."""
    system: bool | None = None
    """Crontabs with a user field; None: known from the path (``/etc/crontab``, ``cron.d``)
    or the lines (:func:`~cronlapse.importers.crontab.parse_crontab`)."""
    zone: str | None = None
    """The zone the source machine runs in, which cron reads a line before any ``CRON_TZ=`` in
    and systemd an event without a zone in; None: UTC for cron, the clock's zone for systemd."""


@dataclass(frozen=True, slots=True)
class ImportedFleet:
    text: str
    """The scenario."""
    jobs: int
    skipped: tuple[str, ...]
    """``file:line: why`` for what could not be imported."""
    scenario: Scenario
    """The text, loaded: an import that would not load is refused."""
    renamed: tuple[str, ...] = ()
    """``file:line: why`` for each job whose id another file's job had taken."""


@dataclass(slots=True)
class ReadFleet:
    """What the files held, ready to write as a scenario (or to add to one)."""

    files: list[InputFile]
    jobs: list[ImportedJob] = field(default_factory=list)
    zones: set[str] = field(default_factory=set)
    header: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    paused: list[int] = field(default_factory=list)
    """Indexes of the jobs paused from the start."""
    renamed: list[str] = field(default_factory=list)
    """``file:line: why`` for each job whose id was taken by a job of another file."""
    job_kinds: list[str] = field(default_factory=list)
    """The kind of file each job came from."""

    @property
    def kinds(self) -> list[str]:
        """The kinds of the files, each once, in :data:`KINDS` order."""
        given = {file.kind for file in self.files}
        return [kind for kind in KINDS if kind in given]


def import_fleet(kind: str, paths: list[str], options: ImportOptions) -> ImportedFleet:
    """The scenario for the files at ``paths``, all of ``kind`` (see :func:`import_files`)."""
    return import_files([InputFile(kind, path) for path in paths], options)


def import_files(files: list[InputFile], options: ImportOptions) -> ImportedFleet:
    """The scenario for ``files``, of one kind or several; raises :class:`ImportProblems` with
    every problem of every file."""
    fleet = read_files(files, options)
    kinds = fleet.kinds
    paths = [file.path for file in files]
    zone = next(iter(fleet.zones)) if len(fleet.zones) == 1 else "UTC"
    title = " + ".join(kinds) + " " + ", ".join(Path(path).name for path in paths)
    horizon = Horizon(options.start, zone, options.days)
    source = paths[0] if len(paths) == 1 else "<import>"
    command = f"cronlapse import {kinds[0]}" if len(kinds) == 1 else "cronlapse import"

    def written(workers: int, pool_line: str) -> tuple[str, Scenario]:
        header = [
            f"Imported by `{command}` from " + ", ".join(paths) + ".",
            pool_line,
            *fleet.header,
            *(_systemd_notes(options) if "systemd" in kinds else ()),
            *(f"Renamed: {reason}" for reason in fleet.renamed),
            *(f"Not imported: {reason}" for reason in fleet.skipped),
        ]
        text = scenario_text(title, header, horizon, workers, fleet.jobs, fleet.paused)
        try:
            return text, parse_scenario(text, source)
        except ScenarioInvalid as invalid:
            raise load_problems(invalid, text, fleet.jobs, options) from None

    # The pool is sized from the jobs as the scenario reads them, so the text is written twice.
    _, sized = written(1, "")
    pool = workers_needed(sized.jobs, horizon.days * 1440)
    workers = pool.workers if options.workers is None else options.workers
    text, scenario = written(workers, pool_line(kinds, pool, options))
    return ImportedFleet(
        text, len(fleet.jobs), tuple(fleet.skipped), scenario, tuple(fleet.renamed)
    )


def read_files(files: list[InputFile], options: ImportOptions) -> ReadFleet:
    """The jobs of ``files``, with their ids made unique across them (:func:`fleet_ids`);
    raises :class:`ImportProblems` with every problem of every file."""
    problems: list[Problem] = []
    fleet = ReadFleet(list(files))
    not_imported: dict[str, list[str]] = {}
    kinds: list[str] = []
    for given in files:
        jobs, skipped = len(fleet.jobs), len(fleet.skipped)
        paths = [given.path]
        if given.kind == "crontab":
            paths, unread = crontab_files([given.path])
            fleet.skipped += unread
        try:
            for path in paths:
                _add_file(fleet, given.kind, path, options)
        except ImportProblems as error:
            problems += error.problems
            continue
        kinds += [given.kind] * (len(fleet.jobs) - jobs)
        not_imported[given.path] = fleet.skipped[skipped:]
        if len(fleet.jobs) == jobs and not not_imported[given.path]:
            problems.append(_nothing_to_import(given.path, _NONE_FOUND[given.kind]))
    if not problems and not fleet.jobs:
        problems = [
            _nothing_to_import(given, "; ".join(f"not imported: {why}" for why in reasons))
            for given, reasons in not_imported.items()
        ]
    if problems:
        raise ImportProblems(problems)
    fleet.job_kinds = kinds
    ids, fleet.renamed = fleet_ids(fleet.jobs, kinds)
    fleet.jobs = [replace(job, name=job_id) for job_id, job in zip(ids, fleet.jobs, strict=True)]
    return fleet


_ID_SUFFIX = {"crontab": "cron", "k8s": "k8s", "systemd": "systemd"}
"""What an id taken by a job of another kind is followed by: ``backup`` of a crontab and
``backup`` of a timer are ``backup`` and ``backup-systemd``."""


def fleet_ids(jobs: list[ImportedJob], kinds: list[str]) -> tuple[list[str], list[str]]:
    """The jobs' ids, unique across the files, and ``file:line: why`` for each job whose id a
    job of another file had taken first. Repeats in one file are ``-2``, ``-3``... (a crontab
    that runs one program twice); a clash with another file's job adds the job's kind
    (``-systemd``) when the two are of different kinds, else the next number: deterministic,
    as the files are read in the order given."""
    taken: dict[str, tuple[ImportedJob, str]] = {}
    """Each id given, with its job and the job's kind."""
    counts: dict[str, int] = {}
    ids: list[str] = []
    renamed: list[str] = []
    for job, kind in zip(jobs, kinds, strict=True):
        base = id_base(job.name)
        if base not in taken:
            job_id = base
        else:
            first, first_kind = taken[base]
            stem = suffixed(base, _ID_SUFFIX[kind]) if first_kind != kind else base
            job_id = stem
            while job_id in taken:
                counts[stem] = counts.get(stem, 1) + 1
                job_id = suffixed(stem, str(counts[stem]))
            if first.origin.path != job.origin.path:
                renamed.append(
                    f"{job.origin.path}:{job.origin.line}: id {job_id}: {base} is already "
                    f"the id of {first.origin.path}:{first.origin.line}"
                )
        taken[job_id] = (job, kind)
        ids.append(job_id)
    return ids, renamed


def _systemd_notes(options: ImportOptions) -> tuple[str, ...]:
    if options.zone is None:
        return _SYSTEMD_NOTES
    zone = (
        f"Timers without a zone in OnCalendar= run in the machine's zone: {options.zone} (--zone)."
    )
    return (zone, *_SYSTEMD_NOTES[1:])


_STARTER = {"crontab": "cron", "k8s": "the CronJob controller", "systemd": "systemd"}


def pool_line(kinds: list[str], pool: Pool, options: ImportOptions) -> str:
    """The header's word on the workers: as many as the source systems run at once, or the
    pool ``--workers`` asked for and what the source systems would run."""
    starters = [_STARTER[kind] for kind in kinds]
    who = starters[0] if len(starters) == 1 else ", ".join(starters[:-1]) + " and " + starters[-1]
    starts = f"{who} {'starts' if len(starters) == 1 else 'start'} every due run when it falls due"
    most = "" if pool.exact else "at most "
    if options.workers is not None:
        return (
            f"One tick is a minute; --workers {options.workers} models a pool of "
            f"{options.workers}: due runs wait for a free worker, where {starts} (it would need "
            f"{most}{pool.workers} at once)."
        )
    bound = "" if pool.exact else " (a bound: the jobs that fire most are counted at their most)"
    return (
        f"One tick is a minute; {starts}, so the scenario has as many workers as runs can be "
        f"active at once: {pool.workers}, from the schedules and runs of {options.duration} "
        f"min{bound}."
    )


def _add_file(fleet: ReadFleet, kind: str, path: str, options: ImportOptions) -> None:
    if kind == "crontab":
        _add_crontab(fleet, read_crontab(path, options.system), options)
    elif kind == "k8s":
        _add_cronjobs(fleet, path, options)
    else:
        _add_timer(fleet, read_timer(path, options.seed, options.duration), options)


_NONE_FOUND = {"crontab": "no crontab entry", "k8s": "no CronJob", "systemd": "no schedule"}


def _nothing_to_import(path: str, why: str) -> Problem:
    """The problem of an input with nothing to import: a file left empty or a crontab's
    template is bad input, not a fleet of no jobs; so is a fleet whose every entry is listed as
    not imported (a timer among others that cannot be is listed, and the others imported)."""
    return at(path, None, None, f"nothing to import: {why}")


def load_problems(
    invalid: ScenarioInvalid, text: str, jobs: list[ImportedJob], options: ImportOptions
) -> ImportProblems:
    """The problems of a scenario that would not load, at their source: a job's at the line it
    came from, the clock's at the option that set it (then a usage error). Each importer checks
    what its format allows; these are the rest (a February 30th, a run past the year 9999)."""
    job_at = dict(zip(job_lines(text), jobs, strict=True))
    problems = []
    usage = False
    for problem in invalid.problems:
        job = None if problem.line is None else job_at.get(problem.line)
        if job is not None:
            key = problem.path.rpartition(".")[2]
            problems.append(job.origin.problem(f"cannot be simulated: {key}: {problem.message}"))
        elif problem.path == "clock.epoch":
            problems.append(at("--from", None, None, problem.message))
            usage = True
        elif problem.path == "clock.until":
            message = (
                f"{options.days} days from {options.start} run past the year 9999: "
                "expected fewer days or an earlier --from"
            )
            problems.append(at("--days", None, None, message))
            usage = True
        else:
            problems.append(at("the scenario it would write", None, None, str(problem)))
    return ImportProblems(problems, usage)


CRON_ZONE = "UTC"
"""cron's own zone, the machine's, for entries with no ``CRON_TZ=`` before them: a crontab does
not say it, so the import takes UTC (and the clock is in it unless every entry has one zone)."""


def _add_crontab(fleet: ReadFleet, crontab: Crontab, options: ImportOptions) -> None:
    """The crontab's jobs, and a header line per zone saying which entries fire in it: an entry
    before any ``CRON_TZ=`` keeps cron's own zone, not the one of the entries after it."""
    fleet.header += crontab.notes
    fleet.header += [
        f"{crontab.path}: {name}={value}" for name, value in crontab.environment.items()
    ]
    fleet.skipped += crontab.skipped
    lines: dict[str | None, list[int]] = {}
    machine = options.zone or CRON_ZONE
    unwritten = ""
    """The text of entries not imported since the last job, kept with the next job's."""
    last: ImportedJob | None = None
    for entry in crontab.entries:
        job = _crontab_job(crontab, entry, options.duration, unwritten, options.zone)
        if _admit(fleet, job):
            fleet.zones.add(entry.timezone or machine)
            lines.setdefault(entry.timezone, []).append(entry.line)
            unwritten, last = "", job
        else:
            unwritten += entry.text + "\n"
    if last is not None and (unwritten or crontab.after):
        last.keys[SOURCE_KEY]["after"] = unwritten + crontab.after  # type: ignore[index]
    for zone, numbers in lines.items():
        which = (
            f"line {numbers[0]} fires" if len(numbers) == 1 else f"lines {_listed(numbers)} fire"
        )
        why = (
            f"CRON_TZ={zone}"
            if zone is not None
            else f"no CRON_TZ= before it: cron's own zone, the machine's, taken as {machine}"
        )
        fleet.header.append(f"{crontab.path}: {which} in {zone or machine} ({why})")


def _listed(numbers: list[int]) -> str:
    return ", ".join(str(number) for number in numbers)


def _admit(fleet: ReadFleet, job: ImportedJob) -> bool:
    """Add ``job`` unless its schedule never fires (see :class:`NeverFires`): then it is listed
    as not imported, as ``@reboot`` is, rather than refusing the whole fleet for a line its
    scheduler runs without complaint."""
    cron = job.keys.get("cron")
    if isinstance(cron, str):
        try:
            parse_schedule_expression(cron)
        except NeverFires as never:
            fleet.skipped.append(f"{job.origin}: never fires: {never}")
            return False
        except ScheduleError:
            pass  # loading the scenario names it at its source (_load_problems)
    fleet.jobs.append(job)
    return True


def _crontab_job(
    crontab: Crontab,
    entry: CrontabEntry,
    duration: int,
    unwritten: str,
    machine: str | None = None,
) -> ImportedJob:
    """The job of a crontab entry; ``unwritten``: the text of the entries before it that were
    not imported, written back before it; ``machine``: the zone of an entry without
    ``CRON_TZ=`` (the source machine's, when the import is told it)."""
    keys: dict[str, object] = {"cron": entry.cron}
    if entry.timezone is not None or machine is not None:
        keys["timezone"] = entry.timezone or machine
    keys["duration"] = duration
    keys["payload"] = entry.command
    user = {"user": entry.user} if entry.user is not None else {}
    _add_source(keys, "crontab", crontab.path, entry.line, text=unwritten + entry.text, **user)
    comments = [f"{crontab.path}:{entry.line}: {entry.source}"]
    if entry.description:
        comments.insert(0, entry.description)
    if entry.user is not None:
        comments.append(f"runs as {entry.user}")
    origin = Origin(crontab.path, entry.line, entry.source)
    return ImportedJob(command_name(entry.shell_text), keys, tuple(comments), origin)


def _add_cronjobs(fleet: ReadFleet, path: str, options: ImportOptions) -> None:
    manifest = read_manifest(path)
    fleet.skipped += manifest.skipped
    admitted: list[tuple[int, ImportedJob]] = []
    for cronjob in manifest.cronjobs:
        job = _kubernetes_job(path, cronjob, options.duration)
        if not _admit(fleet, job):
            continue
        admitted.append((cronjob.line, job))
        if cronjob.suspended:
            fleet.paused.append(len(fleet.jobs) - 1)
        fleet.zones.add(cronjob.timezone or "UTC")
    _keep_other_documents(manifest.text, admitted)


def _keep_other_documents(text: str, admitted: list[tuple[int, ImportedJob]]) -> None:
    """Keep the manifest's documents that hold no imported CronJob (a ConfigMap, a Deployment,
    a CronJob not imported) in the source of the job before them (``after``), or of the first
    job for those before any (``before``), so that the exporter writes them back in place."""
    if not admitted:
        return
    kept: dict[tuple[int, str], list[str]] = {}
    for document in documents(text):
        if any(document.first <= line <= document.last for line, _ in admitted):
            continue
        earlier = [index for index, (line, _) in enumerate(admitted) if line < document.first]
        place = (earlier[-1], "after") if earlier else (0, "before")
        kept.setdefault(place, []).append(document.text)
    for (index, key), texts in kept.items():
        admitted[index][1].keys[SOURCE_KEY][key] = "\n---\n".join(texts)  # type: ignore[index]


KUBERNETES_MAX_MISSED = 100
"""Past 100 missed schedules the CronJob controller warns (TooManyMissedTimes) and still starts
the most recent."""
_FORBID_NOTE = (
    "concurrencyPolicy: Forbid: overlap: BufferLatest, the newest schedule missed while a Job "
    "is active starts when it ends",
)


def _kubernetes_job(path: str, cronjob: CronJob, duration: int) -> ImportedJob:
    keys: dict[str, object] = {}
    if cronjob.every is not None:
        # robfig/cron's @every counts from the CronJob's creation: the clock's start here.
        keys |= {"every": cronjob.every, "first": cronjob.every}
    else:
        keys |= {"cron": cronjob.cron, "timezone": cronjob.timezone or "UTC"}
        keys["dst"] = "kubernetes"  # robfig/cron: a time in the gap is skipped, a repeat runs twice
    keys["duration"] = duration
    keys["max_retries"] = cronjob.max_retries
    if cronjob.run_timeout_minutes is not None:
        # activeDeadlineSeconds: the whole Job's limit, over backoffLimit (docs/semantics.md).
        keys["run_timeout"] = cronjob.run_timeout_minutes
    if cronjob.images:
        keys["payload"] = " ".join(cronjob.images)
    if cronjob.concurrency == "Forbid":
        # The controller keeps the newest missed schedule for when the active Job ends, if
        # still within startingDeadlineSeconds (docs/semantics.md, BufferLatest).
        keys["overlap"] = "BufferLatest"
        if cronjob.starting_deadline_minutes is not None:
            keys["start_deadline"] = cronjob.starting_deadline_minutes
    elif cronjob.concurrency == "Replace":
        keys["overlap"] = "Replace"
    # The CronJob controller after missed schedules: the latest only, if within the starting
    # deadline, with a warning after more than 100 (docs/semantics.md).
    keys["catch_up"] = "latest"
    if cronjob.starting_deadline_minutes is not None:
        keys["catch_up_window"] = cronjob.starting_deadline_minutes
    keys["max_missed"] = KUBERNETES_MAX_MISSED
    _add_source(keys, "k8s", path, cronjob.line, text=cronjob.text)
    if cronjob.suspended:
        keys[SOURCE_KEY]["suspended"] = "true"  # type: ignore[index]
    where = f"namespace {cronjob.namespace}, " if cronjob.namespace else ""
    comments = [
        f"{path}:{cronjob.line}: CronJob {cronjob.name} ({where}suspended: "
        f"{str(cronjob.suspended).lower()})",
        *(_FORBID_NOTE if cronjob.concurrency == "Forbid" else ()),
        *cronjob.notes,
    ]
    origin = Origin(path, cronjob.line, f"CronJob {cronjob.name}")
    return ImportedJob(cronjob.name, keys, tuple(comments), origin)


def _add_timer(fleet: ReadFleet, timer: Timer, options: ImportOptions) -> None:
    """One job for the timer, whatever its triggers: systemd.timer(5) starts its one unit at the
    earliest of them, so their union is its schedule (``cron`` as a list, with ``first`` for the
    boot trigger and ``repeat`` for ``OnUnitActiveSec=``), under one overlap rule and one
    catch-up. A job per trigger would start two runs where two fire together."""
    fleet.skipped += timer.skipped
    calendars = [s for s in timer.schedules if s.cron is not None and _fires(fleet, timer, s)]
    monotonic = next((s for s in timer.schedules if s.cron is None), None)
    keys: dict[str, object] = {}
    if calendars:
        calendars = [s if s.timezone else replace(s, timezone=options.zone) for s in calendars]
        zone = calendars[0].timezone
        for other in [s for s in calendars if s.timezone != zone]:
            calendars.remove(other)
            fleet.skipped.append(
                f"{_where(other)}: {other.source}: not yet supported: a second zone in one "
                f"timer (its other lines are in {zone or 'the machine zone'})"
            )
        crons = [s.cron for s in calendars]
        keys["cron"] = crons[0] if len(crons) == 1 else crons
        if zone is not None:
            keys["timezone"] = zone
            fleet.zones.add(zone)
        if monotonic is not None and monotonic.first is not None:
            keys["first"] = monotonic.first
        if monotonic is not None and monotonic.every is not None:
            keys["repeat"] = monotonic.every
        keys["dst"] = "systemd"  # a time in the gap is skipped, a repeated one runs once
    elif monotonic is not None and monotonic.first is not None:
        if monotonic.every is not None:
            keys |= {"every": monotonic.every, "first": monotonic.first}
        else:
            keys["at"] = monotonic.first
    else:
        if monotonic is not None:  # its calendar lines never fire: nothing starts the unit
            fleet.skipped.append(
                f"{_where(monotonic)}: {monotonic.source}: never elapses: the OnCalendar= "
                "lines it counts from are not imported, and nothing else starts the unit"
            )
        return
    keys["duration"] = options.duration
    if timer.timeout_minutes is not None:
        keys["timeout"] = timer.timeout_minutes
    if timer.persistent and calendars:  # systemd.timer(5): Persistent= needs OnCalendar=
        keys["catch_up"] = "latest"
    keys["overlap"] = "Forbid"  # a unit still active is not started again
    if timer.command is not None:
        keys["payload"] = timer.command
    triggers = [*calendars, *([monotonic] if monotonic is not None else [])]
    files = json.dumps(timer.files, ensure_ascii=False)
    _add_source(keys, "systemd", timer.path, triggers[0].line, files=files)
    comments = [
        *([timer.description] if timer.description else []),
        *(f"{_where(s)}: {s.source}" for s in triggers),
        *(
            ["one job: systemd starts the unit once at the earliest trigger"]
            if len(triggers) > 1
            else []
        ),
        *([f"runs as {timer.user}"] if timer.user else []),
        *([_persistent(bool(calendars))] if timer.persistent else []),
        "overlap: Forbid: systemd does not start a unit that is still active",
        *timer.notes,
    ]
    origin = Origin(triggers[0].path, triggers[0].line, triggers[0].source)
    fleet.jobs.append(ImportedJob(timer.name, keys, tuple(comments), origin))


def _add_source(keys: dict[str, object], kind: str, path: str, line: int, **texts: str) -> None:
    """Add the job's ``source:``: its kind, file and line, the text it was read from
    (``texts``) and the keys it was imported with (``imported``, JSON), by which an exporter
    knows whether the job has changed since: if not, it writes the text back as it was."""
    imported = {key: value for key, value in keys.items() if key != "duration"}
    keys[SOURCE_KEY] = {
        "format": kind,
        "file": path,
        "line": str(line),
        **texts,
        "imported": json.dumps(imported, ensure_ascii=False),
    }


def _persistent(calendar: bool) -> str:
    """What ``Persistent=true`` does: a catch-up for a calendar timer, nothing for the others."""
    if calendar:
        return "Persistent=true: catch_up: latest"
    return "Persistent=true: no effect without OnCalendar= (no catch-up)"


def _where(schedule: TimerSchedule) -> str:
    return f"{schedule.path}:{schedule.line}"


def _fires(fleet: ReadFleet, timer: Timer, schedule: TimerSchedule) -> bool:
    """Whether an ``OnCalendar=`` line names a date there is; if not, it is listed as not
    imported (see :func:`_admit`) and the timer's other triggers are kept."""
    try:
        parse_schedule_expression(schedule.cron or "")
    except NeverFires as never:
        fleet.skipped.append(f"{_where(schedule)}: {schedule.source}: never fires: {never}")
        return False
    except ScheduleError:
        pass  # loading the scenario names it at its source (_load_problems)
    return True
