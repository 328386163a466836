"""``cronlapse explain``: the dashboard's "why?" answers, printed headless.

A group of subcommands, each one entry of :data:`SUBCOMMANDS` (its name, help, arguments and
handler), so adding one (``missed``, ``dst``) is one function and one entry. Handlers follow
:mod:`cronlapse.cli.run`: ``handler(args, out, err) -> exit status``, 2 for input that does not
name a run or a file that cannot run, one line per problem on ``err``, never a traceback.
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from cronlapse.analyses.explain import dst as explain_dst
from cronlapse.analyses.explain import explain_run, plain
from cronlapse.analyses.explain.dst import FIRST_YEAR, LAST_YEAR
from cronlapse.analyses.explain.missed import MissedQuestionError, explain_missed, render
from cronlapse.cli.playing import INVALID, Handler, opened_scenario, past_the_end
from cronlapse.sources import is_script
from engine.model.limits import CATCH_UP_WINDOW
from engine.play.history import History
from engine.scenario import Scenario, ScenarioInvalid
from engine.scenario.errors import Problems
from engine.scenario.yaml_source import Node, parse_yaml
from engine.schedules.calendar import ScheduleError, parse_schedule_expression
from engine.schedules.clock import Clock, ClockError, parse_zone
from engine.schedules.targets import TargetError, is_relative, parse_target


@dataclass(frozen=True, slots=True)
class Subcommand:
    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    handler: Handler
    description: str = ""
    """What ``--help`` says above the options; the ``help`` line when empty."""


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Register ``explain`` and its subcommands on ``subparsers``."""
    explain = subparsers.add_parser(
        "explain",
        help="say why a run is where it is (the dashboard's w key, as text)",
        description="Answer 'why?' about a scenario's runs, as the dashboard's w key does.",
    )
    group = explain.add_subparsers(dest="explain_command", metavar="WHAT", required=True)
    for subcommand in SUBCOMMANDS:
        parser = group.add_parser(
            subcommand.name,
            help=subcommand.help,
            description=subcommand.description or subcommand.help,
        )
        subcommand.arguments(parser)
        parser.set_defaults(handler=subcommand.handler)


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run",
        metavar="JOB@TICK",
        help="the run: extract@1560, extract@+26h (from the start), extract@03:00 (on the day "
        "of --at, or of the end without it), extract@2026-03-29T03:00; a run after the end is "
        "refused",
    )
    parser.add_argument("file", help="a .yaml scenario (- for standard input)")
    parser.add_argument(
        "--at",
        metavar="T",
        help="ask at tick T: 1565, +26h (from the start), 03:05 (on the start's day) or an ISO "
        "time (default: the end of the run)",
    )


