"""``cronlapse export``: a played run's attempts as a Perfetto trace or a CSV file, a stretch of a
service's journal as a scenario that replays it (``--scenario --db URL``), or a scenario's jobs
as the files of the source systems (``--fleet crontab|k8s|systemd|source``,
:func:`cronlapse.exports.fleet.write_fleet`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from cronlapse.cli.playing import INVALID, load, load_to_play, plural, runner_for, until_option
from cronlapse.exports.fleet import FORMATS, SOURCE, write_fleet
from cronlapse.exports.timeline import write_csv, write_trace
from engine.scenario import ScriptRun


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """Register ``export`` on ``subparsers``."""
    export = subparsers.add_parser(
        "export",
        help="write the worker timeline as a Perfetto trace or a CSV, a service's journal "
        "as a scenario, or the jobs as crontabs, CronJobs or systemd timers",
        description="Play a scenario and write its attempts: --trace as Chrome trace-event "
        "JSON (open it in ui.perfetto.dev or chrome://tracing), --csv as one row per attempt. "
        "Or, with --scenario --db URL, write a stretch of a service's journal as a scenario "
        "that replays it (docs/incident.md). Or, with --fleet FORMAT, write the scenario's jobs "
        "as crontabs, Kubernetes CronJob manifests or systemd timers and services (source: each "
        "imported job as the kind of file it came from), to the directory -o DIR or to stdout "
        "(docs/importing.md).",
    )
    export.add_argument(
        "file", nargs="?", help="a .yaml scenario or a .txt script (- for standard input)"
    )
    target = export.add_mutually_exclusive_group()
    target.add_argument(
        "--trace", metavar="OUT.json", help="write a Chrome trace-event file (- for stdout)"
    )
    target.add_argument("--csv", metavar="OUT.csv", help="write one row per attempt (- for stdout)")
    target.add_argument(
        "--scenario", action="store_true", help="write a service's journal as a scenario"
    )
    target.add_argument(
        "--fleet",
        choices=(*FORMATS, SOURCE),
        help="write the jobs as the files of a source system (source: each as it came)",
    )
    until_option(export)
    export.add_argument("--db", metavar="URL", help="--scenario: the service's database URL")
    export.add_argument(
        "--from",
        dest="start",
        metavar="T",
        help="--scenario: start at tick T, an ISO time or +N/+2h from the journal's start",
    )
    export.add_argument(
        "--to", dest="end", metavar="T", help="--scenario: end at T (+N/+2h: from the start)"
    )
    export.add_argument(
        "-o",
        dest="output",
        metavar="FILE",
        help="--scenario: write to FILE; --fleet: write the files in this directory (- or none:"
        " standard output)",
    )
    export.set_defaults(handler=export_command)

    return export


def export_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Write the attempts of a full run as a trace or a CSV file (or, with ``--scenario``, a
    service's journal as a scenario)."""
    problem = _export_mode_problem(args)
    if problem is not None:
        err.write(f"cronlapse export: {problem}\n")
        return INVALID
    if args.scenario:
        return export_scenario(args, out, err)
    if args.fleet:
        return export_fleet(args, out, err)
    loaded = load_to_play(args, err)
    if loaded is None:
        return INVALID
    clock = None
    if isinstance(loaded, ScriptRun):
        events, now, tick_seconds, title = (
            list(loaded.engine.log),
            loaded.engine.now,
            1,
            loaded.source,
        )
    else:
        runner = runner_for(loaded, args.until, "export", err)
        if runner is None:
            return INVALID
        runner.run()
        events, now = list(runner.engine.log), runner.processed
        tick_seconds, title, clock = loaded.tick_seconds, loaded.name, loaded.clock
    target = args.trace or args.csv

    def write(handle: TextIO) -> int:
        if args.trace:
            return write_trace(events, now, tick_seconds, title, handle)
        return write_csv(events, handle, clock)

    if target == "-":  # standard output, as for sweep's outputs: the file alone, no message
        write(out)
        return 0
    try:
        with open(target, "w", encoding="utf-8", newline="") as handle:
            count = write(handle)
    except OSError as error:
        err.write(f"cronlapse export: cannot write {target}: {error.strerror}\n")
        return INVALID
    out.write(f"wrote {plural(count, 'attempt')} to {target}\n")
    return 0


