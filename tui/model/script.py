"""A seed 001 script as a rewindable run: the same engine the protocol drives, as a timeline.

The protocol talks to a live engine line by line; the dashboard needs the engine's *inputs*
instead (a fresh engine and the commands at their ticks), so that history can replay them. This
adapter runs the script through :class:`~engine.facades.script.ScriptSession` (so it is accepted
or rejected exactly as ``cronlapse script`` does) and records, for every accepted line, the
engine command it amounted to.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.commands import Command, RegisterWorker, ScheduleJob, ScriptFailure
from engine.core import Engine
from engine.facades.script import WORKER_ID, ScriptSession
from engine.policies import Policy


@dataclass(frozen=True, slots=True)
class ScriptRun:
    """What a script amounts to: how to make its engine, its commands, and where it ends."""

    new_engine: Callable[[], Engine]
    timeline: tuple[tuple[int, Command], ...]
    until: int
    errors: tuple[str, ...]
    """``line N: what is wrong`` for every rejected line, as ``cronlapse script`` prints them."""
    output: tuple[str, ...]


def script_run(lines: Sequence[str]) -> ScriptRun:
    """Run ``lines`` through the protocol and record the commands each accepted line gave."""
    session = ScriptSession()
    timeline: list[tuple[int, Command]] = []
    policy: Policy | None = None
    for number, line in enumerate(lines, start=1):
        errors_before = len(session.result.errors)
        engine = session.engine
        now = engine.now if engine is not None else 0
        known = set(engine.jobs) if engine is not None else set()
        session.feed(number, line)
        if len(session.result.errors) > errors_before or session.engine is None:
            continue
        tokens = line.split()
        if tokens[0] == "INIT":
            policy = session.engine.policy
            timeline.append((0, RegisterWorker(WORKER_ID)))
        elif tokens[0] == "SUBMIT":
            job = session.engine.jobs.get(tokens[1])
            if job is not None and tokens[1] not in known:
                timeline.append((now, ScheduleJob(job.spec)))
        elif tokens[0] == "FAIL" and tokens[1] in known:
            timeline.append((now, ScriptFailure(tokens[1], int(tokens[2]))))
    final = session.engine.now if session.engine is not None else 0
    last_command = max((tick for tick, _ in timeline), default=0)
    chosen = policy or Policy()
    return ScriptRun(
        new_engine=lambda: Engine(chosen),
        timeline=tuple(timeline),
        until=max(final, last_command),
        errors=tuple(session.result.errors),
        output=tuple(session.result.output),
    )