def explain_run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the answer about one run at ``--at`` (default: where the run ends)."""
    scenario = _scenario(args.file, err)
    if scenario is None:
        return INVALID
    history = History(scenario.new_engine, scenario.commands, scenario.until)
    try:
        at = _end(scenario, history) if args.at is None else _tick(args.at, 0, scenario.clock)
    except TargetError as error:
        err.write(f"cronlapse explain run: --at {args.at}: {error}\n")
        return INVALID
    if at is None:
        err.write(
            f"{scenario.source}: recurring jobs never run out of work, so this run has no end: "
            "pass --at TICK to say when to ask\n"
        )
        return INVALID
    problem = past_the_end(at, scenario)
    if problem is not None:
        err.write(f"cronlapse explain run: --at {args.at}: {problem}\n")
        return INVALID
    history.seek(at)
    named = _named_run(args.run, scenario, history, err)
    if named is None:
        return INVALID
    problem = _run_past_the_end(args.run, named[1], scenario, at, asked_at=args.at is not None)
    if problem is not None:
        err.write(f"cronlapse explain run: {args.run}: {problem}\n")
        return INVALID
    out.write(plain(explain_run(history, *named, scenario.clock)))
    return 0


def _scenario(path: str, err: TextIO) -> Scenario | None:
    opened = opened_scenario(path, "explain", err)
    return None if opened is None else opened[1]


def _end(scenario: Scenario, history: History) -> int | None:
    """The tick a full run ends at: ``until``, else where it goes quiet (None: it never does)."""
    if scenario.until is not None:
        return scenario.until
    if scenario.endless:
        return None
    while history.step_forward():
        pass
    return history.tick


def _named_run(
    text: str, scenario: Scenario, history: History, err: TextIO
) -> tuple[str, int] | None:
    """``JOB@TICK`` read against the run's jobs and clock; None after saying what is wrong."""
    job_id, at, tick_text = text.rpartition("@")
    if not at or not job_id or not tick_text:
        err.write(f"cronlapse explain run: expected JOB@TICK (e.g. extract@1560), got {text!r}\n")
        return None
    jobs = history.engine.query.jobs()
    if job_id not in jobs:
        close = difflib.get_close_matches(job_id, list(jobs), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        err.write(f"cronlapse explain run: {scenario.source} has no job {job_id!r}{hint}\n")
        return None
    try:
        tick = _tick(tick_text, history.tick, scenario.clock)
    except TargetError as error:
        err.write(f"cronlapse explain run: {text}: {error}\n")
        return None
    return job_id, tick


_SHAPED = re.compile(r"\d+\Z|\d{1,2}:\d{2}|\d{4}-\d{2}-\d{2}")
"""Text shaped as a tick, a time of day or an ISO date: when it still names no tick, the reader's
own reason (too long, 25:99, a time the clocks skip) says more than the list of forms."""
_TIME_OF_DAY = re.compile(r"\s*\d{1,2}:\d{2}(:\d{2})?\s*\Z")


def _tick(text: str, day_of: int, clock: Clock | None) -> int:
    """The tick ``text`` names in JOB@TICK or ``--at``: as the dashboard's ``g`` reads it, except
    that ``+N`` and ``+2h`` count from the scenario's start (tick 0) in both, so that the same
    text names the same tick in both (from --at, extract@+1560 --at +1565 was the run at 3125),
    and a time of day is on the day of ``day_of``.

    ``-N`` would count back from the start, before every tick, so it is refused as such rather
    than as a tick before 0; and text that is no form at all gets the forms that are, not the
    complaint of the last form tried (an ISO time)."""
    value = text.strip()
    if is_relative(value):
        if value.startswith("-"):
            raise TargetError(
                f"{value} would count back from the scenario's start (tick 0), and no tick is "
                "before it: +N counts on from the start"
            )
        return parse_target(value, 0, clock)
    try:
        return parse_target(value, day_of, clock)
    except TargetError:
        if _SHAPED.match(value):
            raise
        forms = (
            "a tick (1560), +N or +2h from the start, a time of day (03:00) or an ISO time "
            "(2026-03-29T03:00)"
            if clock is not None
            else "a tick (1560) or +N from the start (the scenario has no clock, so no times of "
            "day)"
        )
        raise TargetError(f"expected {forms}, got {value!r}") from None


def _run_past_the_end(
    text: str, tick: int, scenario: Scenario, at: int, *, asked_at: bool
) -> str | None:
    """Why the run ``tick`` named by ``text`` (JOB@TICK) is none of the scenario's, or None.

    A run after the end is refused as ``--at`` after it is: answered, it read "has no run" (or,
    for a time of day on the end's day, SCHEDULED), as if the scenario went on to it. A time of
    day gets its day named: that day, not the text typed, put the tick past the end."""
    problem = past_the_end(tick, scenario)
    of_day = _TIME_OF_DAY.match(text.rpartition("@")[2])
    if problem is None or of_day is None or scenario.clock is None:
        return problem
    day = scenario.clock.to_datetime(at)
    rule = (
        "a time of day is on the day of --at"
        if asked_at
        else "without --at, a time of day is on the end's day"
    )
    return f"{problem}; {rule} ({day:%a %Y-%m-%d})"


def _missed_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--job", required=True, metavar="ID", help="a recurring job of the file")
    parser.add_argument(
        "--outage",
        required=True,
        metavar="FROM..TO",
        help="when the scheduler is down: ticks, times or ISO times as the dashboard's g reads "
        "them (5..95, 02:00..04:30, 2026-03-24T02:00..+2h; TO counts from FROM)",
    )
    parser.add_argument(
        "--window",
        type=int,
        metavar="W",
        help="Kubernetes' startingDeadlineSeconds and Temporal's catch-up window, in ticks "
        "(default: the job's catch_up_window; Temporal's own default is a year)",
    )
    parser.add_argument(
        "file", help="a .yaml scenario (- for standard input), or a crontab, manifest or timer"
    )


def explain_missed_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print which of the job's missed runs each system's rule starts after the outage."""
    name = "cronlapse explain missed"
    if args.window is not None and CATCH_UP_WINDOW.problem(args.window) is not None:
        # Past the engine's limit the job's definition is refused in every play, which would
        # read as an outage that holds nothing back: the limit is the reason, so say it.
        low, high = CATCH_UP_WINDOW.low, CATCH_UP_WINDOW.high
        err.write(
            f"{name}: --window: expected a whole number of ticks from {low} to {high}, "
            f"got {args.window}\n"
        )
        return INVALID
    loaded = _tree(args.file, err)
    if loaded is None:
        return INVALID
    tree, scenario = loaded
    try:
        start, end = _outage(args.outage, scenario)
        answer = explain_missed(tree, scenario.source, args.job, start, end, args.window)
    except TargetError as error:
        err.write(f"{name}: --outage {args.outage}: {error}\n")
        return INVALID
    except MissedQuestionError as error:
        err.write(f"{name}: {error}\n")
        return INVALID
    except ScenarioInvalid as invalid:
        err.writelines(f"{error}\n" for error in invalid.problems)
        return INVALID
    out.write(render(answer))
    return 0


def _tree(path: str, err: TextIO) -> tuple[Node, Scenario] | None:
    """The file's parsed document (a crontab, manifest or timer: the scenario its importer
    writes) and the scenario it is as it stands; None after printing its problems. A script is
    refused by its name, before it is read."""
    command = "explain missed"
    if is_script(path):
        err.write(f"{path}: {command} reads a .yaml scenario, not a seed 001 script\n")
        return None
    opened = opened_scenario(path, command, err)
    if opened is None:
        return None
    source, scenario = opened
    return parse_yaml(source.text, Problems(source.source)), scenario


def _outage(text: str, scenario: Scenario) -> tuple[int, int]:
    """``FROM..TO`` as two ticks; TO may count from FROM (``+2h``)."""
    first, dots, last = text.partition("..")
    if not dots or not first.strip() or not last.strip():
        raise TargetError("expected FROM..TO, e.g. 5..95 or 02:00..04:30")
    start = parse_target(first, 0, scenario.clock)
    end = parse_target(last, start, scenario.clock)
    if start >= end:
        raise TargetError(f"expected FROM before TO, got {start}..{end}")
    if scenario.until is not None and end > scenario.until:
        raise TargetError(f"ends at {end}, after the scenario does (clock.until: {scenario.until})")
    return start, end


def _dst_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cron", required=True, metavar="EXPR", help="a cron expression")
    parser.add_argument("--tz", required=True, metavar="ZONE", help="an IANA time zone")
    parser.add_argument("--year", required=True, type=int, metavar="Y")


def explain_dst_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the table; 2 with one line on ``err`` for a bad expression, zone or year."""
    try:
        cron = parse_schedule_expression(args.cron)
        zone = parse_zone(args.tz, "--tz")
    except (ScheduleError, ClockError) as error:
        err.write(f"cronlapse explain dst: {error}\n")
        return INVALID
    if not FIRST_YEAR <= args.year <= LAST_YEAR:
        err.write(f"cronlapse explain dst: --year: expected {FIRST_YEAR} to {LAST_YEAR}\n")
        return INVALID
    out.write(explain_dst.explain(cron, zone, args.year))
    return 0


SUBCOMMANDS = (
    Subcommand(
        "run",
        "why a run is where it is: waits, retries, faults, cancellation, DST",
        _run_arguments,
        explain_run_command,
    ),
    Subcommand(
        "missed",
        "which missed runs each system's rule (Kubernetes, Airflow, Temporal, systemd) starts "
        "after a scheduler outage",
        _missed_arguments,
        explain_missed_command,
    ),
    Subcommand(
        "dst",
        "what cronlapse, Kubernetes, Nomad, systemd and Airflow fire at a year's DST changes",
        _dst_arguments,
        explain_dst_command,
        "For each UTC offset change of ZONE in YEAR, list the fire times of the cron "
        "expression within two hours of it, under each scheduler's DST rule.",
    ),
)
