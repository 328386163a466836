"""``:sweep workers=2..6`` in the dashboard: the open scenario's sweep, played in the background.

The sweep is the one ``cronlapse sweep`` plays (:mod:`cronlapse.analyses.sweep`), over the file as
it is on disk: the commands typed in the dashboard are not part of it. A thread feeds the tasks to a
pool of processes and collects the outcomes as they come, so stepping and rewinding go on meanwhile;
the pane reads :meth:`SweepRun.snapshot` on a timer. No Textual here.

The words of ``:sweep`` are ``--vary`` options (``workers=2..6``, ``policy.order=fifo,priority``)
and three settings: ``metric=p95_wait,failed``, ``target=p95_wait<=30`` and ``replicas=N``.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import resource_tracker
from pathlib import Path

from cronlapse.analyses.sweep.evaluate import Outcome
from cronlapse.analyses.sweep.executors import run_local
from cronlapse.analyses.sweep.keys import Variation, VaryError, parse_variation
from cronlapse.analyses.sweep.metrics import DEFAULT_METRICS, MetricError, parse_metric
from cronlapse.analyses.sweep.plan import plan_tasks
from cronlapse.analyses.sweep.summary import Row, summarise
from cronlapse.analyses.sweep.target import Target, cheapest, parse_target
from cronlapse.sources import SourceInvalid, open_source
from engine.model.digits import is_digits


class SweepProblem(ValueError):
    """A ``:sweep`` that cannot start; the message says why."""


@dataclass(frozen=True, slots=True)
class SweepState:
    """What the pane shows at one moment."""

    keys: tuple[str, ...]
    metrics: tuple[str, ...]
    rows: tuple[Row, ...]
    """The variants with every replica back, in the sweep's order."""
    done: int
    total: int
    finished: bool
    target: Target | None
    answer: Row | None


class SweepRun:
    def __init__(
        self,
        path: Path,
        words: list[str],
        processes: int = 2,
        on_finish: Callable[[SweepState], None] | None = None,
    ) -> None:
        self.path = path
        self._on_finish = on_finish
        variations, metrics, target, replicas = _read_words(words)
        try:
            source = open_source(path, stdin=False)
            if source.scenario is None:
                raise SweepProblem(f"{path}: sweep reads a .yaml scenario, not a seed 001 script")
            self._variants, self._tasks = plan_tasks(
                source.source, source.text, variations, replicas, metrics
            )
        except SourceInvalid as invalid:
            raise SweepProblem(str(invalid.problems[0])) from None
        except VaryError as error:
            raise SweepProblem(str(error)) from None
        self.keys = tuple(variation.key.text for variation in variations)
        self.metrics = metrics
        self.target = target
        self._replicas = replicas
        self._processes = processes
        self._outcomes: dict[int, list[Outcome]] = {v.index: [] for v in self._variants}
        self._done = 0
        self._finished = False
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._play, name="sweep", daemon=True)

    def start(self) -> None:
        _start_resource_tracker()
        self._thread.start()

    def cancel(self) -> None:
        """Stop after the variants being played now; what finished stays shown."""
        self._cancelled.set()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _play(self) -> None:
        try:
            for outcome in run_local(self._tasks, self._processes):
                with self._lock:
                    self._outcomes[outcome.variant].append(outcome)
                    self._done += 1
                if self._cancelled.is_set():
                    break
        finally:
            with self._lock:
                self._finished = True
            if self._on_finish is not None:
                self._on_finish(self.snapshot())

    def snapshot(self) -> SweepState:
        with self._lock:
            complete = [
                (variant, list(self._outcomes[variant.index]))
                for variant in self._variants
                if len(self._outcomes[variant.index]) == self._replicas
            ]
            done, finished = self._done, self._finished
        rows = tuple(summarise(v, outcomes, len(self.metrics)) for v, outcomes in complete)
        answer = cheapest(self.target, rows, self.metrics) if self.target else None
        return SweepState(
            self.keys, self.metrics, rows, done, len(self._tasks), finished, self.target, answer
        )


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with the process's real stderr.

    The first process a pool spawns starts the tracker, which hands ``sys.stderr``'s file
    descriptor to it; while a Textual app runs, ``sys.stderr`` is Textual's capture object, whose
    descriptor is not one, and the spawn fails. Called on the app's own thread, so nothing is
    printed meanwhile."""
    captured = sys.stderr
    sys.stderr = sys.__stderr__
    try:
        resource_tracker.ensure_running()
    finally:
        sys.stderr = captured


def _read_words(words: list[str]) -> tuple[list[Variation], tuple[str, ...], Target | None, int]:
    variations: list[Variation] = []
    metrics: list[str] = []
    target = None
    replicas = 1
    try:
        for word in words:
            name, _, value = word.partition("=")
            if name == "metric":
                metrics += [metric for metric in value.split(",") if metric]
                for metric in metrics:
                    parse_metric(metric)
            elif name == "target":
                target = parse_target(value)
            elif name == "replicas":
                replicas = _replicas(value)
            else:
                variations.append(parse_variation(word))
    except (VaryError, MetricError) as error:
        raise SweepProblem(str(error)) from None
    if not variations:
        raise SweepProblem("sweep: vary something, e.g. :sweep workers=2..6")
    chosen = list(dict.fromkeys(metrics or DEFAULT_METRICS))
    if target is not None and target.metric not in chosen:
        chosen.append(target.metric)
    return variations, tuple(chosen), target, replicas


def _replicas(text: str) -> int:
    if not is_digits(text) or not 1 <= int(text) <= 100:
        raise SweepProblem(f"replicas={text}: expected a whole number from 1 to 100")
    return int(text)
