"""Why a run failed for good: its retries ran out, its job's ``run_timeout`` passed, or the
policy took a timed-out run back without its retries. One reading for the "why?" answer
(:mod:`cronlapse.analyses.explain.run`) and the dashboard's cancelled and failed pane, so that the
two never tell different stories."""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Engine
from engine.model.policies import OnTimeout
from engine.model.records import AttemptOutcome, Occurrence


@dataclass(frozen=True, slots=True)
class FailedForGood:
    """How a FAILED run's attempts ended."""

    attempts: int
    """Attempts made."""
    allowed: int
    """Attempts it was allowed: its max_attempts, less the lost ones (a lost attempt adds one
    and does not count)."""
    lost: int
    taken_back: bool
    """Its last attempt timed out with attempts left, and the policy's ``on_timeout:
    next_run`` took the run back without them (seed 003)."""
    run_timeout: int | None = None
    """Its job's ``run_timeout`` when that ended it, retries left or not (Kubernetes'
    ``activeDeadlineSeconds``); None when neither this nor ``taken_back`` did: its last allowed
    attempt failed."""
    first_start: int = 0

    @property
    def short(self) -> str:
        """A few words for a narrow column."""
        if self.run_timeout is not None:
            return "run_timeout"
        return "on_timeout: no retry" if self.taken_back else "retries exhausted"


def failed_for_good(engine: Engine, record: Occurrence) -> FailedForGood:
    """Why ``record``, FAILED with at least one attempt, was not retried."""
    first, last = record.attempts[0], record.attempts[-1]
    lost = sum(1 for attempt in record.attempts if attempt.outcome is AttemptOutcome.LOST)
    left = last.number < record.max_attempts
    timed_out = last.outcome is AttemptOutcome.TIMED_OUT
    limit = engine.query.jobs()[record.job_id].spec_for(record.scheduled).run_timeout
    # The run's time ran out: while its last attempt ran (ended at the limit), or while it
    # waited for a retry it had left (any other failure with attempts left is retried).
    ran_out = limit is not None and (
        (timed_out and last.ended == first.started + limit) or (left and not timed_out)
    )
    taken_back = (
        not ran_out and timed_out and left and engine.policy.on_timeout is OnTimeout.NEXT_RUN
    )
    return FailedForGood(
        len(record.attempts),
        record.max_attempts - lost,
        lost,
        taken_back,
        limit if ran_out else None,
        first.started,
    )
