"""``cronlapse check``: scenarios and scripts played against what they expect; exit 1 on a
mismatch or an invariant violation, with one line per problem and a count line."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from cronlapse.analyses.invariants import Checker, Violation
from cronlapse.cli.playing import (
    INVALID,
    MISMATCH,
    Forgetting,
    Reading,
    load,
    plural,
    read_once,
    violation_lines,
)
from engine.scenario import Scenario, ScenarioInvalid, ScenarioRunner, ScriptRun, check_script
from engine.scenario.runner import Failure


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """Register ``check`` on ``subparsers``."""
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
    return check


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
        out.writelines(violation_lines(loaded.source, found))
        checked += count
        mismatches += len(failures)
        violations += len(found)
    files = len(args.files)
    summary = (
        f"{plural(files, 'file')}, {plural(checked, 'expectation')}, "
        f"{plural(mismatches, 'mismatch', 'mismatches')}"
    )
    if violations:
        summary += f", {plural(violations, 'invariant violation')}"
    if invalid:
        summary += f", {plural(invalid, 'invalid file')}"
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
    loaded = load(path, err)
    if loaded is None:
        return None
    if not isinstance(loaded, ScriptRun):
        return loaded, *_check_scenario(loaded)
    try:
        failures, count = check_script(loaded)
    except ScenarioInvalid as invalid:
        err.writelines(f"{error}\n" for error in invalid.problems)
        return None
    return loaded, failures, count, Checker(loaded.engine).violations()


def _check_scenario(scenario: Scenario) -> tuple[list[Failure], int, list[Violation]]:
    """Play ``scenario`` to its end: its mismatches, its count of expectations, and what the
    checker found (observing every few thousand events and at once after each step that defines
    a job or logs a fact about one, so modified jobs are checked against every definition they
    had: :class:`Reading`). The checker follows the run, so the engine archives finished runs
    and the log forgets its events once read, and the engine its finished runs once checked
    (:class:`Forgetting`): memory follows live work."""
    runner = ScenarioRunner(scenario, archive=True)
    checker = Checker(runner.engine)
    forgetting = Forgetting(runner, checker)
    reading = Reading(runner, checker)
    for _ in runner.stretches(reading.ticks):
        if not reading.due():
            continue
        checker.observe()
        forgetting.step()
        runner.release_events(len(runner.engine.log))
        reading.done()
    return runner.failures, runner.checked, checker.violations(runner.processed)
