"""``cronlapse import crontab|k8s|systemd FILE...``: a scenario from the fleet a user already has
(built by :mod:`engine.importers.fleet`), written to stdout or ``-o FILE``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from engine.clock import ClockError, parse_time, parse_zone
from engine.importers.files import ImportProblems
from engine.importers.fleet import DEFAULT_FROM, KINDS, ImportOptions, import_fleet


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
    options = ImportOptions(
        args.start, args.days, args.duration, args.seed, True if args.system else None
    )
    fleet = None
    try:
        fleet = import_fleet(args.kind, args.files, options)
    except ImportProblems as error:
        problems += error.problems
    if problems or fleet is None:
        # An option's problem is found by its own check and again when the scenario is loaded.
        err.writelines(f"cronlapse import: {problem}\n" for problem in dict.fromkeys(problems))
        return 1
    err.writelines(f"cronlapse import: not imported: {reason}\n" for reason in fleet.skipped)
    if args.output is None:
        out.write(fleet.text)
        return 0
    try:
        Path(args.output).write_text(fleet.text, encoding="utf-8")
    except OSError as error:
        err.write(f"cronlapse import: cannot write {args.output}: {error.strerror}\n")
        return 1
    out.write(f"wrote {args.output}: {fleet.jobs} jobs\n")
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
