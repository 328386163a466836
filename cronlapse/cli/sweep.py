"""``cronlapse sweep``: a capacity question answered by playing one scenario many ways.

``cronlapse sweep FILE --vary KEY=VALUES ... [--replicas N] [--metric M ...] [--target EXPR]``
plays every variant (on all local cores, or a Dask cluster with ``--cluster``), shows a progress
bar while it runs, then a table of each metric per variant, a plot of a metric against the first
varied key, and with ``--target`` the cheapest variant that meets it.

Exit status: 0 when done (and the target, if any, is met), 1 when no variant meets the target,
2 for an invalid option or scenario, 130 when interrupted (what finished is printed first).
"""

from __future__ import annotations

import argparse
import errno
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from cronlapse.analyses.sweep.evaluate import Outcome, Task
from cronlapse.analyses.sweep.executors import run_dask, run_inline, run_local
from cronlapse.analyses.sweep.keys import Variation, VaryError, parse_variation
from cronlapse.analyses.sweep.metrics import DEFAULT_METRICS, MetricError, parse_metric
from cronlapse.analyses.sweep.plan import Variant, plan_tasks
from cronlapse.analyses.sweep.summary import Row, summarise
from cronlapse.analyses.sweep.target import Target, cheapest, parse_target
from cronlapse.cli.playing import opened_scenario, tick

INVALID = 2
NOT_MET = 1
INTERRUPTED = 130
PRINT_WIDTH = 100
"""Columns of the table and the plot when the output is not a terminal (a file, a pipe, the
docs' tests), so that the same sweep prints the same bytes."""


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "sweep",
        help="play a scenario many ways (workers, policies, seeds) and compare the metrics",
        description=(
            "Play FILE once per combination of the --vary values (times --replicas seeds) and "
            "print each metric per variant; with --target, the cheapest variant that meets it "
            "(exit 1 if none does). Values are a list (fifo,priority) or a range (10..50/10); "
            "list them cheapest first."
        ),
    )
    parser.add_argument("file", help="a .yaml scenario (- for standard input)")
    parser.add_argument(
        "--vary",
        action="append",
        required=True,
        metavar="KEY=VALUES",
        help="workers, seed, or a path such as policy.order or jobs[id=etl].priority",
    )
    parser.add_argument("--replicas", type=int, default=1, metavar="N", help="seeds per variant")
    parser.add_argument(
        "--metric",
        action="append",
        metavar="M",
        help="p50_wait, p95_wait[priority=high], failed, ... (default: "
        + ", ".join(DEFAULT_METRICS)
        + ")",
    )
    parser.add_argument("--target", metavar="EXPR", help="e.g. 'p95_wait <= 30'")
    parser.add_argument("--until", type=tick, metavar="TICK", help="play each variant to TICK")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--processes", type=int, metavar="N", help="local processes (default: every core)"
    )
    where.add_argument("--cluster", metavar="tcp://HOST:PORT", help="a Dask scheduler to use")
    parser.add_argument("--csv", metavar="FILE", help="write the results as CSV (- for stdout)")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON (- for stdout)")
    parser.add_argument("--plot", metavar="M", help="the metric to plot (default: the first)")
    parser.add_argument("--no-plot", action="store_true", help="print no plot")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        sweep = _Sweep.from_args(args, err)
    except (VaryError, MetricError) as error:
        err.write(f"cronlapse sweep: {error}\n")
        return INVALID
    if sweep is None:
        return INVALID
    for path in (args.csv, args.json):
        problem = _unwritable(path)
        if problem is not None:  # found before the sweep runs, not after
            err.write(f"cronlapse sweep: cannot write {path}: {problem}\n")
            return INVALID
    outcomes: dict[int, list[Outcome]] = {variant.index: [] for variant in sweep.variants}
    interrupted = False
    try:
        for outcome in _with_progress(sweep.execute(args), len(sweep.tasks), err):
            outcomes[outcome.variant].append(outcome)
    except KeyboardInterrupt:
        interrupted = True
    rows = [
        summarise(variant, outcomes[variant.index], len(sweep.metrics))
        for variant in sweep.variants
        if outcomes[variant.index]
    ]
    status = sweep.print_results(rows, args, out)
    if interrupted:
        err.write(
            f"cronlapse sweep: interrupted; {len(rows)} of {len(sweep.variants)} variants shown\n"
        )
        return INTERRUPTED
    return status


