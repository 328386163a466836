"""A fleet as advice reads and changes it: the parsed file, and the scenario it amounts to.

A change is an edit of the parsed YAML tree (a job's keys, the workers), read again by the
scenario loader, so a changed fleet is exactly what the same file with those edits would be: the
proof plays it, and ``-o`` writes it (:mod:`~cronlapse.analyses.advise.writer`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from cronlapse.analyses.sweep.apply import scalar, set_value
from cronlapse.analyses.sweep.keys import WORKERS, Field, KeyPath, Value
from engine.model.records import JobSpec
from engine.scenario import Scenario
from engine.scenario.errors import Position, Problems
from engine.scenario.validate import scenario_from_tree
from engine.scenario.yaml_source import Mapping, Node, Scalar, Sequence, parse_yaml

_WORKERS_KEY = KeyPath(WORKERS, (Field(WORKERS),))
DROP = None
"""A change's value that removes the key (a ``daily:`` replaced by a ``cron:``)."""


class FleetError(ValueError):
    """A fleet advice cannot read; the message names the file and what was expected."""


@dataclass(frozen=True, slots=True)
class Fleet:
    source: str
    """The file's name in messages."""
    text: str
    """The YAML it was read from (an importer's, for a crontab, manifest or timer)."""
    tree: Node
    scenario: Scenario

    def spec(self, job_id: str) -> JobSpec | None:
        return next((spec for spec in self.scenario.jobs if spec.job_id == job_id), None)

    def written(self, job_id: str) -> bool:
        """Whether the job has its own item under ``jobs:`` (a ``generate:`` one has not), so
        that a change of its keys can be written."""
        return _job_index(self.tree, job_id) is not None

    def job_keys(self, job_id: str) -> dict[str, Value]:
        """The job's scalar keys as written, for changes that rewrite one (its ``cron``)."""
        jobs = self.tree.get("jobs") if isinstance(self.tree, Mapping) else None
        index = _job_index(self.tree, job_id)
        if index is None or not isinstance(jobs, Sequence):
            return {}
        item = jobs.items[index]
        assert isinstance(item, Mapping)
        return {name.text: v.value for name, v in item.entries if isinstance(v, Scalar)}

    def with_job(self, job_id: str, changes: dict[str, Value]) -> Fleet:
        """The fleet with the job's keys changed (a value of :data:`DROP` removes the key)."""
        return self._read(_with_job_keys(self.tree, job_id, changes))

    def with_workers(self, count: int) -> Fleet:
        """The fleet with ``count`` workers: its first ones, then more named like its last."""
        return self._read(set_value(self.tree, _WORKERS_KEY, count))

    def with_outages(self, windows: Iterable[tuple[int, int]]) -> Fleet:
        """The fleet with ``scheduler_down`` windows ``[from, to)`` in place of its own."""
        tree = self.tree
        assert isinstance(tree, Mapping)
        pos = tree.pos
        items = tuple(
            Mapping(
                ((_key("from", pos), scalar(start, pos)), (_key("to", pos), scalar(end, pos))), pos
            )
            for start, end in windows
        )
        return self._read(_with_entry(tree, "scheduler_down", Sequence(items, pos)))

    def _read(self, tree: Node) -> Fleet:
        return Fleet(self.source, self.text, tree, scenario_from_tree(tree, Problems(self.source)))


def read_fleet(source: str, text: str) -> Fleet:
    """The fleet in ``text``; :class:`engine.scenario.ScenarioInvalid` with every problem."""
    problems = Problems(source)
    tree = parse_yaml(text, problems)
    problems.raise_if_any()
    return Fleet(source, text, tree, scenario_from_tree(tree, problems))


def _job_index(tree: Node, job_id: str) -> int | None:
    jobs = tree.get("jobs") if isinstance(tree, Mapping) else None
    if not isinstance(jobs, Sequence):
        return None
    for index, item in enumerate(jobs.items):
        if isinstance(item, Mapping):
            found = item.get("id")
            if isinstance(found, Scalar) and found.text == job_id:
                return index
    return None


def _with_job_keys(tree: Node, job_id: str, changes: dict[str, Value]) -> Node:
    index = _job_index(tree, job_id)
    if index is None:
        raise FleetError(f"job {job_id!r} has no item under jobs: to change")
    assert isinstance(tree, Mapping)
    jobs = tree.get("jobs")
    assert isinstance(jobs, Sequence)
    item = jobs.items[index]
    assert isinstance(item, Mapping)
    for key, value in changes.items():
        item = (
            _without(item, key)
            if value is DROP
            else _with_entry(item, key, scalar(value, item.pos))
        )
    items = (*jobs.items[:index], item, *jobs.items[index + 1 :])
    return _with_entry(tree, "jobs", Sequence(items, jobs.pos))


def _with_entry(mapping: Mapping, key: str, value: Node) -> Mapping:
    """``mapping`` with ``key`` set to ``value``, in its place if it has one, else last."""
    entries = list(mapping.entries)
    for index, (name, _) in enumerate(entries):
        if name.text == key:
            entries[index] = (name, value)
            return Mapping(tuple(entries), mapping.pos)
    entries.append((_key(key, mapping.pos), value))
    return Mapping(tuple(entries), mapping.pos)


def _without(mapping: Mapping, key: str) -> Mapping:
    return Mapping(tuple(e for e in mapping.entries if e[0].text != key), mapping.pos)


def _key(name: str, pos: Position) -> Scalar:
    return Scalar(name, pos, name)
