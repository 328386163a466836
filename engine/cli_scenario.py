"""``cronlapse run``, ``check`` and ``export``: scenarios (and seed 001 scripts) played headless.

Each handler is ``handler(args, out, err) -> exit status``: 0 when all is well, 1 when ``check``
found a mismatch or ``check`` or ``run`` found the engine breaking an invariant (the exactly-once
checker of :mod:`engine.invariants` runs at the end of each run), 2 when a file is invalid or
cannot be read or written (nothing runs from an invalid file), 70 for an internal error. Problems
go to ``err`` as one line each, never a traceback.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from itertools import starmap
from typing import Any, TextIO

from engine.cli_input import STDIN, read_once, scenario_text
from engine.core import Engine
from engine.importers.files import ImportProblems
from engine.importers.recognise import import_recognised
from engine.invariants import Checker, Violation
from engine.latency import latency_report
from engine.scenario import (
    Scenario,
    ScenarioInvalid,
    ScenarioRunner,
    ScriptRun,
    check_script,
    is_script,
    load_scenario,
    parse_scenario,
    run_script_file,
)
from engine.scenario.export import write_csv, write_trace
from engine.scenario.report import EventFormatter, event_json, print_summary
from engine.scenario.runner import Failure, Rejection
from engine.scenario.schema import MAX_TICK
from engine.scenario.stats import run_stats

INVALID = 2
MISMATCH = 1
VIOLATION = 1
"""``run``'s status when the checker found a violation: the run printed what the engine did, and
the engine broke a guarantee (a wrong result, like a mismatch, not a crash)."""

Handler = Callable[[argparse.Namespace, TextIO, TextIO], int]


def add_parsers(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Register ``run``, ``check`` and ``export`` on ``subparsers`` (``handler`` defaults set)."""
    run = subparsers.add_parser(
        "run",
        help="play a scenario headless: its event log, then a summary",
        description="Play a YAML scenario (or a seed 001 .txt script) and print one line per "
        "event, then per-job and per-worker summary tables.",
    )
    run.add_argument("file", help="a .yaml scenario or a .txt script (- for standard input)")
    _until_option(run)
    output = run.add_mutually_exclusive_group()
    output.add_argument(
        "--jsonl",
        action="store_true",
        help="print one JSON object per event (with its wall-clock 'time' when the scenario "
        "has a clock), and no summary",
    )
    output.add_argument(
        "--stats",
        action="store_true",
        help="print latency attribution (schedule lag, queue wait, backoff) instead of events",
    )
    run.set_defaults(handler=run_command)
    check = subparsers.add_parser(
        "check",
        help="run scenarios' expectations; exit 1 on a mismatch",
        description="Play each scenario and compare every stated answer and expect entry "
        "(a script: its output with NAME.expected). Prints 'file:line: expected X, got Y' per "
        "mismatch and a count line.",
    )
    check.add_argument(
        "files", nargs="+", metavar="FILE", help="scenarios or scripts (- for standard input)"
    )
    check.set_defaults(handler=check_command)
    export = subparsers.add_parser(
        "export",
        help="write the worker timeline as a Perfetto trace or a CSV, or a service's journal "
        "as a scenario",
        description="Play a scenario and write its attempts: --trace as Chrome trace-event "
        "JSON (open it in ui.perfetto.dev or chrome://tracing), --csv as one row per attempt. "
        "Or, with --scenario --db URL, write a stretch of a service's journal as a scenario "
        "that replays it (docs/incident.md).",
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
    _until_option(export)
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
    export.add_argument("-o", dest="output", metavar="FILE", help="--scenario: write to FILE")
    export.set_defaults(handler=export_command)


def _until_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--until",
        type=_tick,
        metavar="T",
        help="stop after tick T (overrides the scenario's clock.until)",
    )


def past_the_end(tick: int, scenario: Scenario) -> str | None:
    """Why a scenario cannot be played to ``tick``, or None. Played past its ``clock.until``
    or to a tick no scenario may name, a recurring job would make runs until memory ran out."""
    if scenario.until is not None and tick > scenario.until:
        return f"tick {tick} is after the scenario ends (clock.until: {scenario.until})"
    if tick > MAX_TICK:
        return f"tick {tick} is after the last tick a scenario may name ({MAX_TICK})"
    return None


