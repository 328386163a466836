"""One variant, played: a pure function of the scenario's text, the settings and the seed.

:func:`evaluate` is what every executor runs (in this process, a pool of processes or a Dask
cluster): it takes plain, picklable values and returns plain values, and it never raises. A
variant the scenario cannot hold, or one that fails while it plays, comes back with its error
as text, so one bad variant is one bad row, never a stopped sweep.
"""

from __future__ import annotations

from dataclasses import dataclass

from cronlapse.analyses.latency.attribution import latency_report
from cronlapse.analyses.sweep.apply import set_value
from cronlapse.analyses.sweep.keys import SEED_KEY, KeyPath, Value, VaryError
from cronlapse.analyses.sweep.metrics import parse_metric
from engine.model.problems import Problem
from engine.scenario.errors import Problems, ScenarioInvalid
from engine.scenario.runner import ScenarioRunner
from engine.scenario.validate import Document, JobsMemo, scenario_from_tree
from engine.scenario.yaml_source import parse_yaml


@dataclass(frozen=True, slots=True)
class Task:
    """A variant under one seed: everything needed to play it, anywhere."""

    variant: int
    """The variant's place in the sweep (0-based); rows are shown in this order."""
    replica: int
    source: str
    text: str
    settings: tuple[tuple[KeyPath, Value], ...]
    seed: int
    metrics: tuple[str, ...]
    until: int | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    variant: int
    replica: int
    values: tuple[float | None, ...] = ()
    """One per metric, in the task's order; empty when the variant failed."""
    error: str | None = None


def evaluate(task: Task) -> Outcome:
    """Play ``task``'s variant to the end and measure it; errors become the outcome's text."""
    try:
        return Outcome(task.variant, task.replica, _measure(task))
    except ScenarioInvalid as invalid:
        return Outcome(task.variant, task.replica, error="; ".join(map(_where, invalid.problems)))
    except VaryError as error:
        return Outcome(task.variant, task.replica, error=str(error))
    except Exception as error:  # a crash is one failed row, never a stopped sweep
        return Outcome(task.variant, task.replica, error=f"{type(error).__name__}: {error}")


def _where(problem: Problem) -> str:
    """A problem without the file's name, which every row shares: ``line:column: path: why``."""
    where = "" if problem.line is None else f"{problem.line}:{problem.column}: "
    return f"{where}{problem.path}: {problem.message}" if problem.path else where + problem.message


class _LastDocument:
    """The one document a process keeps, with the source and text it is of. Replaced whole, so
    that threads sharing it (a Dask worker's) never see half of one."""

    kept: tuple[str, str, Document] | None = None


def document(source: str, text: str) -> Document:
    """The scenario's parsed tree and the memo its variants are loaded with, made once a process
    for a sweep's every task (or the opener's, :func:`adopt`): each variant is an edit of this
    one tree, so the jobs it did not edit are read once, not once a variant (:class:`JobsMemo`).
    Raises :class:`ScenarioInvalid` for a text that does not parse (and keeps nothing then)."""
    kept = _LastDocument.kept
    if kept is not None and kept[0] == source and kept[1] == text:
        return kept[2]
    problems = Problems(source)
    tree = parse_yaml(text, problems)
    problems.raise_if_any()
    made = Document(tree, JobsMemo())
    adopt(source, text, made)
    return made


def adopt(source: str, text: str, loaded: Document) -> None:
    """Make ``loaded``, a document of ``text`` already loaded with its memo (the opener's), the
    one :func:`document` answers: the variants played in this process then read the jobs of
    that load, where a document of their own was parsed and its jobs read once more (the
    demo's 2,000 jobs are 0.45 G instructions, :class:`JobsMemo`)."""
    _LastDocument.kept = (source, text, loaded)


def _measure(task: Task) -> tuple[float | None, ...]:
    tree, memo = document(task.source, task.text)
    for key, value in task.settings:
        tree = set_value(tree, key, value)
    tree = set_value(tree, SEED_KEY, task.seed)
    scenario = scenario_from_tree(tree, Problems(task.source), memo)
    runner = ScenarioRunner(scenario, until=task.until, archive=True)
    runner.run()
    metrics = [parse_metric(name) for name in task.metrics]
    # Only the jobs and priorities the metrics select get figures of their own, and no run is
    # kept (no worst runs listed): the rest of a report is not read here.
    jobs = {metric.job for metric in metrics if metric.job is not None}
    priorities = {metric.priority for metric in metrics if metric.priority is not None}
    report = latency_report(
        runner.engine, worst=0, jobs=jobs, priorities=priorities, keep_runs=False
    )
    return tuple(metric.value(report) for metric in metrics)
