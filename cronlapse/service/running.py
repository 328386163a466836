"""Which attempts the engine has running, as what the executors need to run them."""

from __future__ import annotations

from cronlapse.service.config import NOOP
from cronlapse.service.executors import AttemptKey, Launch
from cronlapse.service.live import LiveService, is_local_slot
from cronlapse.service.views import iso
from engine.model.records import OccurrenceState


def running_launches(live: LiveService, local: bool = True) -> dict[AttemptKey, Launch]:
    """Every RUNNING attempt on the server's own worker slots (``local``), or on the slots of
    worker processes (not ``local``: :mod:`cronlapse.service.roles.dispatch`), with its executor
    (None if the config lost it) and payload."""
    query = live.engine.query
    records, jobs = query.records(), query.jobs()
    executors = live.config.executors
    launches = {}
    for job_id, scheduled in query.record_keys(OccurrenceState.RUNNING):
        occurrence = records[(job_id, scheduled)]
        attempt = occurrence.running_attempt
        if attempt is None or is_local_slot(attempt.worker_id) != local:
            continue
        key = AttemptKey(job_id, scheduled, attempt.number)
        spec = jobs[job_id].spec_for(scheduled)
        executor = executors.get(live.state.runs.get(job_id, NOOP))
        scheduled_at = iso(scheduled) or ""  # empty past the year 9999: no date names it
        launches[key] = Launch(key, executor, spec.payload, scheduled_at)
    return launches
