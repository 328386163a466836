"""What the API answers about jobs, runs and workers, in seed 003's words.

The seed's six status words for runs and jobs come from :mod:`engine.query.status_words`, so a
scenario and the service say the same; the scheduling window is the policy's. Times are ISO 8601
in UTC, with the tick alongside; a time past the year 9999, which no date can name, is null
(:func:`iso`) and its tick alone says when.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import takewhile
from typing import TYPE_CHECKING

from cronlapse.service.clock import ENGINE_CLOCK
from cronlapse.service.store import RunView, Views
from engine.core import Engine
from engine.model.records import PRIORITY_LEVELS, Job
from engine.query import OccurrenceRow
from engine.schedules.calendar import CronSchedule
from engine.schedules.kinds import AnyOf, Every, Once, Repeating, Schedule, next_fire_times
from engine.schedules.schedule_clock import calendar_clock

if TYPE_CHECKING:  # the live service writes its finished runs with this module's run_json
    from cronlapse.service.live import LiveState

NEXT_RUNS = 5
PAST_DATES = "past the year 9999"
"""What a time no date can name is called in a sentence."""
_PRIORITY_NAMES = {value: name for name, value in PRIORITY_LEVELS.items()}


def iso(tick: int) -> str | None:
    """The tick's time, ISO 8601 in UTC; None past the year 9999 (an interval may take a run
    there), where no date names it: the tick, written alongside, still does."""
    if not ENGINE_CLOCK.names(tick):
        return None
    return ENGINE_CLOCK.to_datetime(tick).isoformat().replace("+00:00", "Z")


def time_text(tick: int) -> str:
    """The tick's time for a sentence or a header: ISO 8601 in UTC, else the tick itself."""
    named = iso(tick)
    return f"tick {tick} ({PAST_DATES})" if named is None else named


def schedule_text(schedule: Schedule) -> str:
    """The schedule in the engine's words, its times as ISO 8601 (the engine's own description
    gives a one-time job's time and an interval's first run as ticks)."""
    if isinstance(schedule, Once):
        return f"once at {time_text(schedule.at)}"
    if isinstance(schedule, Every):
        return f"every {schedule.interval} from {time_text(schedule.first)}"
    if isinstance(schedule, AnyOf):
        return " or ".join(schedule_text(part) for part in schedule.parts)
    if isinstance(schedule, Repeating):
        anchors = schedule_text(schedule.anchors)
        return f"{anchors}, then every {schedule.interval} after each run"
    return schedule.describe()  # a calendar schedule names no tick


def _zone_name(schedule: object) -> str | None:
    """The zone a calendar schedule is read in (which an amended schedule keeps); None for an
    interval or a one-time job."""
    clock = calendar_clock(schedule)
    return None if clock is None else clock.zone.key


def _dst_name(schedule: object) -> str | None:
    """A calendar schedule's rule at DST changes (which an amended one keeps); None for an
    interval or a one-time job."""
    if isinstance(schedule, Repeating):
        return _dst_name(schedule.anchors)
    parts = schedule.parts if isinstance(schedule, AnyOf) else (schedule,)
    rules = [part.dst.value for part in parts if isinstance(part, CronSchedule)]
    return rules[0] if rules else None


def priority_value(priority: int) -> str | int:
    return _PRIORITY_NAMES.get(priority, priority)


def next_runs(engine: Engine, job: Job, count: int = NEXT_RUNS) -> list[int]:
    """The job's next runs that a date can name: an interval may take them past the year 9999,
    where the API has no time to write."""
    if job.deleted or job.next_due is None:
        return []
    ticks = next_fire_times(job.spec.schedule, max(engine.now + 1, job.next_due), count)
    return list(takewhile(ENGINE_CLOCK.names, ticks))


def job_status(state: LiveState, job: Job) -> str:
    """Seed 003's word for the job (:mod:`engine.query.status_words`)."""
    return state.engine.query.job_word(job.job_id) or "cancelled"


def stored_json(value: object) -> str:
    """JSON as the read model stores it: compact, the same text for the same answer."""
    return json.dumps(value, separators=(",", ":"))


def run_view(engine: Engine, job_id: str, tick: int, implicit: bool = False) -> RunView | None:
    """The run's row in the read model, its answer as ``GET /job/{id}/runs`` gives it; None if
    the engine has no such run."""
    row = engine.query.run(job_id, tick)
    if row is None:
        return None
    return RunView(job_id, tick, implicit, stored_json(run_json(engine, row)), row.state.is_final)


def run_json(engine: Engine, row: OccurrenceRow) -> dict:
    return {
        "scheduled": iso(row.scheduled),
        "tick": row.scheduled,
        "status": engine.query.run_word(row.state, row.scheduled),
        "attempts": [
            {
                "attempt": attempt.number,
                "worker": attempt.worker_id,
                "started": iso(attempt.started),
                "ended": None if attempt.ended is None else iso(attempt.ended),
                "outcome": attempt.outcome.value.lower(),
            }
            for attempt in row.attempts
        ],
    }


