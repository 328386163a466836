"""A seed 001 script as a rewindable run: the same engine the protocol drives, as a timeline.

The protocol talks to a live engine line by line; the dashboard needs the engine's *inputs*
instead (a fresh engine and the commands at their places in time), so that history can replay
them. The script runs through :class:`~engine.facades.script.ScriptSession` (so it is accepted or
rejected exactly as ``cronlapse script`` does), which records every command it applied with its
tick and phase; the history replays that record through the same tick driver.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.core import Engine
from engine.facades.script import ScriptSession
from engine.model.policies import Policy
from engine.play.ticks import TimedCommand


@dataclass(frozen=True, slots=True)
class ScriptRun:
    """What a script amounts to: how to make its engine, its commands, and where it ends."""

    new_engine: Callable[[], Engine]
    timeline: tuple[TimedCommand, ...]
    until: int
    clock: int
    """Where the protocol's clock ended: it processed every tick before this one."""


def script_run(lines: Sequence[str]) -> ScriptRun:
    """Run ``lines`` through the protocol and keep the commands it applied."""
    session = ScriptSession()
    for number, line in enumerate(lines, start=1):
        session.feed(number, line)
    return replay(session)


def replay(session: ScriptSession) -> ScriptRun:
    """What a protocol session that has played its script amounts to, for a history."""
    final = session.engine.now if session.engine is not None else 0
    last_command = max((timed.tick for timed in session.commands), default=0)
    chosen = session.policy or Policy()
    return ScriptRun(
        new_engine=lambda: Engine(chosen, archive=True),
        timeline=tuple(session.commands),
        until=max(final - 1, last_command, 0),
        clock=final,
    )
