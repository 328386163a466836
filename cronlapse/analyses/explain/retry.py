"""A retry: the backoff formula with its numbers, from the run's ``RetryScheduled`` events.

The event carries the delay drawn. The delay before jitter follows from the job's backoff (which
no command changes after scheduling) and the attempt number, so the jitter draw is the delay
drawn minus the fixed part: all of it for full jitter, the part above half for equal jitter.
"""

from __future__ import annotations

from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.lines import Line, Tag, line, section
from engine.model import events as ev
from engine.model.backoff import Backoff, BackoffKind, Jitter


def retries(context: Context, job_id: str, scheduled: int) -> Line | None:
    """One line per retry the run had, or None if it had none."""
    run = context.run_events(job_id, scheduled)
    scheduled_retries = [e for e in run if isinstance(e, ev.RetryScheduled)]
    if not scheduled_retries:
        return None
    engine = context.engine
    job = engine.query.jobs()[job_id]
    backoff = job.spec.backoff or engine.policy.backoff
    source = "the job's" if job.spec.backoff is not None else "the policy's"
    rows = []
    for retry in scheduled_retries:
        failed = retry.next_attempt - 1
        ending = next(
            (
                e
                for e in run
                if isinstance(e, ev.AttemptFailed | ev.AttemptTimedOut | ev.AttemptLost)
                and e.attempt == failed
            ),
            None,
        )
        how = _how(ending)
        title = (
            f"attempt {failed} {how} at {context.at(retry.tick)}: attempt {retry.next_attempt} "
            f"eligible at {context.at(retry.eligible_at)}"
        )
        if isinstance(ending, ev.AttemptLost):
            detail = [line("a lost attempt retries at once: no backoff, and it does not count")]
        else:
            detail = formula(backoff, failed, retry.delay)
        rows.append(line(title, *detail))
    return section(f"Retries ({source} backoff: {_describe(backoff)})", rows)


def formula(backoff: Backoff, failed: int, drawn: int) -> list[Line]:
    """The delay after failure number ``failed`` worked out step by step, ending at ``drawn``."""
    if backoff.kind is BackoffKind.NONE:
        return [line("no backoff: eligible at once")]
    if backoff.kind is BackoffKind.FIXED:
        ticks = backoff.base
        steps = [line(f"fixed: base {backoff.base}")]
    else:
        ticks = backoff.base * (1 << (failed - 1))
        steps = [
            line(f"exponential: base {backoff.base} x 2^(attempt {failed} - 1) = {ticks}"),
        ]
    if backoff.cap is not None:
        capped = min(ticks, backoff.cap)
        verdict = "capped" if capped < ticks else "under the cap"
        steps.append(line(f"cap {backoff.cap}: {capped} ({verdict})"))
        ticks = capped
    if backoff.jitter is Jitter.FULL:
        steps.append(
            line(f"full jitter: a draw in [0, {ticks}] from the seeded generator: {drawn}")
        )
    elif backoff.jitter is Jitter.EQUAL:
        half = ticks // 2
        steps.append(
            line(
                f"equal jitter: {half} + a draw in [0, {ticks - half}] from the seeded generator "
                f"({drawn - half}) = {drawn}"
            )
        )
    if drawn != ticks and backoff.jitter is Jitter.NONE:
        steps.append(line(f"the delay recorded is {drawn}", tag=Tag.WARN))
    steps.append(line(f"delay: {drawn} tick{'' if drawn == 1 else 's'}"))
    return steps


def _describe(backoff: Backoff) -> str:
    if backoff.kind is BackoffKind.NONE:
        return "none"
    words = f"{backoff.kind.value}, base {backoff.base}"
    if backoff.cap is not None:
        words += f", cap {backoff.cap}"
    return f"{words}, jitter {backoff.jitter.value}"


def _how(ending: ev.Event | None) -> str:
    if isinstance(ending, ev.AttemptTimedOut):
        return "timed out"
    if isinstance(ending, ev.AttemptLost):
        return "was lost"
    return "failed"