RECENT_RUNS = 10
"""Runs a job view shows besides its next ones."""


@dataclass(frozen=True, slots=True)
class RecentRuns:
    """A job's recent runs: the ones its engine answers for, as JSON by tick; the ticks of the
    ones it does not, which the store's history may keep (finished runs the engine forgot
    behind its horizon once the store held them); and how many of the job's latest finished
    runs the store is to add (those a snapshot wrote there, which the service's state then
    stopped naming: :meth:`~cronlapse.service.live.LiveService.before_snapshot`)."""

    answered: dict[int, dict]
    unanswered: list[int]
    stored: int = 0

    def read(self, views: Views, job_id: str) -> StoredRuns:
        """What the store adds (one or two seeks in the job's runs, none if nothing)."""
        kept = views.finished_at(job_id, self.unanswered) if self.unanswered else {}
        latest = views.latest_finished(job_id, RECENT_RUNS) if self.stored else []
        return StoredRuns(kept, latest)

    def json(self, stored: StoredRuns | None = None) -> list[dict]:
        """The runs by tick: the engine's, then from ``stored`` the unanswered ones it has and
        the latest finished ones not listed yet, newest first, as many as :attr:`stored`."""
        runs = dict(self.answered)
        if stored is not None:
            for tick in self.unanswered:
                if tick in stored.kept:
                    runs[tick] = json.loads(stored.kept[tick])
            named = set(runs).union(self.unanswered)
            room = self.stored
            for tick, text in reversed(stored.latest):
                if room <= 0:
                    break
                if tick not in named:
                    runs[tick] = json.loads(text)
                    room -= 1
        return [runs[tick] for tick in sorted(runs)]


@dataclass(frozen=True, slots=True)
class StoredRuns:
    """A job's recent runs the store holds: the JSON at the ticks asked for, and the latest."""

    kept: Mapping[int, str]
    latest: Sequence[tuple[int, str]]


def recent_runs(state: LiveState, job: Job) -> RecentRuns:
    engine = state.engine
    named = state.recent.get(job.job_id, {})
    ticks = list(named)
    front = engine.query.implicit_front(job.job_id)
    if front is not None and front not in ticks:
        ticks.append(front)
    answered: dict[int, dict] = {}
    unanswered = []
    for tick in sorted(ticks):
        row = engine.query.run(job.job_id, tick)
        if row is None:
            unanswered.append(tick)
        else:
            answered[tick] = run_json(engine, row)
    # A job whose runs the engine forgot had them written to the store first, and a snapshot
    # then stopped naming them here: the store gives the latest back.
    forgot = engine.query.forgotten_before(job.job_id) is not None
    stored = max(RECENT_RUNS - len(named), 0) if forgot else 0
    return RecentRuns(answered, unanswered, stored)


def job_json(state: LiveState, job: Job, detail: bool = True) -> dict:
    spec = job.spec
    view = {
        "id": job.job_id,
        "status": job_status(state, job),
        "schedule": schedule_text(spec.schedule),
        "timezone": _zone_name(spec.schedule),
        "dst": _dst_name(spec.schedule),
        "priority": priority_value(spec.priority),
        "max_retries": spec.max_attempts - 1,
        "timeout": spec.timeout,
        "payload": spec.payload,
        "run": state.runs.get(job.job_id, "noop"),
        "catch_up": spec.catch_up.value,
        "paused": job.paused_through is not None,
        "next_runs": [iso(tick) for tick in next_runs(state.engine, job)],
        "last_success": _last(state.last_success, job.job_id),
        "last_failure": _last(state.last_failure, job.job_id),
    }
    return with_runs(state, job, view) if detail else view


def _last(ticks: dict[str, int], job_id: str) -> str | None:
    """When the job's last run ended so (ISO), None if none has."""
    tick = ticks.get(job_id)
    return None if tick is None else iso(tick)


def with_runs(state: LiveState, job: Job, summary: dict) -> dict:
    """A job's detail: its summary and the recent runs its engine holds (the API's reads add
    those it forgot from the store's history: :class:`RecentRuns`)."""
    return summary | {"runs": recent_runs(state, job).json()}


def workers_json(engine: Engine) -> list[dict]:
    return [
        {
            "id": row.worker_id,
            "state": row.state.value.lower(),
            "running": None
            if row.running is None
            else {"job": row.running[0], "scheduled": iso(row.running[1]), "attempt": row.attempt},
            "utilisation": round(row.utilisation, 4),
        }
        for row in engine.query.worker_rows()
    ]
