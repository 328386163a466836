"""``cronlapse compare A.yaml B.yaml``: two futures played headless and compared, for review in
CI: exit 1 when a threshold the user gives is crossed (``--max-p95-wait-increase 10%``), 2 for a
file that cannot run or a threshold that does not read, 0 otherwise."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from cronlapse.analyses.compare.futures import FIGURES, Threshold, compare, parse_threshold
from cronlapse.cli.playing import INVALID, load, read_once, runner_for, tick
from cronlapse.sources import STDIN, STDIN_NAME
from engine.core import Engine
from engine.scenario import Scenario

CROSSED = 1


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare two scenarios' futures: runs moved, dropped, added, latency change",
        description="Play two scenarios (say, before and after a policy change) and compare "
        "them: the runs whose first start moved, was dropped or added, and the latency figures. "
        "Each --max-FIGURE-increase sets a limit (10%% of the first figure, or a number of "
        "ticks); the exit status is 1 when one is crossed.",
    )
    parser.add_argument("first", metavar="A.yaml", help="a scenario (- for standard input)")
    parser.add_argument("second", metavar="B.yaml", help="a scenario (- for standard input)")
    parser.add_argument("--until", type=tick, metavar="T", help="play both to tick T")
    for figure in FIGURES:
        option = figure.replace("_", "-")
        parser.add_argument(
            f"--max-{option}-increase",
            dest=figure,
            metavar="LIMIT",
            help=argparse.SUPPRESS
            if figure != "p95_wait"
            else "e.g. 10%% or 30 (ticks); "
            "likewise --max-{p50,p95,max}-{lag,wait,backoff}-increase",
        )
    parser.set_defaults(handler=compare_command)


def compare_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    thresholds: list[Threshold] = []
    for figure in FIGURES:
        text = getattr(args, figure)
        if text is None:
            continue
        try:
            thresholds.append(parse_threshold(figure, text))
        except ValueError as error:
            option = figure.replace("_", "-")
            err.write(f"cronlapse compare: --max-{option}-increase: {error}\n")
            return INVALID
    paths = (args.first, args.second)
    if not read_once("compare", paths, err):
        return INVALID
    engines = [_played(path, args.until, err) for path in paths]
    if engines[0] is None or engines[1] is None:
        return INVALID
    comparison = compare(engines[0], engines[1])
    from rich.console import Console  # only when printing: the engine loads without Rich

    from cronlapse.analyses.compare.tables import comparison_tables

    console = Console(file=out, width=None if out.isatty() else 120, highlight=False)
    names = [STDIN_NAME if path == STDIN else path for path in paths]
    console.print(f"A: {names[0]} (to tick {engines[0].now})", markup=False)
    console.print(f"B: {names[1]} (to tick {engines[1].now})", markup=False)
    console.print(comparison_tables(comparison, "A", "B"))
    crossed = [reason for t in thresholds if (reason := t.crossed(comparison)) is not None]
    for threshold in thresholds:
        reason = threshold.crossed(comparison)
        console.print(f"{'CROSSED' if reason else 'ok'}: {reason or threshold}", markup=False)
    return CROSSED if crossed else 0


def _played(path: str, until: int | None, err: TextIO) -> Engine | None:
    loaded = load(path, err)
    if loaded is None:
        return None
    if not isinstance(loaded, Scenario):
        return loaded.engine
    runner = runner_for(loaded, until, "compare", err)
    if runner is None:
        return None
    runner.run()
    return runner.engine
