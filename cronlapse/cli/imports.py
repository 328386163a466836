"""``cronlapse import crontab|k8s|systemd FILE...``: a scenario from the fleet a user already has
(built by :mod:`cronlapse.importers.fleet`), written to stdout or ``-o FILE``.

Exits 0 when written, 1 when the files have problems (each said at its ``file:line:column``), 2
for a usage error (a wrong option, an output that cannot be written); nothing is written unless
all is well."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from cronlapse.importers.files import ImportProblems
from cronlapse.importers.fleet import DEFAULT_FROM, KINDS, ImportOptions, import_fleet
from engine.schedules.clock import ClockError, parse_time, parse_zone


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
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
        action=argparse.BooleanOptionalAction,
        default=None,
        help="crontabs with a user field, or (--no-system) without one; by default known "
        "from the path (/etc/crontab, /etc/cron.d/*) or from lines that name an account "
        "such as root or www-data where the command would start",
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="model a pool of N workers, where due runs wait for a free one (default: as many "
        "as runs can be active at once, as the source system starts every due run)",
    )
    parser.add_argument(
        "--zone",
        metavar="ZONE",
        help="the zone the source machine runs in: cron reads a line before any CRON_TZ= in it, "
        "systemd an OnCalendar= without a zone (default: UTC, or for timers the clock's)",
    )
    parser.add_argument("--from", dest="start", default=DEFAULT_FROM, metavar="TIME")
    parser.add_argument("--days", type=int, default=7, help="how many days to simulate (7)")
    parser.add_argument("--duration", type=int, default=1, help="minutes each run takes (1)")
    parser.add_argument(
        "--seed", type=int, default=0, help="draws systemd's RandomizedDelaySec= (0)"
    )
    parser.set_defaults(handler=run)


MAX_DAYS = 366 * 10
"""The longest import, ten years: every minute of it is a tick the scenario can play."""
MAX_DURATION_MINUTES = 10**6
"""The longest run, about two years: more than any scheduled job takes, and a whole number of
ticks far below the engine's limit for a duration (10**12)."""
MAX_WORKERS = 10_000
"""The largest pool ``--workers`` models: more than any fleet's busiest minute."""
USAGE = 2
"""The status of a wrong option (``--days 0``, a ``--from`` the fleet's clocks skip) or an output
that cannot be written: the command line is wrong, as every command says with 2."""
PROBLEMS = 1
"""The status of files with problems: nothing is written, every problem of every file is said."""


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # A wrong option is refused before any file is read: imported with it, every job would be
    # refused again in the scenario's words (a --duration 0 once per job, with other limits).
    problems = _option_problems(args)
    if problems:
        err.writelines(f"cronlapse import: {problem}\n" for problem in problems)
        return USAGE
    options = ImportOptions(
        args.start, args.days, args.duration, args.seed, args.workers, args.system, args.zone
    )
    try:
        fleet = import_fleet(args.kind, args.files, options)
    except ImportProblems as error:
        err.writelines(f"cronlapse import: {problem}\n" for problem in error.problems)
        return USAGE if error.usage else PROBLEMS
    err.writelines(f"cronlapse import: not imported: {reason}\n" for reason in fleet.skipped)
    if args.output is None:
        out.write(fleet.text)
        return 0
    try:
        Path(args.output).write_text(fleet.text, encoding="utf-8")
    except OSError as error:
        err.write(f"cronlapse import: cannot write {args.output}: {error.strerror}\n")
        return USAGE
    out.write(f"wrote {args.output}: {fleet.jobs} jobs\n")
    return 0


def _option_problems(args: argparse.Namespace) -> list[str]:
    """What is wrong with ``--from``, ``--days``, ``--duration`` and ``--workers`` on their own,
    each
    ``OPTION: expected ..., got VALUE``. (Whether ``--from`` exists in the fleet's zone, and
    whether ``--days`` from it end before the year 10000, is known once the files are read.)"""
    problems = []
    try:
        parse_time(args.start, parse_zone("UTC"), "--from")
    except ClockError as error:
        problems.append(str(error))
    if not 1 <= args.days <= MAX_DAYS:
        problems.append(
            f"--days: expected a whole number of days from 1 to {MAX_DAYS}, got {args.days}"
        )
    if not 1 <= args.duration <= MAX_DURATION_MINUTES:
        problems.append(
            "--duration: expected a whole number of minutes from 1 to "
            f"{MAX_DURATION_MINUTES}, got {args.duration}"
        )
    if args.zone is not None:
        try:
            parse_zone(args.zone, "--zone")
        except ClockError as error:
            problems.append(str(error))
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        problems.append(
            f"--workers: expected a whole number of workers from 1 to {MAX_WORKERS}, "
            f"got {args.workers}"
        )
    return problems
