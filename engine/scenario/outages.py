"""Scheduler outages: ``scheduler_down: [{from: T, to: T}, ...]`` in a scenario.

While the scheduler is down no run is created, as when the Kubernetes CronJob controller, the
Airflow scheduler or a stopped systemd timer is down; what was created before goes on (its
attempts run and end, waiting runs are taken by workers, as pods and queued tasks are). At the
end of the outage each job catches up by its own missed-run rule (``catch_up``,
``catch_up_window``, ``max_missed``: docs/semantics.md). So an outage is played as every
recurring job defined by then paused at ``from`` and resumed at ``to``: the log shows those
pauses and resumes. A one-time job is a submission, not a schedule: it is not held back. A job
the timeline deletes, or pauses without resuming, before the outage is left alone.
"""

from __future__ import annotations

from engine.model import commands as cmd
from engine.model.values import value
from engine.scenario.errors import path_key
from engine.scenario.jobs import Definition
from engine.scenario.model import TimelineEntry
from engine.scenario.schema import Reader
from engine.scenario.timeline import RawEntry
from engine.scenario.yaml_source import Node
from engine.schedules.kinds import Once

OUTAGE_KEYS = ("from", "to")


@value
class Outage:
    start: int
    end: int
    node: Node


def read_outages(reader: Reader, node: Node | None) -> list[Outage]:
    """The windows, in order and apart; each problem reported at its key."""
    outages: list[Outage] = []
    if node is None:
        return outages
    for path, item in reader.items(node, "scheduler_down", "a list of {from, to}"):
        fields = reader.mapping(item, path, OUTAGE_KEYS, required=OUTAGE_KEYS)
        if fields is None or len(fields) < len(OUTAGE_KEYS):
            continue
        start = reader.tick(fields["from"], path_key(path, "from"))
        end = reader.tick(fields["to"], path_key(path, "to"))
        if start is None or end is None:
            continue
        if end <= start:
            reader.error(fields["to"], path_key(path, "to"), f"expected a tick after {start}")
        elif outages and start < outages[-1].end:
            message = f"expected a tick from {outages[-1].end} on: outages come in order, apart"
            reader.error(fields["from"], path_key(path, "from"), message)
        else:
            outages.append(Outage(start, end, item))
    return outages


def outage_entries(
    outages: list[Outage], definitions: list[Definition], raw: list[RawEntry]
) -> list[TimelineEntry]:
    """The pauses and resumes that play the outages."""
    entries: list[TimelineEntry] = []
    for outage in outages:
        for job_id in _held_back(outage.start, definitions, raw):
            entries.append(TimelineEntry(outage.start, cmd.PauseJob(job_id), None, outage.node.pos))
            entries.append(TimelineEntry(outage.end, cmd.ResumeJob(job_id), None, outage.node.pos))
    return entries


def _held_back(start: int, definitions: list[Definition], raw: list[RawEntry]) -> list[str]:
    """The recurring jobs defined by ``start`` that the timeline has not deleted, nor left
    paused, by then."""
    gone: set[str] = set()
    for entry in sorted(raw, key=lambda entry: entry.tick):
        if entry.tick > start:
            break
        action = entry.action
        if isinstance(action, cmd.DeleteJob | cmd.PauseJob):
            gone.add(action.job_id)
        elif isinstance(action, cmd.ResumeJob):
            gone.discard(action.job_id)
    held = []
    for definition in definitions:
        spec = definition.spec
        if spec is None or definition.tick > start or isinstance(spec.schedule, Once):
            continue
        if spec.job_id not in gone and spec.job_id not in held:
            held.append(spec.job_id)
    return held
