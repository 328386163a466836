"""Named policies: one word for the choices a real scheduler made.

``seed-003`` gathers what seed 003's design says (the seed is the source for each value):

- priority order, ties in the order runs fell due ("higher-priority tasks execute before
  lower-priority ones when resources are contended");
- an execution limit of five minutes for a job that sets no timeout ("We define a execution
  limit per job of 5 minutes"), after which the reviewer takes the run back and the job goes on
  at its next run (``on_timeout: next_run``: "put it back to the created status with the defined
  cadence");
- exponential backoff with full jitter ("exponential backoff with jitter so we do not retry at the
  same time for every failed job"); the seed gives no numbers: 5 seconds doubling, at most 5
  minutes, are cronlapse's choice;
- the two-minute window in which a run reports ``scheduled`` ("When there is less than 2 minutes
  to run the job changes the status to scheduled");
- a job is not changed while it runs (PUT answers 409).

Durations are in seconds and become ticks through the scenario's clock (one tick is one second
unless the clock says otherwise), rounded up to whole ticks.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.model.backoff import Backoff, BackoffKind, Jitter
from engine.model.policies import DispatchOrder, OnTimeout, Policy, RunningJobChanges

SEED_003 = "seed-003"


def seed_003_policy(tick_seconds: int = 1) -> Policy:
    """Seed 003's choices, with durations in ticks of ``tick_seconds``."""

    def ticks(seconds: int) -> int:
        return max(1, -(-seconds // tick_seconds))

    return Policy(
        order=DispatchOrder.PRIORITY,
        backoff=Backoff(BackoffKind.EXPONENTIAL, base=ticks(5), cap=ticks(300), jitter=Jitter.FULL),
        on_timeout=OnTimeout.NEXT_RUN,
        running_job_changes=RunningJobChanges.REFUSE,
        execution_limit=ticks(5 * 60),
        scheduling_window=ticks(2 * 60),
    )


PRESETS: dict[str, Callable[[int], Policy]] = {SEED_003: seed_003_policy}
"""Every preset by its name, each a function of the clock's tick length in seconds."""
