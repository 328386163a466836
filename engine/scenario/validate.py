"""The loader: a scenario file in, a validated :class:`Scenario` out, or every problem at once.

Reading happens in two passes. The first reads every section into values, recording type and
range problems where they are; the second checks what only the whole file can tell: duplicate
ids, references to jobs and workers that no section defines (by then), dependencies on jobs
defined later or on recurring jobs, dependency cycles, and ticks past ``clock.until``.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from engine.model import commands as cmd
from engine.model.values import value
from engine.play.ticks import Phase
from engine.rules.pools import pool_problem
from engine.scenario.checks import Expectation
from engine.scenario.command_reader import defined_zones
from engine.scenario.cycles import shortest_cycle
from engine.scenario.errors import Problems, did_you_mean, path_index, path_key
from engine.scenario.expect import ExpectReader
from engine.scenario.generate import read_generators
from engine.scenario.jobs import INVALID, SETTING_KEYS, Definition, JobReader
from engine.scenario.model import Scenario, TimelineEntry
from engine.scenario.outages import outage_entries, read_outages
from engine.scenario.schema import Reader
from engine.scenario.settings import (
    ClockSettings,
    past_year_9999,
    read_clock,
    read_policy,
    read_pools,
)
from engine.scenario.timeline import RawEntry, Reference, TimelineReader
from engine.scenario.yaml_source import Mapping, Node, Sequence, parse_yaml, read_text
from engine.schedules.kinds import Once

TOP_KEYS = (
    "scenario",
    "description",
    "clock",
    "policy",
    "seed",
    "seed_skip",
    "timeline_phase",
    "workers",
    "pools",
    "scheduler_down",
    "defaults",
    "jobs",
    "generate",
    "timeline",
    "expect",
)
WORKER_KEYS = ("id", "down")
PHASES = {"after_events": Phase.AFTER_EVENTS, "after_dispatch": Phase.AFTER_DISPATCH}
"""``timeline_phase``: where in its tick a timeline command runs (see model.Scenario.phase)."""
MAX_SEED_SKIP = 10**10


def load_scenario(path: str) -> Scenario:
    """The scenario in the file at ``path``; raises :class:`ScenarioInvalid` with every problem."""
    return parse_scenario(read_text(path), path)


def parse_scenario(text: str, source: str = "<scenario>") -> Scenario:
    """The scenario in ``text``; ``source`` names it in messages."""
    return parse_document(text, source)[0]


def parse_document(text: str, source: str = "<scenario>") -> tuple[Scenario, Document]:
    """The scenario in ``text`` (``source`` names it in messages), and the document it was
    loaded from: for an opener whose caller may load edits of the text (a sweep's variants start
    from its tree and memo, and so read the jobs of its load rather than again)."""
    problems = Problems(source)
    document = Document(parse_yaml(text, problems), JobsMemo())
    return scenario_from_tree(document.tree, problems, document.memo), document


def scenario_from_tree(tree: Node, problems: Problems, memo: JobsMemo | None = None) -> Scenario:
    """The scenario in a parsed document (a sweep's variant is an edited one); raises
    :class:`ScenarioInvalid` with ``problems`` and every problem the document has. A caller
    loading many edits of one document passes the same ``memo`` to each (see
    :class:`JobsMemo`)."""
    scenario = _Loader(Reader(problems), memo).load(tree)
    problems.raise_if_any()
    assert scenario is not None
    return scenario


class JobsMemo:
    """The jobs of the last document loaded with this memo, for the next load whose jobs come
    from the very same nodes.

    Why: a sweep loads one document once a variant, each an edit that shares every node it did
    not replace, and a variant mostly changes the workers or a setting, not the jobs. Reading
    the demo's 2,000 generated jobs was nine tenths of a load, 0.45 G instructions (callgrind),
    5% of one of its variants' play. The jobs read from the ``clock``, ``defaults``, ``jobs``
    and ``generate`` nodes and the seed alone, and a definition is frozen, so two scenarios may
    share them. Only jobs read without a problem are kept (a load with one raises anyway). The
    entry is one tuple, replaced whole, so that threads sharing a memo (a Dask worker's) never
    see half of one."""

    SECTIONS = ("clock", "defaults", "jobs", "generate")
    """The top-level keys whose nodes the jobs are read from (with the seed)."""

    def __init__(self) -> None:
        self._last: tuple[tuple[Node | None, ...], int | None, tuple[Definition, ...]] | None = None

    def get(self, sections: tuple[Node | None, ...], seed: int | None) -> list[Definition] | None:
        """The jobs kept for these section nodes (compared by identity) and seed, or None."""
        last = self._last
        if last is None or last[1] != seed:
            return None
        kept, _, definitions = last
        if any(node is not other for node, other in zip(sections, kept, strict=True)):
            return None
        return list(definitions)

    def keep(
        self, sections: tuple[Node | None, ...], seed: int | None, definitions: list[Definition]
    ) -> None:
        """Keep ``definitions`` as the jobs these section nodes and seed read to."""
        self._last = (sections, seed, tuple(definitions))


class Document(NamedTuple):
    """A parsed scenario and the memo of the jobs it was loaded with: the loads of edits of it
    that pass this memo read the jobs they did not edit from it (see :class:`JobsMemo`)."""

    tree: Node
    memo: JobsMemo


@value
class _Worker:
    name: str
    tick: int
    node: Node
    path: str
    lenient: bool = False


class _Loader:
    def __init__(self, reader: Reader, memo: JobsMemo | None = None) -> None:
        self.reader = reader
        self.source = reader.problems.source
        self.memo = memo

    def load(self, tree: Node) -> Scenario | None:
        reader = self.reader
        fields = reader.mapping(tree, "", TOP_KEYS, required=("scenario",))
        if fields is None:
            return None
        name = description = ""
        if "scenario" in fields:
            name = reader.string(fields["scenario"], "scenario", "a scenario name") or ""
        if "description" in fields:
            description = reader.string(fields["description"], "description", "text") or ""
        clock = read_clock(reader, fields.get("clock"))
        tick_seconds = clock.clock.tick_seconds if clock.clock is not None else 1
        policy = read_policy(reader, fields.get("policy"), tick_seconds)
        pools = read_pools(reader, fields.get("pools"))
        if policy is not None and pools:
            policy = dataclasses.replace(policy, pools=tuple(pools.items()))
        seed: int | None = 0
        if "seed" in fields:
            seed = reader.integer(fields["seed"], "seed", 0, 2**63 - 1)
        seed_skip: int | None = 0
        if "seed_skip" in fields:
            seed_skip = reader.integer(fields["seed_skip"], "seed_skip", 0, MAX_SEED_SKIP)
        phase: Phase | None = Phase.AFTER_EVENTS
        if "timeline_phase" in fields:
            phase = reader.choice(fields["timeline_phase"], "timeline_phase", PHASES)
        jobs = JobReader(reader, clock.clock, clock.failed)
        defaults = self._defaults(jobs, fields.get("defaults"))
        workers, setup = self._workers(fields.get("workers"))
        definitions = self._jobs(jobs, fields, defaults, seed)
        timeline = TimelineReader(reader, jobs, defaults)
        timeline.zones = defined_zones(definitions, timeline.schedules)
        raw = timeline.read(fields["timeline"]) if "timeline" in fields else []
        definitions += timeline.schedules
        outages = read_outages(reader, fields.get("scheduler_down"))
        once = {
            definition.job_id: definition.schedule
            for definition in definitions
            if definition.job_id is not None and isinstance(definition.schedule, Once)
        }
        broken = {
            definition.job_id
            for definition in definitions
            if definition.schedule is None and definition.job_id is not None
        }
        expect = ExpectReader(reader, once, broken)
        expectations = expect.read(fields["expect"]) if "expect" in fields else []
        registered = [
            _Worker(ref.name, ref.tick, ref.node, ref.path, ref.lenient)
            for ref in timeline.registrations
        ]
        self._check_ids(definitions, workers + registered)
        self._check_references(
            timeline.references + expect.references, definitions, workers + registered
        )
        self._check_dependencies(definitions)
        if pools is not None:
            self._check_pools(definitions, pools)
        self._check_ticks(clock, raw, expectations)
        if reader.problems or policy is None or seed is None:
            return None
        assert seed_skip is not None and phase is not None
        static = definitions[: len(definitions) - len(timeline.schedules)]
        return Scenario(
            source=self.source,
            name=name,
            description=description,
            clock=clock.clock,
            until=clock.until,
            policy=policy,
            seed=seed,
            workers=tuple(worker.name for worker in workers),
            jobs=tuple(definition.spec for definition in static if definition.spec is not None),
            timeline=_timeline(setup + outage_entries(outages, definitions, raw), static, raw),
            expectations=tuple(sorted(expectations, key=lambda expectation: expectation.tick)),
            phase=phase,
            seed_skip=seed_skip,
            sources={
                definition.job_id: definition.source
                for definition in static
                if definition.spec is not None and definition.source is not None
            },
        )

    # ------------------------------------------------------------- sections

    def _defaults(self, jobs: JobReader, node: Node | None) -> dict[str, object]:
        if node is None:
            return {}
        fields = self.reader.mapping(node, "defaults", SETTING_KEYS)
        settings = {} if fields is None else jobs.settings(fields, "defaults")
        return {key: value for key, value in settings.items() if value is not INVALID}

    def _workers(self, node: Node | None) -> tuple[list[_Worker], list[TimelineEntry]]:
        """The ``workers:`` ids and their setup commands: registrations, then down/up pairs."""
        workers: list[_Worker] = []
        registrations: list[TimelineEntry] = []
        outages: list[TimelineEntry] = []
        if node is None:
            return workers, registrations
        for path, item in self.reader.items(node, "workers", "a list of worker ids"):
            fields = {"id": item}
            if isinstance(item, Mapping):
                fields = self.reader.mapping(item, path, WORKER_KEYS, required=("id",)) or {}
            if "id" not in fields:
                continue
            id_path = path if fields["id"] is item else path_key(path, "id")
            name = self.reader.identifier(fields["id"], id_path, "a worker id")
            if name is None:
                continue
            workers.append(_Worker(name, 0, fields["id"], id_path))
            registrations.append(TimelineEntry(0, cmd.RegisterWorker(name), None, item.pos))
            if "down" in fields:
                outages += self._outages(name, fields["down"], path_key(path, "down"))
        return workers, registrations + outages

    def _outages(self, worker: str, node: Node, path: str) -> list[TimelineEntry]:
        entries: list[TimelineEntry] = []
        previous_end = -1
        for item_path, item in self.reader.items(node, path, "a list of [down, up] tick pairs"):
            pair = item.items if isinstance(item, Sequence) else ()
            if len(pair) != 2:
                self.reader.expected(
                    item, item_path, "[down, up]: the ticks it is down from and up at"
                )
                continue
            down = self.reader.tick(pair[0], path_index(item_path, 0))
            up = self.reader.tick(pair[1], path_index(item_path, 1))
            if down is None or up is None:
                continue
            if up <= down:
                message = f"expected a tick after {down}, got {up}"
                self.reader.error(pair[1], path_index(item_path, 1), message)
                continue
            if down < previous_end:
                message = f"expected a tick from {previous_end} on: outages come in order, apart"
                self.reader.error(pair[0], path_index(item_path, 0), message)
                continue
            previous_end = up
            entries.append(TimelineEntry(down, cmd.WorkerDown(worker), None, pair[0].pos))
            entries.append(TimelineEntry(up, cmd.WorkerUp(worker), None, pair[1].pos))
        return entries

    def _jobs(
        self,
        jobs: JobReader,
        fields: dict[str, Node],
        defaults: dict[str, object],
        seed: int | None,
    ) -> list[Definition]:
        """The ``jobs:`` and ``generate:`` definitions: the memo's, if it has them for these
        nodes, else read (and given to the memo when nothing so far had a problem)."""
        memo = self.memo
        sections = tuple(fields.get(key) for key in JobsMemo.SECTIONS)
        if memo is not None and (kept := memo.get(sections, seed)) is not None:
            return kept
        read = []
        if "jobs" in fields:
            for path, item in self.reader.items(fields["jobs"], "jobs", "a list of jobs"):
                read.append(jobs.job(item, path, 0, defaults))
        if "generate" in fields:
            for generated in read_generators(self.reader, fields["generate"], seed):
                read.append(jobs.job(generated.node, generated.path, 0, defaults))
        definitions = [definition for definition in read if definition is not None]
        if memo is not None and not self.reader.problems:
            memo.keep(sections, seed, definitions)
        return definitions

    # ---------------------------------------------------------- whole file

    def _check_ids(self, definitions: list[Definition], workers: list[_Worker]) -> None:
        """Ids defined twice: always an error in the sections, and for a command unless it states
        the answer it expects (then the engine's CONFLICT is what it tests)."""
        first_job: dict[str, Definition] = {}
        for definition in definitions:
            job_id = definition.job_id
            if job_id is None:
                continue
            first = first_job.setdefault(job_id, definition)
            if first is not definition and not definition.lenient:
                node = definition.id_node()
                message = f"duplicate job id {job_id!r} (first at {first.id_node().pos})"
                self.reader.error(node, path_key(definition.path, "id"), message)
        first_worker: dict[str, _Worker] = {}
        for worker in workers:
            earlier = first_worker.setdefault(worker.name, worker)
            if earlier is not worker and not worker.lenient:
                message = f"duplicate worker id {worker.name!r} (first at {earlier.node.pos})"
                self.reader.error(worker.node, worker.path, message)

    def _check_pools(self, definitions: list[Definition], pools: dict[str, int]) -> None:
        """A job's pool is one ``pools:`` defines (the engine's message, at the job's key),
        unless a ``schedule`` command states the answer it expects: the engine's refusal is
        then what it tests, as for a conflicting id (an exported service journal has these)."""
        for definition in definitions:
            if definition.lenient:
                continue
            pool = definition.spec.pool if definition.spec is not None else None
            problem = pool_problem(pools, pool)
            if problem is not None:
                node = definition.node.get("pool") if isinstance(definition.node, Mapping) else None
                self.reader.error(
                    node or definition.node, path_key(definition.path, "pool"), problem
                )

    def _check_references(
        self, references: list[Reference], definitions: list[Definition], workers: list[_Worker]
    ) -> None:
        """Each id used at tick T must be defined at or before T."""
        defined: dict[str, dict[str, int]] = {"job": {}, "worker": {}}
        for definition in definitions:
            if definition.job_id is not None:
                defined["job"].setdefault(definition.job_id, definition.tick)
        for worker in workers:
            defined["worker"].setdefault(worker.name, worker.tick)
        for reference in references:
            if reference.lenient:
                continue
            ticks = defined[reference.kind]
            tick = ticks.get(reference.name)
            if tick is None:
                hint = did_you_mean(reference.name, ticks)
                message = f"unknown {reference.kind} {reference.name!r}{hint}"
            elif tick > reference.tick:
                message = (
                    f"{reference.kind} {reference.name!r} is used at tick {reference.tick} "
                    f"but only defined at tick {tick}"
                )
            else:
                continue
            self.reader.error(reference.node, reference.path, message)

    def _check_dependencies(self, definitions: list[Definition]) -> None:
        """Dependencies must be jobs defined before the job; cycles are spelled out.

        A job with another error is checked too (with what of it could be read), so that one
        pass reports every error of the file."""
        order = {
            d.job_id: index
            for index, d in reversed(list(enumerate(definitions)))
            if d.job_id is not None
        }
        cycles: set[frozenset[str]] = set()
        for index, definition in enumerate(definitions):
            for name in definition.dependencies:
                node, path = definition.dependency_node(name)
                target = order.get(name)
                if target is None:
                    if not definition.lenient:
                        hint = did_you_mean(name, order)
                        self.reader.error(node, path, f"unknown job {name!r}{hint}")
                    continue
                cycle = None
                if definition.job_id is not None:
                    cycle = shortest_cycle(definitions, order, definition.job_id, name)
                if cycle is not None:
                    if frozenset(cycle) not in cycles:
                        cycles.add(frozenset(cycle))
                        self.reader.error(node, path, "dependency cycle: " + " -> ".join(cycle))
                    continue
                dependency = definitions[target]
                if target >= index and not definition.lenient:
                    line = dependency.id_node().pos.line
                    message = (
                        f"{name!r} is defined after this job (line {line}): "
                        "a job can only depend on jobs defined before it"
                    )
                    self.reader.error(node, path, message)

    def _check_ticks(
        self, clock: ClockSettings, raw: list[RawEntry], expectations: list[Expectation]
    ) -> None:
        """Nothing may be planned after ``clock.until`` (it would silently never happen), and
        with a clock every tick must be one it can name."""
        points = [(entry.tick, entry.at_node.pos, "timeline") for entry in raw]
        points += [(expectation.tick, expectation.pos, "expect") for expectation in expectations]
        until, problems = clock.until, self.reader.problems
        for tick, pos, section in points:
            if until is not None and tick > until:
                message = f"tick {tick} is after clock.until ({until}): it would never be reached"
                problems.add(pos, section, message)
            elif clock.clock is not None and not clock.clock.names(tick):
                problems.add(pos, section, past_year_9999(clock.clock, tick))


def _timeline(
    setup: list[TimelineEntry], jobs: list[Definition], raw: list[RawEntry]
) -> tuple[TimelineEntry, ...]:
    """Everything in tick order; within a tick: registrations, jobs, worker outages, then the
    timeline's commands in file order."""
    registrations = [entry for entry in setup if isinstance(entry.action, cmd.RegisterWorker)]
    outages = [entry for entry in setup if not isinstance(entry.action, cmd.RegisterWorker)]
    scheduled = [
        TimelineEntry(0, cmd.ScheduleJob(definition.spec), None, definition.node.pos)
        for definition in jobs
        if definition.spec is not None
    ]
    commands = [TimelineEntry(e.tick, e.action, e.expected, e.pos) for e in raw]
    groups = (registrations, scheduled, outages, commands)
    keyed = [
        ((entry.tick, group), entry) for group, entries in enumerate(groups) for entry in entries
    ]
    keyed.sort(key=lambda pair: pair[0])
    return tuple(entry for _, entry in keyed)
