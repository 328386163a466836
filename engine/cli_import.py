"""``cronlapse import crontab FILE...``: a scenario from the fleet a user already has.

Cron starts every entry's command when it is due, with no limit on how many run at once, so the
scenario has a worker per job; each run takes one tick (a minute) unless ``--duration`` says
otherwise. The clock starts at ``--from`` (a fixed Monday by default, so that imports are
reproducible) and runs ``--days`` days.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from engine.clock import ClockError, parse_time, parse_zone
from engine.importers.crontab import Crontab, CrontabEntry, read_crontab
from engine.importers.files import ImportProblems
from engine.importers.scenario_text import Horizon, ImportedJob, scenario_text

DEFAULT_FROM = "2026-01-05T00:00:00"
"""A Monday."""


def add_parsers(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "import",
        help="write a scenario from a crontab",
        description="Write a scenario that runs the jobs of crontab files (user crontabs, "
        "/etc/crontab and /etc/cron.d files, which have a user field).",
    )
    parser.add_argument("kind", choices=["crontab"], help="what the files are")
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")
    parser.add_argument(
        "--system",
        action="store_true",
        help="the files have a user field (guessed for /etc/crontab and /etc/cron.d/*)",
    )
    parser.add_argument("--from", dest="start", default=DEFAULT_FROM, metavar="TIME")
    parser.add_argument("--days", type=int, default=7, help="how many days to simulate (7)")
    parser.add_argument("--duration", type=int, default=1, help="minutes each run takes (1)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    problems = _argument_problems(args)
    crontabs: list[Crontab] = []
    for path in args.files:
        try:
            crontabs.append(read_crontab(path, True if args.system else None))
        except ImportProblems as error:
            problems += error.problems
    if problems:
        err.writelines(f"cronlapse import: {problem}\n" for problem in problems)
        return 1
    zones = {entry.timezone for c in crontabs for entry in c.entries} - {None}
    zone = zones.pop() if len(zones) == 1 else "UTC"
    jobs = [_job(c, entry, args.duration) for c in crontabs for entry in c.entries]
    header = [
        "Imported by `cronlapse import crontab` from " + ", ".join(args.files) + ".",
        "One tick is a minute; cron runs every due command at once, so each job has a worker.",
    ]
    for crontab in crontabs:
        header += [f"{crontab.path}: {name}={value}" for name, value in crontab.environment.items()]
        header += [f"Not imported: {reason}" for reason in crontab.skipped]
    title = "crontab " + ", ".join(Path(path).name for path in args.files)
    text = scenario_text(
        title, header, Horizon(args.start, zone, args.days), max(len(jobs), 1), jobs
    )
    for crontab in crontabs:
        err.writelines(f"cronlapse import: not imported: {reason}\n" for reason in crontab.skipped)
    if args.output is None:
        out.write(text)
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as error:
        err.write(f"cronlapse import: cannot write {args.output}: {error.strerror}\n")
        return 1
    out.write(f"wrote {args.output}: {len(jobs)} jobs\n")
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


def _job(crontab: Crontab, entry: CrontabEntry, duration: int) -> ImportedJob:
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
