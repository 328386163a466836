"""``cronlapse import crontab|k8s|systemd FILE...``: a scenario from the fleet a user already has.

Cron, Kubernetes and systemd start every due run at once, with no limit on how many run
together, so the scenario has a worker per job; each run takes one tick (a minute) unless
``--duration`` says otherwise. The clock starts at ``--from`` (a fixed Monday by default, so that
imports are reproducible) and runs ``--days`` days.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from engine.clock import ClockError, parse_time, parse_zone
from engine.importers.crontab import Crontab, CrontabEntry, read_crontab
from engine.importers.files import ImportProblems
from engine.importers.kubernetes import CronJob, read_manifest
from engine.importers.scenario_text import Horizon, ImportedJob, scenario_text
from engine.importers.systemd import Timer, read_timer

DEFAULT_FROM = "2026-01-05T00:00:00"
"""A Monday."""

KINDS = ("crontab", "k8s", "systemd")

_LOCAL_ZONE_NOTE = (
    "Timers without a zone in OnCalendar= run in the machine's zone: here, the clock's.",
)


@dataclass(slots=True)
class _Fleet:
    """What the files held, ready to write."""

    jobs: list[ImportedJob] = field(default_factory=list)
    zones: set[str] = field(default_factory=set)
    header: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    paused: list[int] = field(default_factory=list)
    """Indexes of the jobs paused from the start."""


def add_parsers(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "import",
        help="write a scenario from crontabs, Kubernetes CronJob manifests or systemd timers",
        description="Write a scenario that runs the jobs of crontab files (user crontabs, "
        "/etc/crontab and /etc/cron.d files, which have a user field), of Kubernetes "
        "manifests (their CronJobs) or of systemd .timer units (and the services they start).",
    )
    parser.add_argument("kind", choices=KINDS, help="what the files are")
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    parser.add_argument(
        "--system",
        action="store_true",
        help="crontabs with a user field (guessed for /etc/crontab and /etc/cron.d/*)",
    )
    parser.add_argument("--from", dest="start", default=DEFAULT_FROM, metavar="TIME")
    parser.add_argument("--days", type=int, default=7, help="how many days to simulate (7)")
    parser.add_argument("--duration", type=int, default=1, help="minutes each run takes (1)")
    parser.add_argument(
        "--seed", type=int, default=0, help="draws systemd's RandomizedDelaySec= (0)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    problems = _argument_problems(args)
    fleet = _Fleet()
    for path in args.files:
        try:
            if args.kind == "crontab":
                _add_crontab(fleet, read_crontab(path, True if args.system else None), args)
            elif args.kind == "k8s":
                _add_cronjobs(fleet, path, args)
            else:
                _add_timer(fleet, read_timer(path, args.seed, args.duration), args)
        except ImportProblems as error:
            problems += error.problems
    if problems:
        err.writelines(f"cronlapse import: {problem}\n" for problem in problems)
        return 1
    zone = next(iter(fleet.zones)) if len(fleet.zones) == 1 else "UTC"
    header = [
        f"Imported by `cronlapse import {args.kind}` from " + ", ".join(args.files) + ".",
        "One tick is a minute; every due run starts at once, so each job has a worker.",
        *fleet.header,
        *(_LOCAL_ZONE_NOTE if args.kind == "systemd" else ()),
        *(f"Not imported: {reason}" for reason in fleet.skipped),
    ]
    title = f"{args.kind} " + ", ".join(Path(path).name for path in args.files)
    horizon = Horizon(args.start, zone, args.days)
    text = scenario_text(title, header, horizon, max(len(fleet.jobs), 1), fleet.jobs, fleet.paused)
    err.writelines(f"cronlapse import: not imported: {reason}\n" for reason in fleet.skipped)
    if args.output is None:
        out.write(text)
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as error:
        err.write(f"cronlapse import: cannot write {args.output}: {error.strerror}\n")
        return 1
    out.write(f"wrote {args.output}: {len(fleet.jobs)} jobs\n")
    return 0


def _argument_problems(args: argparse.Namespace) -> list[str]:
    problems = []
    try:
        parse_time(args.start, parse_zone("UTC"), "--from")
    except ClockError as error:
        problems.append(str(error))
    if not 1 <= args.days <= 366 * 10:
        problems.append(f"--days: expected 1 to 3660, got {args.days}")
    if not 1 <= args.duration <= 10**6:
        problems.append(f"--duration: expected 1 to 1000000 minutes, got {args.duration}")
    return problems


def _add_crontab(fleet: _Fleet, crontab: Crontab, args: argparse.Namespace) -> None:
    fleet.header += [
        f"{crontab.path}: {name}={value}" for name, value in crontab.environment.items()
    ]
    fleet.skipped += crontab.skipped
    for entry in crontab.entries:
        fleet.jobs.append(_crontab_job(crontab, entry, args.duration))
        if entry.timezone is not None:
            fleet.zones.add(entry.timezone)


def _crontab_job(crontab: Crontab, entry: CrontabEntry, duration: int) -> ImportedJob:
    keys: dict[str, object] = {"cron": entry.cron}
    if entry.timezone is not None:
        keys["timezone"] = entry.timezone
    keys["duration"] = duration
    keys["payload"] = entry.command
    comments = [f"{crontab.path}:{entry.line}: {entry.source}"]
    if entry.description:
        comments.insert(0, entry.description)
    if entry.user is not None:
        comments.append(f"runs as {entry.user}")
    return ImportedJob(_program(entry.command), keys, tuple(comments))


def _add_cronjobs(fleet: _Fleet, path: str, args: argparse.Namespace) -> None:
    manifest = read_manifest(path)
    fleet.skipped += manifest.skipped
    for cronjob in manifest.cronjobs:
        if cronjob.suspended:
            fleet.paused.append(len(fleet.jobs))
        fleet.jobs.append(_kubernetes_job(path, cronjob, args.duration))
        fleet.zones.add(cronjob.timezone or "UTC")


def _kubernetes_job(path: str, cronjob: CronJob, duration: int) -> ImportedJob:
    keys: dict[str, object] = {"cron": cronjob.cron, "timezone": cronjob.timezone or "UTC"}
    keys["duration"] = duration
    keys["max_retries"] = cronjob.max_retries
    if cronjob.timeout_minutes is not None:
        keys["timeout"] = cronjob.timeout_minutes
    if cronjob.images:
        keys["payload"] = " ".join(cronjob.images)
    where = f"namespace {cronjob.namespace}, " if cronjob.namespace else ""
    comments = [
        f"{path}:{cronjob.line}: CronJob {cronjob.name} ({where}suspended: "
        f"{str(cronjob.suspended).lower()})",
        *cronjob.notes,
    ]
    return ImportedJob(cronjob.name, keys, tuple(comments))


def _add_timer(fleet: _Fleet, timer: Timer, args: argparse.Namespace) -> None:
    fleet.skipped += timer.skipped
    for schedule in timer.schedules:
        keys: dict[str, object] = {}
        if schedule.cron is not None:
            keys["cron"] = schedule.cron
            if schedule.timezone is not None:
                keys["timezone"] = schedule.timezone
                fleet.zones.add(schedule.timezone)
        elif schedule.every is not None:
            keys |= {"every": schedule.every, "first": schedule.first}
        else:
            keys["at"] = schedule.first
        keys["duration"] = args.duration
        if timer.timeout_minutes is not None:
            keys["timeout"] = timer.timeout_minutes
        if timer.persistent:
            keys["catch_up"] = "latest"
        if timer.command is not None:
            keys["payload"] = timer.command
        comments = [
            *([timer.description] if timer.description else []),
            f"{timer.path}:{schedule.line}: {schedule.source}",
            *([f"runs as {timer.user}"] if timer.user else []),
            *(["Persistent=true: catch_up: latest"] if timer.persistent else []),
            "systemd does not start a unit that is still active; cronlapse runs may overlap: "
            "not yet supported",
            *timer.notes,
        ]
        fleet.jobs.append(ImportedJob(timer.name, keys, tuple(comments)))


_SKIPPED_WORDS = frozenset({"&&", "||", ";", "{", "}", "sudo", "nice", "nohup", "exec"})


def _program(command: str) -> str:
    """The name of the program a command runs, for the job's id: the first word that is not
    ``cd DIR``, a ``test ... ||`` guard, an assignment or a shell operator, without its
    directory; ``run-parts DIR`` is named by its directory (``run-parts-cron.daily``)."""
    words = command.replace(";", " ; ").split()
    index = 0
    while index < len(words):
        word = words[index]
        if word == "cd":
            index += 2
        elif word in ("test", "[") and "||" in words[index:]:
            index = words.index("||", index) + 1
        elif word in _SKIPPED_WORDS or "=" in word.split("/")[0]:
            index += 1
        else:
            name = Path(word).name
            arguments = [w for w in words[index + 1 :] if not w.startswith("-")]
            if name == "run-parts" and arguments:
                return f"run-parts-{Path(arguments[0].rstrip(';')).name}"
            return name.split(".")[0] or name
    return "job"
