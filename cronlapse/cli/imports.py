"""``cronlapse import [KIND] FILE...``: a scenario from the fleet a user already has (built by
:mod:`cronlapse.importers.fleet`), written to stdout or ``-o FILE``, or added to a scenario
(``--into``, :mod:`cronlapse.importers.merge`).

Each file is recognised by its name and content as every command recognises it
(:mod:`cronlapse.sources.recognise`), or named: a kind word (``crontab``, ``k8s``, ``systemd``)
names the kind of the files after it, up to the next kind word, so one command takes a mixed fleet.

Exits 0 when written, 1 when the files have problems (each said at its ``file:line:column``), 2
for a usage error (a wrong option, an output that cannot be written); nothing is written unless
all is well."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from cronlapse.importers.files import ImportProblems, at
from cronlapse.importers.fleet import (
    DEFAULT_FROM,
    KINDS,
    ImportOptions,
    InputFile,
    import_files,
    read_files,
)
from cronlapse.importers.merge import merge_into
from cronlapse.sources.recognise import SourceKind, recognise
from engine.model.problems import Problem
from engine.schedules.clock import ClockError, parse_time, parse_zone


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "import",
        help="write a scenario from crontabs, Kubernetes CronJob manifests and systemd timers",
        description="Write a scenario that runs the jobs of crontab files (user crontabs, "
        "/etc/crontab and /etc/cron.d files, which have a user field), of Kubernetes "
        "manifests (their CronJobs) and of systemd .timer units (and the services they start), "
        "in any mix: each file is recognised by its name and content, or named by a kind word "
        "before it (crontab, k8s, systemd), which holds for the files after it.",
    )
    parser.__class__ = _IntermixedParser
    parser.add_argument(
        "inputs",
        nargs="+",
        metavar="[KIND] FILE",
        help=f"files, each recognised or of the kind ({', '.join(KINDS)}) named before it",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write here (default: stdout, or with --into its scenario; - for stdout)",
    )
    parser.add_argument(
        "--into",
        metavar="SCENARIO",
        help="add the jobs to this scenario (its jobs kept; written back to it unless -o)",
    )
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


class _IntermixedParser(argparse.ArgumentParser):
    """``import``'s parser, which takes its options anywhere among the files: kind words and
    files are one list, which argparse would otherwise end at the first option
    (``cronlapse import crontab --no-system FILE``). The subcommand's parser is made by
    ``add_parser``, whose class cannot be chosen per command, so it is given this class after."""

    mixing = False

    def parse_known_args(  # type: ignore[override]
        self, args: list[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self.mixing:  # parse_known_intermixed_args parses in two passes through this
            return super().parse_known_args(args, namespace)
        self.mixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self.mixing = False


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
        files = input_files(args.inputs)
        if args.into is None:
            fleet = import_files(files, options)
        else:
            fleet = merge_into(args.into, read_files(files, options), options)
    except ImportProblems as error:
        err.writelines(f"cronlapse import: {problem}\n" for problem in error.problems)
        return USAGE if error.usage else PROBLEMS
    err.writelines(f"cronlapse import: renamed: {reason}\n" for reason in fleet.renamed)
    err.writelines(f"cronlapse import: not imported: {reason}\n" for reason in fleet.skipped)
    output = args.output if args.output is not None else args.into
    if output is None or output == "-":
        out.write(fleet.text)
        return 0
    try:
        _write_whole(Path(output), fleet.text)
    except OSError as error:
        err.write(f"cronlapse import: cannot write {output}: {error.strerror}\n")
        return USAGE
    jobs = f"{fleet.jobs} job{'' if fleet.jobs == 1 else 's'}"
    added = f"added {jobs}" if args.into is not None else jobs
    out.write(f"wrote {output}: {added}\n")
    return 0


def _write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: a scenario added to in place is never
    left half-written (the text goes to a file beside it, which then takes its name)."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


_KINDS_BY_SOURCE = {
    SourceKind.CRONTAB: "crontab",
    SourceKind.KUBERNETES: "k8s",
    SourceKind.SYSTEMD: "systemd",
}


def input_files(inputs: list[str]) -> list[InputFile]:
    """The files of ``[KIND] FILE...``: a kind word names the kind of the files after it (up
    to the next one); a file before any is recognised as every command recognises it, and a
    directory is a crontab directory (``/etc/cron.d``). Raises :class:`ImportProblems` for a
    file that is none of the three (exit 1), and for a kind word with no file after it (a
    usage error)."""
    files: list[InputFile] = []
    unknown: list[Problem] = []
    usage: list[Problem] = []
    kind: str | None = None
    named = False
    for word in [*inputs, None]:
        if word is None or word in KINDS:
            if kind is not None and not named:
                usage.append(_kind_without_files(kind))
            kind, named = word, False
            continue
        named = True
        recognised = kind or _recognised(word)
        if kind is None and not Path(word).exists():
            unknown.append(at(word, None, None, _missing(word)))
        elif recognised is None:
            unknown.append(at(word, None, None, _UNRECOGNISED))
        else:
            files.append(InputFile(recognised, word))
    if usage:
        raise ImportProblems(usage, usage=True)
    if unknown:
        raise ImportProblems(unknown)
    return files


_UNRECOGNISED = (
    "not recognised as a crontab, a Kubernetes manifest or a systemd timer: name its kind "
    "before it (" + ", ".join(f"{kind} FILE" for kind in KINDS) + ")"
)


def _recognised(path: str) -> str | None:
    """The kind of the file at ``path``; a directory is a crontab directory (``cron.d``)."""
    if Path(path).is_dir():
        return "crontab"
    return _KINDS_BY_SOURCE.get(recognise(path))


def _missing(word: str) -> str:
    """Why ``word`` is no file to import: it does not exist; a word without a directory or
    an extension (``nomad``) may have been meant as a kind, and the kinds are named."""
    message = "cannot read: No such file or directory"
    if "/" not in word and "." not in word:
        message += f" (nor is it a kind: {', '.join(KINDS)})"
    return message


def _kind_without_files(kind: str) -> Problem:
    return at(kind, None, None, f"expected a FILE after {kind} (a file named {kind}: ./{kind})")


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
