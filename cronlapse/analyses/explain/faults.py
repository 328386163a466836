"""A lost or timed-out attempt: the fault or the limit, and what followed.

A lost attempt's worker went down (``WorkerWentDown`` at the same tick); a timed-out attempt
reached its run's execution limit. What followed is the run's next event after it.
"""

from __future__ import annotations

from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.lines import Line, Tag, line, section
from engine.model import events as ev


def faults(context: Context, job_id: str, scheduled: int) -> Line | None:
    run = context.run_events(job_id, scheduled)
    rows = []
    for index, event in enumerate(run):
        if isinstance(event, ev.AttemptLost):
            cause = line(
                f"attempt {event.attempt} was lost at {context.at(event.tick)}: "
                f"worker {event.worker_id} went down",
                tag=Tag.WARN,
            )
        elif isinstance(event, ev.AttemptTimedOut):
            cause = line(
                f"attempt {event.attempt} timed out at {context.at(event.tick)} on "
                f"{event.worker_id}: {_limit(context, job_id, scheduled, event)}",
                tag=Tag.WARN,
            )
        else:
            continue
        cause = line(cause.text, *_followed(context, run[index + 1 :]), tag=cause.tag)
        rows.append(cause)
    return section("Faults and limits", rows) if rows else None


def _limit(context: Context, job_id: str, scheduled: int, event: ev.AttemptTimedOut) -> str:
    query = context.engine.query
    record = query.record(job_id, scheduled)
    job = query.jobs()[job_id]
    attempt = record.attempts[event.attempt - 1] if record is not None else None
    timeout = record.timeout if record is not None else job.spec.timeout
    started = attempt.started if attempt is not None else event.tick
    limit = job.spec_for(scheduled).run_timeout
    first = record.attempts[0].started if record is not None and record.attempts else started
    if (
        limit is not None
        and event.tick == first + limit
        and (timeout is None or started + timeout != event.tick)
    ):
        return (
            f"the run's run_timeout: {limit} ticks from its first attempt's start at "
            f"{first}, reached at {first} + {limit}"
        )
    words = f"started at {started}, limit {timeout} ticks, reaped at {started} + {timeout}"
    if event.attempt in job.spec.hang_attempts:
        return words + " (this attempt was scripted to hang: only a timeout ends it)"
    duration = record.duration if record is not None else job.spec.duration
    return words + f" (its duration is {duration} ticks)"


def _followed(context: Context, later: list[ev.OccurrenceEvent]) -> list[Line]:
    """What the run did next: its retry, its start elsewhere, or its end."""
    rows = []
    for event in later:
        if isinstance(event, ev.RetryScheduled):
            rows.append(
                line(
                    f"then: attempt {event.next_attempt} eligible at "
                    f"{context.at(event.eligible_at)}"
                )
            )
        elif isinstance(event, ev.AttemptStarted):
            rows.append(
                line(
                    f"then: attempt {event.attempt} started on {event.worker_id} "
                    f"at {context.at(event.tick)}"
                )
            )
            break
        elif isinstance(event, ev.OccurrenceFailed):
            rows.append(line(f"then: the run failed for good after {event.attempts} attempts"))
            break
        elif isinstance(event, ev.OccurrenceCancelled):
            rows.append(line(f"then: the run was cancelled ({event.reason.value})"))
            break
    if not rows:
        rows.append(line("nothing else has happened to it yet", tag=Tag.NOTE))
    return rows
