"""Opening a file: a scenario (YAML), a seed 001 script, or a crontab, manifest or timer
(opened by :func:`cronlapse.sources.open_source`, as every front end opens one) becomes a
:class:`Session`.

A session is what the dashboard shows: a name, the tick-to-time clock if the file has one, and a
:class:`~engine.play.history.History` to step through. A file that cannot run raises
:class:`LoadFailed` with every problem as ``file:line:column`` where the loader knows the place;
nothing a file contains escapes as another exception.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from cronlapse.sources import Source, SourceInvalid, open_source
from engine.core import Engine
from engine.model.problems import Problem
from engine.play.history import History
from engine.play.ticks import TimedCommand
from engine.scenario import Scenario, ScenarioRunner
from engine.schedules.clock import Clock
from tui.model.script import replay

DAY = 86_400
"""Seconds in a day: an open-ended run's horizon grows by a day of ticks."""


class LoadFailed(Exception):
    """A file that cannot be opened as a session; ``problems`` says every reason."""

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.source = source
        self.problems = list(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))


@dataclass(slots=True)
class Session:
    """A run to watch: what it is called, how ticks map to time, and its history."""

    name: str
    history: History
    path: Path | None = None
    kind: str = "scenario"
    """``scenario``, ``script`` or ``empty``."""
    clock: Clock | None = None
    description: str = ""
    notices: tuple[str, ...] = ()
    """What the user should hear on opening it: what an imported file could not bring in."""

    @property
    def engine(self) -> Engine:
        return self.history.engine


def make_session(
    name: str,
    new_engine: Callable[[], Engine],
    timeline: Sequence[TimedCommand] = (),
    until: int | None = None,
    *,
    clock: Clock | None = None,
    path: Path | None = None,
    kind: str = "scenario",
    description: str = "",
) -> Session:
    """A session over engine objects directly (tests, benchmarks, other front ends)."""
    history = new_history(new_engine, timeline, until, clock)
    return Session(name, history, path, kind, clock, description)


def new_history(
    new_engine: Callable[[], Engine],
    timeline: Sequence[TimedCommand],
    until: int | None,
    clock: Clock | None,
) -> History:
    """A history whose open-ended horizon grows a day at a time when ticks have a clock (a
    round number on the time axis), else by the history's default chunk."""
    if clock is None:
        return History(new_engine, timeline, until)
    return History(new_engine, timeline, until, horizon_chunk=max(1, DAY // clock.tick_seconds))


def empty_session(name: str = "no scenario") -> Session:
    """A session with nothing in it: the dashboard's state before a file has loaded. It has no
    ``until``: jobs scheduled with ``:schedule`` play on like an open-ended scenario's."""
    return make_session(name, partial(Engine, archive=True), (), None, kind="empty")


def file_stamp(path: Path) -> tuple[int, int] | None:
    """What changes when a file is saved (modification time, size); None if it is gone."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def load_session(path: str | Path) -> Session:
    """The session for the file at ``path`` (opened as every front end opens one: a scenario, a
    seed 001 script, or an imported crontab, manifest or timer); :class:`LoadFailed` if it
    cannot run. The dashboard never reads standard input: ``-`` is a file of that name."""
    path = Path(path)
    source = str(path)
    try:
        return _session(open_source(path, stdin=False), path)
    except SourceInvalid as invalid:
        raise LoadFailed(source, invalid.problems) from None
    except Exception as error:  # a loader bug must not take the dashboard down with it
        problem = Problem(source, None, None, "", f"cannot load: {type(error).__name__}: {error}")
        raise LoadFailed(source, [problem]) from error


def _session(source: Source, path: Path) -> Session:
    """What the dashboard shows of an opened source."""
    if source.script is not None:
        run = replay(source.script.session)
        history = History(run.new_engine, run.timeline, run.until)
        return Session(source.name, history, path, "script")
    scenario = source.scenario
    assert scenario is not None  # a source that is no script is a scenario
    until = scenario.until
    if until is None and not scenario.endless:
        until = _headless_end(scenario)
    new_engine = partial(scenario.new_engine, archive=True)
    history = new_history(new_engine, scenario.commands, until, scenario.clock)
    return Session(
        source.name, history, path, "scenario", scenario.clock, scenario.description, source.notices
    )


def _headless_end(scenario: Scenario) -> int:
    """Where ``cronlapse run`` ends a scenario that has no ``until`` and runs out of work: its
    last timeline or ``expect`` tick, or where the engine goes idle, whichever is later. The
    dashboard ends there too (stopping at the last event would leave out an ``expect`` tick
    after it, and the two would disagree on the run's last tick)."""
    runner = ScenarioRunner(scenario)
    runner.run()
    return max(runner.processed, 0)
