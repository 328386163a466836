"""What the commands that play a file share: opening it, the ``--until`` option, a runner with an
end, and the exit statuses.

Each handler is ``handler(args, out, err) -> exit status``: 0 when all is well, 1 when ``check``
found a mismatch or ``check`` or ``run`` found the engine breaking an invariant (the exactly-once
checker of :mod:`cronlapse.analyses.invariants` runs at the end of each run), 2 when a file is
invalid or cannot be read or written (nothing runs from an invalid file), 70 for an internal error.
Problems go to ``err`` as one line each, never a traceback.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import ClassVar, TextIO

from cronlapse.analyses.invariants import Checker, Violation
from cronlapse.sources import STDIN, Source, SourceInvalid, open_source
from engine.scenario import Scenario, ScenarioRunner, ScriptRun
from engine.scenario.schema import MAX_TICK

INVALID = 2
MISMATCH = 1
VIOLATION = 1
"""``run``'s status when the checker found a violation: the run printed what the engine did, and
the engine broke a guarantee (a wrong result, like a mismatch, not a crash)."""

Handler = Callable[[argparse.Namespace, TextIO, TextIO], int]


def until_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--until",
        type=tick,
        metavar="T",
        help="stop after tick T (overrides the scenario's clock.until)",
    )


def past_the_end(tick: int, scenario: Scenario) -> str | None:
    """Why a scenario cannot be played to ``tick``, or None. Played past its ``clock.until``
    or to a tick no scenario may name, a recurring job would make runs until memory ran out."""
    if scenario.until is not None and tick > scenario.until:
        return f"tick {tick} is after the scenario ends (clock.until: {scenario.until})"
    if tick > MAX_TICK:
        return f"tick {tick} is after the last tick a scenario may name ({MAX_TICK})"
    return None


def tick(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a tick (a whole number), got {text!r}"
        ) from None
    if not 0 <= value <= MAX_TICK:
        raise argparse.ArgumentTypeError(f"expected a tick from 0 to {MAX_TICK}, got {value}")
    return value


def opened(path: str, err: TextIO) -> Source | None:
    """The source at ``path`` (see :func:`cronlapse.sources.open_source`), after telling what an
    importer could not bring in; None after printing its problems, one line each."""
    try:
        source = open_source(path)
    except SourceInvalid as invalid:
        err.writelines(f"{problem}\n" for problem in invalid.problems)
        return None
    err.writelines(f"{notice}\n" for notice in source.notices)
    return source


def load(path: str, err: TextIO) -> Scenario | ScriptRun | None:
    """The scenario or played script at ``path`` (a crontab, manifest or timer is imported;
    ``-`` is a scenario on standard input); None after printing its problems."""
    source = opened(path, err)
    return None if source is None else source.played


def opened_scenario(path: str, command: str, err: TextIO) -> tuple[Source, Scenario] | None:
    """:func:`opened` and its scenario, for a command that reads scenarios only (``explain``,
    ``backfill``, ``sweep``): a seed 001 script is refused in so many words."""
    source = opened(path, err)
    if source is None:
        return None
    if source.scenario is None:
        err.write(f"{path}: {command} reads a .yaml scenario, not a seed 001 script\n")
        return None
    return source, source.scenario


def runner_for(
    scenario: Scenario, until: int | None, command: str, err: TextIO, *, archive: bool = False
) -> ScenarioRunner | None:
    """A runner with an end: recurring jobs under automatic dispatch need an ``until``.
    ``archive``: its engine archives finished runs (see :class:`ScenarioRunner`)."""
    if until is None and scenario.until is None and scenario.endless:
        err.write(
            f"{scenario.source}: recurring jobs never run out of work, so this run has no end: "
            f"add 'until' to the clock (clock: {{until: TICK}}) or pass --until TICK to "
            f"cronlapse {command}\n"
        )
        return None
    return ScenarioRunner(scenario, until, archive=archive)


class Reading:
    """When a headless command reads the log's new events (prints them, sums them up, has the
    checker observe them, lets the log release them): after the step that brings the events
    read to :attr:`events`, or after a step that logged a kind the checker must see at once
    (:attr:`Checker.observe_at_once`). Read after every step, the demo's 10,000 steps of 16
    events each paid each reader's calls and set-up 10,000 times (4% of ``cronlapse run``'s
    instructions to tick 3000, callgrind), where a few dozen reads of thousands of events do
    not; the log then holds at most this many events more than a step's.

    It also paces the play (:meth:`ticks`, for :meth:`ScenarioRunner.stretches`): while no
    rule of a job logs those kinds on its own, the engine plays the ticks between two reads
    in one stretch, not a step at a time (the demo's week: 10,074 steps, 13.18 G to 12.60 G
    instructions, callgrind)."""

    events: ClassVar[int] = 4096

    def __init__(self, runner: ScenarioRunner, checker: Checker) -> None:
        self._runner, self._checker = runner, checker
        self._log = log = runner.engine.log
        self._read = self._scanned = len(log)
        self._waiting: tuple[int, bool] | None = None
        """:meth:`Checker.facts_wait_for_commands` and the timeline entries played when it was
        asked: only a command changes it (a scan of every job, asked again after one)."""

    def ticks(self) -> int:
        """How many ticks the next stretch may play: 1 (a step) while the engine may log a kind
        the checker must see at once between two commands, else about as many as logged
        :attr:`events` events at the rate of the run so far."""
        if not self._facts_wait_for_commands():
            return 1
        played = self._runner.engine.now + 1
        return max(1, self.events * played // max(1, len(self._log)))

    def _facts_wait_for_commands(self) -> bool:
        played = self._runner.entries_played
        if self._waiting is None or self._waiting[0] != played:
            self._waiting = (played, self._checker.facts_wait_for_commands())
        return self._waiting[1]

    def due(self) -> bool:
        """After a step or a stretch: whether to read now (then call :meth:`done`)."""
        log, scanned = self._log, self._scanned
        self._scanned = len(log)
        return self._scanned - self._read >= self.events or (
            self._scanned > scanned and log.holds_any(Checker.observe_at_once, scanned)
        )

    def done(self) -> None:
        """Everything logged so far was read."""
        self._read = self._scanned = len(self._log)


class Forgetting:
    """Forgets the engine's finished runs as a headless command plays them, for commands that
    read the history only as it goes (the event lines, the summary, the checker): memory then
    follows live work, not the length of the run. Every ``every`` runs archived, the engine
    forgets those behind what the rest of the scenario reads back
    (:meth:`ScenarioRunner.history_read_from`), once the checker has walked them."""

    every: ClassVar[int] = 20_000
    """Runs archived between two forgettings: each costs the runs kept and the jobs (their
    floors, the checker's walk), so the archive holds at most this many more than it keeps."""

    def __init__(self, runner: ScenarioRunner, checker: Checker) -> None:
        self._runner, self._checker = runner, checker
        self._archived = 0

    def step(self) -> None:
        """After the checker has observed a step: forget, if enough runs were archived."""
        engine = self._runner.engine
        archived = engine.query.archived_count()
        if archived - self._archived < self.every:
            return
        self._archived = archived
        horizon = self._runner.history_read_from()
        if horizon is not None:
            self._checker.walk_before(horizon)
            engine.forget_archived(horizon)


def load_to_play(args: argparse.Namespace, err: TextIO) -> Scenario | ScriptRun | None:
    """``load`` for run and export, which also refuse ``--until`` on a script."""
    loaded = load(args.file, err)
    if isinstance(loaded, ScriptRun) and args.until is not None:
        err.write(
            f"{loaded.source}: --until does not apply to a script: its TICK lines set the time\n"
        )
        return None
    return loaded


def read_once(command: str, paths: Sequence[str], err: TextIO) -> bool:
    """Whether ``-`` is among ``paths`` at most once; else, said as a usage error: a second
    read of standard input finds it empty, and would call the scenario empty."""
    if paths.count(STDIN) <= 1:
        return True
    err.write(
        f"cronlapse {command}: - (standard input) may be given once: it can be read only once\n"
    )
    return False


def violation_lines(source: str, found: list[Violation]) -> list[str]:
    """``FILE: tick T: what broke``, one line each."""
    return [f"{source}: {violation}\n" for violation in found]


def plural(number: int, one: str, many: str | None = None) -> str:
    return f"{number} {one if number == 1 else many or one + 's'}"
