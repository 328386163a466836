"""A cancelled run: who cancelled it, and for a cascade the path from the root cause, as a tree.

A cascade names its root (the one-time job whose failure for good, or deletion, doomed its
dependents). The path from the root to this run's job follows the jobs' ``dependents`` links,
breadth first, so it is the shortest chain of ``depends_on`` through which the failure spread.
"""

from __future__ import annotations

from collections import deque

from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.lines import Line, Tag, line, section
from engine.model import events as ev
from engine.model.records import CancelReason


def cancellation(context: Context, job_id: str, scheduled: int) -> Line | None:
    row = context.engine.query.run(job_id, scheduled)
    if row is None or row.cancel_reason is None:
        return None
    when = _cancelled_at(context, job_id, scheduled)
    at = f" at {context.at(when)}" if when is not None else ""
    if row.cancel_reason is CancelReason.USER:
        return section("Cancelled", [line(f"by a cancel command{at}")])
    if row.cancel_reason is CancelReason.DELETED:
        return section("Cancelled", [line(f"its job {job_id} was deleted{at}")])
    if row.cancel_reason is CancelReason.EXPIRED:
        deadline = context.engine.query.jobs()[job_id].spec.start_deadline
        text = f"expired{at}: not started {deadline} ticks after its time (start_deadline)"
        return section("Cancelled", [line(text)])
    if row.cancel_reason is CancelReason.REPLACED:
        text = f"a newer run took its place{at} (overlap: {row.cancel_cause})"
        return section("Cancelled", [line(text)])
    root = row.cancel_cause or "?"
    path = _path(context, root, job_id)
    tree = _chain(context, path, job_id)
    return section(f"Cancelled by a cascade{at}: {root} can never succeed", [tree])


def _chain(context: Context, path: list[str], job_id: str) -> Line:
    """The path as nested lines, the root outermost."""
    node: Line | None = None
    for position in range(len(path) - 1, -1, -1):
        name = path[position]
        if position == 0:
            text = f"{name}: {_root_fate(context, name)}"
            tag = Tag.WARN
        elif name == job_id:
            text = f"{name}: this run, cancelled (depends on {path[position - 1]})"
            tag = Tag.FACT
        else:
            text = f"{name}: cancelled (depends on {path[position - 1]})"
            tag = Tag.FACT
        node = Line(text, (node,) if node is not None else (), tag)
    assert node is not None
    return node


def _root_fate(context: Context, root: str) -> str:
    """What happened to the root: its run's failure for good, or its deletion."""
    for event in context.events_of(root):
        if isinstance(event, ev.OccurrenceFailed):
            return (
                f"run @{event.scheduled} failed for good at {context.at(event.tick)} "
                f"after {event.attempts} attempt(s)"
            )
        if isinstance(event, ev.JobDeleted):
            return f"deleted at {context.at(event.tick)} before it succeeded"
        if isinstance(event, ev.OccurrenceCancelled):
            return f"its run was cancelled at {context.at(event.tick)} ({event.reason.value})"
    return "can never succeed"


def _path(context: Context, root: str, target: str) -> list[str]:
    """The shortest chain of dependents from ``root`` to ``target`` (both included)."""
    jobs = context.engine.query.jobs()
    previous: dict[str, str | None] = {root: None}
    queue = deque([root])
    while queue:
        current = queue.popleft()
        if current == target:
            break
        job = jobs.get(current)
        for dependent in job.dependents if job is not None else ():
            if dependent not in previous:
                previous[dependent] = current
                queue.append(dependent)
    if target not in previous:
        return [root, target]
    path: list[str] = []
    step: str | None = target
    while step is not None:
        path.append(step)
        step = previous[step]
    return path[::-1]


def _cancelled_at(context: Context, job_id: str, scheduled: int) -> int | None:
    for event in context.events_of(job_id):
        if isinstance(event, ev.OccurrenceCancelled) and event.scheduled == scheduled:
            return event.tick
        if isinstance(event, ev.BacklogCancelled) and event.first <= scheduled <= event.last:
            return event.tick
    return None