def _tick(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a tick (a whole number), got {text!r}"
        ) from None
    if not 0 <= value <= MAX_TICK:
        raise argparse.ArgumentTypeError(f"expected a tick from 0 to {MAX_TICK}, got {value}")
    return value


def _load(path: str, err: TextIO) -> Scenario | ScriptRun | None:
    """The scenario or played script at ``path`` (a crontab, manifest or timer is imported;
    ``-`` is a scenario on standard input); None after printing its problems."""
    try:
        if path == STDIN:
            return parse_scenario(*scenario_text(path))
        imported = import_recognised(path)
        if imported is not None:
            err.writelines(f"not imported: {reason}\n" for reason in imported.skipped)
            return imported.scenario
        return run_script_file(path) if is_script(path) else load_scenario(path)
    except ImportProblems as problems:
        err.writelines(f"{problem}\n" for problem in problems.problems)
        return None
    except ScenarioInvalid as invalid:
        for error in invalid.errors:
            err.write(f"{error}\n")
        return None


def _runner(
    scenario: Scenario, until: int | None, command: str, err: TextIO
) -> ScenarioRunner | None:
    """A runner with an end: recurring jobs under automatic dispatch need an ``until``."""
    if until is None and scenario.until is None and scenario.endless:
        err.write(
            f"{scenario.source}: recurring jobs never run out of work, so this run has no end: "
            f"add 'until' to the clock (clock: {{until: TICK}}) or pass --until TICK to "
            f"cronlapse {command}\n"
        )
        return None
    return ScenarioRunner(scenario, until)


