"""The journal's rows: their format, and what each one does to the service's engine.

A row is one input, ``(seq, tick, phase, verb, args)``: its arguments are a scenario timeline's
words for the command (``{"id": "x", "every": 60}`` for ``schedule``), read back by the
service's codec (:mod:`cronlapse.service.codec`, the scenario vocabulary's readers over JSON), so
a row read again at its tick builds the very command that was applied live. Every row applies at
its tick in the ``AFTER_DISPATCH`` phase, to an engine of :data:`SERVICE_POLICY`.

This module is where the service and whoever replays its journal elsewhere (the dashboard, the
export) meet: the decoding lives here, in the store's face, so a reader of a journal needs the
face and nothing of the service behind it. It is pure: the engine, the scenario language and the
service's codec and clock, which do no I/O.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from cronlapse.service.codec import Decoded, InputInvalid
from cronlapse.service.stored_inputs import decode
from engine.core import Engine
from engine.model.backoff import Backoff, BackoffKind, Jitter
from engine.model.commands import PauseJob, ResumeJob
from engine.model.policies import CompletionMode, DeliveryMode, NotificationPolicy
from engine.model.presets import seed_003_policy
from engine.play.ticks import Phase, TimedCommand

PHASE = Phase.AFTER_DISPATCH
"""The phase every live input applies in: on the settled tick, after its automatic dispatch."""
NOTIFICATION_POLICY = NotificationPolicy(
    max_tries=8,
    backoff=Backoff(BackoffKind.EXPONENTIAL, base=5, cap=300, jitter=Jitter.FULL),
    delivery=DeliveryMode.REPORTED,
)
"""Real deliveries: eight tries, about ten minutes of backoff at most (5 s doubling up to 5
minutes, full jitter), each try ended by its deliverer's report
(:mod:`cronlapse.service.delivery`)."""
SERVICE_POLICY = dataclasses.replace(
    seed_003_policy(), completion=CompletionMode.REPORTED, notifications=NOTIFICATION_POLICY
)
"""Seed 003's choices (the ``seed-003`` preset, :mod:`engine.model.presets`), with attempts that
end when their executor reports and notification tries that end when their deliverer reports:
the engine every journal's rows are applied to."""


@dataclass(frozen=True, slots=True)
class JournalRow:
    """One journaled input: its position, the tick and phase it applies at, its verb and
    arguments."""

    seq: int
    tick: int
    phase: int
    verb: str
    args: dict


@dataclass(frozen=True, slots=True)
class Entry:
    """An input to journal: a row without its position, which the journal gives it."""

    tick: int
    phase: int
    verb: str
    args: dict


class RowUnreadable(ValueError):
    """A journal row that no longer reads (a reader became stricter than the code that wrote
    it): a replay skips it, as a restart does."""


def read_row(row: JournalRow) -> Decoded | None:
    """What ``row`` does, read at its tick: None for a clock reading and for a downtime (their
    effect depends on the state, not on their words); :class:`RowUnreadable`. A row in a plain
    form is decoded directly (:mod:`cronlapse.service.stored_inputs`), any other by the codec's
    readers, as when it was written."""
    try:
        return decode(row.verb, row.args, row.tick)
    except InputInvalid as invalid:
        raise RowUnreadable(str(invalid)) from None


def row_command(row: JournalRow) -> TimedCommand | None:
    """The engine command ``row`` applies, at its tick, as the service applies it (and as a
    :class:`~engine.play.history.History`'s timeline holds it, to replay the journal elsewhere).

    None for a clock reading (time passing, which a replay plays anyway) and for a change of
    executor alone; a downtime's commands depend on the state (:func:`downtime_commands`).
    :class:`RowUnreadable` when the row no longer reads."""
    decoded = read_row(row)
    if decoded is None or decoded.command is None:
        return None
    return TimedCommand(row.tick, PHASE, decoded.command)


def pausable_jobs(engine: Engine) -> list[str]:
    """The jobs a downtime pauses: not deleted, not paused, with runs to come."""
    return [
        job_id
        for job_id, job in engine.query.jobs().items()
        if not job.deleted and job.paused_through is None and job.next_due is not None
    ]


def downtime_commands(engine: Engine, since: int, tick: int) -> list[TimedCommand]:
    """A downtime from ``since`` to ``tick`` for ``engine`` as it is at ``since``: every job with
    runs to come paused at ``since`` and resumed at ``tick``, where the engine's resume applies
    each job's catch_up rule to the runs that fell due in between."""
    jobs = pausable_jobs(engine)
    pauses = [TimedCommand(since, PHASE, PauseJob(job_id)) for job_id in jobs]
    return pauses + [TimedCommand(tick, PHASE, ResumeJob(job_id)) for job_id in jobs]