class _Sweep:
    def __init__(
        self,
        variations: list[Variation],
        metrics: tuple[str, ...],
        target: Target | None,
        variants: list[Variant],
        tasks: list[Task],
    ) -> None:
        self.variations = variations
        self.metrics = metrics
        self.target = target
        self.variants = variants
        self.tasks = tasks

    @classmethod
    def from_args(cls, args: argparse.Namespace, err: TextIO) -> _Sweep | None:
        """The sweep the options ask for; raises :class:`VaryError` or :class:`MetricError` for
        an option that does not read, checked before the file is read; None after printing why
        the file cannot be swept."""
        variations = [parse_variation(option) for option in args.vary]
        keys = [variation.key.text for variation in variations]
        if len(set(keys)) != len(keys):
            raise VaryError("each key may be varied once: --vary " + " --vary ".join(keys))
        metrics = list(dict.fromkeys(args.metric or DEFAULT_METRICS))
        for metric in metrics:
            parse_metric(metric)
        target = parse_target(args.target) if args.target else None
        if target is not None and target.metric not in metrics:
            metrics.append(target.metric)
        if args.plot is not None and args.plot not in metrics:
            raise MetricError(f"--plot {args.plot}: not one of the metrics ({', '.join(metrics)})")
        if args.replicas < 1:
            raise VaryError(f"--replicas {args.replicas}: expected 1 or more")
        opened = opened_scenario(args.file, "sweep", err)
        if opened is None:
            return None
        source, _ = opened
        variants, tasks = plan_tasks(
            source.source,
            source.text,
            variations,
            args.replicas,
            tuple(metrics),
            args.until,
            loaded=source.document,
        )
        return cls(variations, tuple(metrics), target, variants, tasks)

    def execute(self, args: argparse.Namespace) -> Iterator[Outcome]:
        if args.cluster:
            return run_dask(self.tasks, args.cluster)
        processes = args.processes or os.cpu_count() or 1
        if processes <= 1 or len(self.tasks) <= 1:
            return run_inline(self.tasks)
        return run_local(self.tasks, min(processes, len(self.tasks)))

    def print_results(self, rows: list[Row], args: argparse.Namespace, out: TextIO) -> int:
        from cronlapse.analyses.sweep import report

        keys = [variation.key.text for variation in self.variations]
        answer = cheapest(self.target, rows, self.metrics) if self.target else None
        if args.csv:
            _write(args.csv, report.to_csv(rows, keys, self.metrics), out)
        if args.json:
            _write(args.json, report.to_json(rows, self.metrics, self.target, answer), out)
        if "-" in (args.csv, args.json):
            return _status(self.target, answer)
        from rich.console import Console

        width = shutil.get_terminal_size().columns if out.isatty() else PRINT_WIDTH
        console = Console(width=width, highlight=False, color_system=None)
        with console.capture() as captured:
            console.print(report.table(rows, keys, self.metrics, self.target, answer))
        text = captured.get()
        if not args.no_plot:
            text += report.plot(rows, keys, self.metrics, args.plot or self.metrics[0], width)
        if self.target is not None:
            text += report.answer_line(self.target, answer, self.metrics) + "\n"
        out.writelines(line.rstrip() + "\n" for line in text.splitlines())
        return _status(self.target, answer)


def _status(target: Target | None, answer: Row | None) -> int:
    return NOT_MET if target is not None and answer is None else 0


def _unwritable(path: str | None) -> str | None:
    """Why an output file could not be written, as the system would say it; None if it can
    (or is standard output, or not asked for)."""
    if path is None or path == "-":
        return None
    target = Path(path)
    if target.is_dir():
        return os.strerror(errno.EISDIR)
    if not target.parent.is_dir():
        return os.strerror(errno.ENOENT)
    if not os.access(target.parent, os.W_OK) or (target.exists() and not os.access(path, os.W_OK)):
        return os.strerror(errno.EACCES)
    return None


def _write(path: str, text: str, out: TextIO) -> None:
    if path == "-":
        out.write(text)
    else:
        Path(path).write_text(text, encoding="utf-8")


def _with_progress(outcomes: Iterator[Outcome], total: int, err: TextIO) -> Iterator[Outcome]:
    """``outcomes``, with a progress bar and ETA on ``err`` while they come (when it is a
    terminal; otherwise nothing is drawn)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    console = Console(file=err)
    if not console.is_terminal:
        yield from outcomes
        return
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task("playing variants", total=total)
        for outcome in outcomes:
            progress.advance(bar)
            yield outcome