def _load_to_play(args: argparse.Namespace, err: TextIO) -> Scenario | ScriptRun | None:
    """``_load`` for run and export, which also refuse ``--until`` on a script."""
    loaded = _load(args.file, err)
    if isinstance(loaded, ScriptRun) and args.until is not None:
        err.write(
            f"{loaded.source}: --until does not apply to a script: its TICK lines set the time\n"
        )
        return None
    return loaded


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the event log (or the script's output), then the summary."""
    loaded = _load_to_play(args, err)
    if loaded is None:
        return INVALID
    if isinstance(loaded, ScriptRun):
        if args.stats:
            _print_latency(loaded.engine, out)
        elif args.jsonl:
            out.writelines(event_json(event) + "\n" for event in loaded.engine.log)
        else:
            out.writelines(line + "\n" for line in loaded.output)
            print_summary(run_stats(loaded.engine.log, _script_end(loaded)), out)
        found = Checker(loaded.engine).violations()
        err.writelines(_violation_lines(loaded.source, found))
        return VIOLATION if found else 0
    runner = _runner(loaded, args.until, "run", err)
    if runner is None:
        return INVALID
    log = runner.engine.log
    checker = Checker(runner.engine)
    clock = loaded.clock
    formatter = EventFormatter(clock)
    printed = 0
    for _ in runner.steps():
        checker.observe()
        if args.jsonl:
            out.writelines(formatter.json(event) + "\n" for event in log.since(printed))
        elif not args.stats:
            lines = starmap(formatter.stored_line, log.stored_since(printed))
            out.writelines(line + "\n" for line in lines)
        printed = len(log)
    _report_rejections(runner.rejections, loaded.source, err)
    if args.stats:
        _print_latency(runner.engine, out)
    elif not args.jsonl:
        print_summary(run_stats(log, runner.processed), out)
    found = checker.violations(runner.processed)
    err.writelines(_violation_lines(loaded.source, found))
    return VIOLATION if found else 0


def _script_end(run: ScriptRun) -> int:
    """A script's last processed tick, as the dashboard ends it: the protocol's clock rests at
    the *start* of ``engine.now`` (``TICK n`` processes the ticks before it), unless a line after
    the last ``TICK`` did something at that tick."""
    log = run.engine.log
    last_event = log[len(log) - 1].tick if len(log) else 0
    return max(run.engine.now - 1, last_event, 0)


def _print_latency(engine: Engine, out: TextIO) -> None:
    """The latency tables; Rich is imported only here, so the engine loads without it."""
    from engine.latency_table import print_latency

    print_latency(latency_report(engine), out)


def _violation_lines(source: str, found: list[Violation]) -> list[str]:
    """``FILE: tick T: what broke``, one line each."""
    return [f"{source}: {violation}\n" for violation in found]


def _report_rejections(rejections: list[Rejection], source: str, err: TextIO) -> None:
    """Commands refused without a stated answer: not errors, but worth knowing about."""
    for rejection in rejections:
        entry, result = rejection.entry, rejection.result
        where = source if entry.pos is None else f"{source}:{entry.pos.line}"
        err.write(
            f"{where}: note: at tick {entry.tick} {type(entry.action).__name__} was refused: "
            f"{result.outcome.name.lower()} ({result.message})\n"
        )


def check_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print every mismatch and invariant violation of every file, then one count line."""
    if not read_once("check", args.files, err):
        return INVALID
    invalid = checked = mismatches = violations = 0
    for path in args.files:
        played = _checked(path, err)
        if played is None:
            invalid += 1
            continue
        loaded, failures, count, found = played
        out.writelines(f"{failure}\n" for failure in failures)
        out.writelines(_violation_lines(loaded.source, found))
        checked += count
        mismatches += len(failures)
        violations += len(found)
    files = len(args.files)
    summary = (
        f"{_count(files, 'file')}, {_count(checked, 'expectation')}, "
        f"{_count(mismatches, 'mismatch', 'mismatches')}"
    )
    if violations:
        summary += f", {_count(violations, 'invariant violation')}"
    if invalid:
        summary += f", {_count(invalid, 'invalid file')}"
    out.write(summary + "\n")
    if invalid:
        return INVALID
    return MISMATCH if mismatches or violations else 0


def _checked(
    path: str, err: TextIO
) -> tuple[Scenario | ScriptRun, list[Failure], int, list[Violation]] | None:
    """The file at ``path`` played and checked: its mismatches, its count of expectations and
    the checker's violations; None after printing why it cannot be (a script's
    ``NAME.expected`` that cannot be read is a problem of the file, as the script's own)."""
    loaded = _load(path, err)
    if loaded is None:
        return None
    if not isinstance(loaded, ScriptRun):
        return loaded, *_check_scenario(loaded)
    try:
        failures, count = check_script(loaded)
    except ScenarioInvalid as invalid:
        err.writelines(f"{error}\n" for error in invalid.errors)
        return None
    return loaded, failures, count, Checker(loaded.engine).violations()


def _check_scenario(scenario: Scenario) -> tuple[list[Failure], int, list[Violation]]:
    """Play ``scenario`` to its end: its mismatches, its count of expectations, and what the
    checker found (observing each tick, so modified jobs are checked against every definition
    they had)."""
    runner = ScenarioRunner(scenario)
    checker = Checker(runner.engine)
    for _ in runner.steps():
        checker.observe()
    return runner.failures, runner.checked, checker.violations(runner.processed)


def _count(number: int, one: str, many: str | None = None) -> str:
    return f"{number} {one if number == 1 else many or one + 's'}"


def export_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Write the attempts of a full run as a trace or a CSV file (or, with ``--scenario``, a
    service's journal as a scenario: :mod:`service.cli`)."""
    problem = _export_mode_problem(args)
    if problem is not None:
        err.write(f"cronlapse export: {problem}\n")
        return INVALID
    if args.scenario:
        from service.cli import export_scenario

        return export_scenario(args, out, err)
    loaded = _load_to_play(args, err)
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
        runner = _runner(loaded, args.until, "export", err)
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
    out.write(f"wrote {_count(count, 'attempt')} to {target}\n")
    return 0


def _export_mode_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the mix of options given to ``export``, if anything."""
    journal = [args.db, args.start, args.end, args.output]
    if args.scenario:
        if args.file is not None or args.until is not None:
            return "--scenario reads a service's journal (--db URL, --from, --to), not a FILE"
        return None if args.db is not None else "--scenario needs --db URL"
    if any(value is not None for value in journal):
        return "--db, --from, --to and -o go with --scenario"
    if not (args.trace or args.csv):
        return "expected --trace OUT.json, --csv OUT.csv or --scenario --db URL"
    if args.file is None:
        return "--trace and --csv need the FILE to play"
    return None
