"""A loaded scenario: a typed, frozen description from which a run is a pure function.

``scenario.new_engine()`` and ``scenario.timeline`` are all it takes to replay a run: the timeline
holds every command (the workers and jobs of the file's sections included, as commands at tick 0),
each with the answer it must give, sorted stably by tick. :class:`~engine.scenario.runner.
ScenarioRunner` plays it in the documented tick order.
"""

from __future__ import annotations

from dataclasses import field

from engine.core import Engine
from engine.model.commands import Command, ModifyJob, ScheduleJob
from engine.model.policies import DispatchMode, Policy
from engine.model.records import JobSpec
from engine.model.values import value
from engine.play.ticks import Phase, TimedCommand
from engine.scenario.checks import Answer, Expectation, StatusQuery
from engine.scenario.errors import Position
from engine.schedules.clock import Clock
from engine.schedules.kinds import Once, Schedule

Action = Command | StatusQuery


@value
class TimelineEntry:
    """One command (or status query) at ``tick``, and the answer it must give, if stated."""

    tick: int
    action: Action
    expected: Answer | None
    pos: Position | None
    """Where the entry is written; the answer's position when it states one."""


@value
class Scenario:
    """Everything a scenario file says, validated."""

    source: str
    """The file it came from, for messages."""
    name: str
    description: str
    clock: Clock | None
    """The tick-to-wall-clock mapping; None when the file gives no epoch, zone or tick length."""
    until: int | None
    """``clock.until``: the last tick a full run processes."""
    policy: Policy
    seed: int
    workers: tuple[str, ...]
    """The ids under ``workers:``, in registration order."""
    jobs: tuple[JobSpec, ...]
    """The jobs under ``jobs:`` and ``generate:``, in submission order."""
    timeline: tuple[TimelineEntry, ...]
    expectations: tuple[Expectation, ...]
    phase: Phase = Phase.AFTER_EVENTS
    """Where in its tick each timeline command runs (``timeline_phase``): after the tick's own
    events (a scenario's default), or after its dispatch, each followed by another dispatch, as
    a live service applies its inputs (an exported stretch of a service's journal)."""
    seed_skip: int = 0
    """32-bit words of the seeded generator drawn before tick 0 (``seed_skip``): an exported
    stretch continues the service's generator where the service had left it."""
    sources: dict[str, dict[str, str]] = field(default_factory=dict)
    """The ``source:`` of each job under ``jobs:`` that has one, by job id: where an imported
    job came from, for the exporters; the engine never reads it."""

    def new_engine(self, archive: bool = False) -> Engine:
        """A fresh engine for this scenario: no workers or jobs yet, they are timeline commands.
        ``archive``: its finished runs leave the live state (see :class:`Engine`)."""
        return Engine(self.policy, self.seed, seed_skip=self.seed_skip, archive=archive)

    @property
    def commands(self) -> tuple[TimedCommand, ...]:
        """The timeline's engine commands, status queries left out: what a replay
        (:class:`engine.play.history.History`) needs, each in the scenario's phase."""
        return tuple(
            TimedCommand(entry.tick, self.phase, entry.action)
            for entry in self.timeline
            if not isinstance(entry.action, StatusQuery)
        )

    @property
    def tick_seconds(self) -> int:
        return 1 if self.clock is None else self.clock.tick_seconds

    @property
    def endless(self) -> bool:
        """Whether the engine would never run out of work: a recurring job with automatic
        dispatch. Playing such a scenario to its end needs an ``until``."""
        if self.policy.dispatch is not DispatchMode.AUTO:
            return False
        return any(_recurring(entry.action) for entry in self.timeline)

    @property
    def last_tick(self) -> int:
        """The latest tick with a timeline entry or an expectation (0 if none)."""
        ticks = [entry.tick for entry in self.timeline]
        ticks += [expectation.tick for expectation in self.expectations]
        return max(ticks, default=0)


def _recurring(action: Action) -> bool:
    schedule: Schedule | object = None
    if isinstance(action, ScheduleJob):
        schedule = action.spec.schedule
    elif isinstance(action, ModifyJob):
        schedule = dict(action.changes).get("schedule")
    return schedule is not None and not isinstance(schedule, Once)
