"""``cronlapse run``: a scenario (or a seed 001 script) played headless, its event log and a
summary, or its latency attribution (``--stats``), or one JSON object per event (``--jsonl``)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from cronlapse.analyses.invariants import Checker
from cronlapse.analyses.stats import RunStatsReader, run_stats
from cronlapse.cli.playing import (
    INVALID,
    VIOLATION,
    Forgetting,
    Reading,
    load_to_play,
    runner_for,
    until_option,
    violation_lines,
)
from cronlapse.exports.report import EventFormatter, event_json, print_summary
from engine.core import Engine
from engine.model.events import EventLog
from engine.scenario import ScriptRun
from engine.scenario.runner import Rejection


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """Register ``run`` on ``subparsers``."""
    run = subparsers.add_parser(
        "run",
        help="play a scenario headless: its event log, then a summary",
        description="Play a YAML scenario (or a seed 001 .txt script) and print one line per "
        "event, then per-job and per-worker summary tables.",
    )
    run.add_argument("file", help="a .yaml scenario or a .txt script (- for standard input)")
    until_option(run)
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
    return run


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the event log (or the script's output), then the summary."""
    loaded = load_to_play(args, err)
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
        err.writelines(violation_lines(loaded.source, found))
        return VIOLATION if found else 0
    # --stats reads the whole log at the end (the latency attribution); else every reader
    # follows the run, and the log keeps only the events since the last read (Reading).
    runner = runner_for(loaded, args.until, "run", err, archive=True)
    if runner is None:
        return INVALID
    log = runner.engine.log
    checker = Checker(runner.engine)
    # --stats reads every run back at the end; else nothing reads the history but as it goes.
    forgetting = None if args.stats else Forgetting(runner, checker)
    summary = RunStatsReader()
    formatter = EventFormatter(loaded.clock)
    reading = Reading(runner, checker)
    printed = 0
    for _ in runner.stretches(reading.ticks):
        if not reading.due():
            continue
        checker.observe()
        if forgetting is not None:
            forgetting.step()
        printed = _print_events(args, log, printed, formatter, summary, out)
        if not args.stats:
            runner.release_events(printed)
        reading.done()
    _print_events(args, log, printed, formatter, summary, out)
    _report_rejections(runner.rejections, loaded.source, err)
    if args.stats:
        _print_latency(runner.engine, out)
    elif not args.jsonl:
        print_summary(summary.summary(runner.processed), out)
    found = checker.violations(runner.processed)
    err.writelines(violation_lines(loaded.source, found))
    return VIOLATION if found else 0


def _print_events(
    args: argparse.Namespace,
    log: EventLog,
    printed: int,
    formatter: EventFormatter,
    summary: RunStatsReader,
    out: TextIO,
) -> int:
    """Print the events from index ``printed`` on (and sum them up), as ``args`` asks; the
    index after the last one."""
    if args.jsonl:
        out.writelines(formatter.json(event) + "\n" for event in log.since(printed))
    elif not args.stats:
        out.write(formatter.coded_lines(log.coded_since(printed)))
        summary.read(log.coded_since(printed))
    return len(log)


def _script_end(run: ScriptRun) -> int:
    """A script's last processed tick, as the dashboard ends it: the protocol's clock rests at
    the *start* of ``engine.now`` (``TICK n`` processes the ticks before it), unless a line after
    the last ``TICK`` did something at that tick."""
    log = run.engine.log
    last_event = log[len(log) - 1].tick if len(log) else 0
    return max(run.engine.now - 1, last_event, 0)


def _print_latency(engine: Engine, out: TextIO) -> None:
    """The latency tables (``--stats``); Rich and the attribution are imported only here, so
    the engine loads without them."""
    from cronlapse.analyses.latency.attribution import latency_report
    from cronlapse.analyses.latency.tables import print_latency

    print_latency(latency_report(engine), out)


def _report_rejections(rejections: list[Rejection], source: str, err: TextIO) -> None:
    """Commands refused without a stated answer: not errors, but worth knowing about."""
    for rejection in rejections:
        entry, result = rejection.entry, rejection.result
        where = source if entry.pos is None else f"{source}:{entry.pos.line}"
        err.write(
            f"{where}: note: at tick {entry.tick} {type(entry.action).__name__} was refused: "
            f"{result.outcome.name.lower()} ({result.message})\n"
        )
