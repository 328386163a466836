"""Which attempts the engine has running, as what the executors need to run them.

:func:`running_launches` scans every running attempt: at start, and for the worker processes'
dispatcher. After each input the server asks :class:`RunningChanges` instead, which follows the
engine's events: an input changes only the runs its events name, so its cost is theirs, not
the number of attempts running (issue 36: a datetime conversion per running attempt after every
input was an eighth of a burst's time).
"""

from __future__ import annotations

from collections.abc import Iterable

from cronlapse.service.config import NOOP
from cronlapse.service.executors import AttemptKey, Launch
from cronlapse.service.live import LiveService, is_local_slot
from cronlapse.service.views import iso
from engine.model import events as ev
from engine.model.records import OccurrenceState


def running_launches(live: LiveService, local: bool = True) -> dict[AttemptKey, Launch]:
    """Every RUNNING attempt on the server's own worker slots (``local``), or on the slots of
    worker processes (not ``local``: :mod:`cronlapse.service.roles.dispatch`), with its executor
    (None if the config lost it) and payload."""
    launches = {}
    for job_id, scheduled in live.engine.query.record_keys(OccurrenceState.RUNNING):
        launch = running_launch(live, job_id, scheduled, local)
        if launch is not None:
            launches[launch.key] = launch
    return launches


def running_launch(
    live: LiveService, job_id: str, scheduled: int, local: bool = True
) -> Launch | None:
    """The run's running attempt, if it has one on the slots ``local`` says (see
    :func:`running_launches`)."""
    occurrence = live.engine.query.record(job_id, scheduled)
    attempt = None if occurrence is None else occurrence.running_attempt
    if attempt is None or is_local_slot(attempt.worker_id) != local:
        return None
    key = AttemptKey(job_id, scheduled, attempt.number)
    job = live.engine.query.job(job_id)
    assert job is not None, "a running attempt's job is known"
    executor = live.config.executors.get(live.state.runs.get(job_id, NOOP))
    scheduled_at = iso(scheduled) or ""  # empty past the year 9999: no date names it
    return Launch(key, executor, job.spec_for(scheduled).payload, scheduled_at)


class RunningChanges:
    """The attempts an input may have started or ended, from the engine's events (an observer
    of :attr:`~cronlapse.service.live.LiveService.on_events`): each run an event names, and each
    attempt an event names. :meth:`take` says what each of them is now."""

    def __init__(self, live: LiveService) -> None:
        self.live = live
        self.runs: dict[tuple[str, int], None] = {}
        self.attempts: dict[AttemptKey, None] = {}

    def __call__(self, events: Iterable[ev.Event]) -> None:
        for event in events:
            if isinstance(event, ev.OccurrenceEvent):
                self.runs[(event.job_id, event.scheduled)] = None
                number = getattr(event, "attempt", None)
                if isinstance(number, int):
                    self.attempts[AttemptKey(event.job_id, event.scheduled, number)] = None

    def take(self) -> dict[AttemptKey, Launch | None]:
        """Each attempt noted since the last call: its launch if it runs on the server's own
        slots, None if it does not (any more)."""
        changed: dict[AttemptKey, Launch | None] = dict.fromkeys(self.attempts)
        for job_id, scheduled in self.runs:
            launch = running_launch(self.live, job_id, scheduled)
            if launch is not None:
                changed[launch.key] = launch
        self.runs.clear()
        self.attempts.clear()
        return changed