def _export_mode_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the mix of options given to ``export``, if anything."""
    journal = [args.db, args.start, args.end, args.output]
    if args.fleet:
        if args.file is None:
            return "--fleet needs the FILE whose jobs to write"
        if any(value is not None for value in journal[:3]) or args.until is not None:
            return "--fleet writes a scenario's jobs: --db, --from, --to and --until do not apply"
        return None
    if args.scenario:
        if args.file is not None or args.until is not None:
            return "--scenario reads a service's journal (--db URL, --from, --to), not a FILE"
        return None if args.db is not None else "--scenario needs --db URL"
    if any(value is not None for value in journal):
        return "--db, --from, --to and -o go with --scenario (-o with --fleet too)"
    if not (args.trace or args.csv):
        return "expected --trace OUT.json, --csv OUT.csv, --fleet FORMAT or --scenario --db URL"
    if args.file is None:
        return "--trace and --csv need the FILE to play"
    return None


def export_scenario(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``cronlapse export --scenario --db URL``: a stretch of the journal as a scenario."""
    from cronlapse.service.export import ExportError, export_stretch
    from cronlapse.service.store import StoreError, StoreFailure, shown

    try:
        stretch = export_stretch(args.db, args.start, args.end)
    except StoreFailure as error:
        err.write(f"cronlapse export: cannot read {shown(args.db)}: {error.kind}\n")
        return 2
    except (ExportError, StoreError) as error:
        err.write(f"cronlapse export: {error}\n")
        return 2
    if stretch.moved is not None:
        err.write(
            f"cronlapse export: the scenario starts at tick {stretch.start}, the last moment "
            f"before --from with nothing in flight (then: {stretch.moved})\n"
        )
    if args.output in (None, "-"):
        out.write(stretch.text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(stretch.text)
    except OSError as error:
        err.write(f"cronlapse export: cannot write {args.output}: {error.strerror}\n")
        return 2
    out.write(
        f"wrote ticks {stretch.start} to {stretch.end} of {shown(args.db)} to {args.output}\n"
    )
    return 0


def export_fleet(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``cronlapse export --fleet FORMAT FILE [-o DIR]``: the jobs as the source systems' files,
    each file under a ``==> PATH <==`` line on stdout, or written in DIR (all or none)."""
    loaded = load(args.file, err)
    if loaded is None:
        return INVALID
    if isinstance(loaded, ScriptRun):
        err.write(
            f"cronlapse export: {args.file}: --fleet writes a scenario's jobs, not a script's\n"
        )
        return INVALID
    fleet = write_fleet(loaded, args.fleet)
    err.writelines(f"cronlapse export: {note}\n" for note in fleet.notes)
    if not fleet.files:
        err.write(f"cronlapse export: {args.file}: no job to write as {args.fleet}\n")
        return 1
    if args.output in (None, "-"):
        for path, text in fleet.files.items():
            out.write(f"==> {path} <==\n{text}")
        return 0
    try:
        write_files(Path(args.output), fleet.files)
    except OSError as error:
        err.write(f"cronlapse export: cannot write in {args.output}: {error.strerror}\n")
        return 2
    out.write(
        f"wrote {plural(len(fleet.files), 'file')} in {args.output}: {', '.join(fleet.files)}\n"
    )
    return 0


def write_files(directory: Path, files: dict[str, str]) -> None:
    """Write ``files`` in ``directory``, all or none: each is written beside its place first,
    and the files take their names only once every one is written."""
    partial = {
        directory / path: (directory / path).with_name(f".{Path(path).name}.partial")
        for path in files
    }
    try:
        for (target, scratch), text in zip(partial.items(), files.values(), strict=True):
            target.parent.mkdir(parents=True, exist_ok=True)
            scratch.write_text(text, encoding="utf-8")
        for target, scratch in partial.items():
            scratch.replace(target)
    finally:
        for scratch in partial.values():
            scratch.unlink(missing_ok=True)
