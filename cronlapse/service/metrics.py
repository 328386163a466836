"""``GET /metrics``: the service in Prometheus's text exposition format (version 0.0.4).

Counters are fed by the engine's events after every applied input (the same observer hook as the
structured logs), so they count what happened since the server started, as Prometheus expects of
a counter; gauges are read from the engine when scraped. The format is a few lines of text, so it
is written here rather than through a client library.

- ``cronlapse_runs_total{outcome}``: runs that ended: ``succeeded``, ``failed`` (for good, retries
  exhausted or timed out), ``cancelled``;
- ``cronlapse_attempts_total{outcome}``: attempts that ended: ``succeeded``, ``failed``,
  ``timed_out``, ``lost``; ``cronlapse_retries_total``: retries scheduled;
- ``cronlapse_queue_depth``: runs due and waiting for a worker (implicit ones counted);
  ``cronlapse_retry_pending``, ``cronlapse_running``: runs waiting for a retry, running;
- ``cronlapse_workers{state}``: worker slots by state;
- ``cronlapse_dispatch_lag_seconds``: a histogram of the time from a run's scheduled time to its
  first attempt's start, in the engine's seconds (at ``--speed N``, simulated seconds);
- ``cronlapse_notifications_total{channel,outcome}``: delivery tries' outcomes: ``delivered``,
  ``retried``, ``dead``;
- ``cronlapse_tick``: the engine's tick;
- ``cronlapse_dead_letters``: inputs set aside as dead letters
  (:mod:`cronlapse.service.store.dead_letters`), counted in the store when scraped.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from engine.core import Engine
from engine.model import events as ev
from engine.model.records import OccurrenceState, WorkerState

log = logging.getLogger("cronlapse.serve")

if TYPE_CHECKING:
    from cronlapse.service.live import LiveState

LAG_BUCKETS = (0.0, 1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 3600.0)
"""Upper bounds (seconds) of the dispatch lag's buckets; +Inf is added."""
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

_RUN_ENDS = {
    ev.AttemptSucceeded: "succeeded",
    ev.OccurrenceFailed: "failed",
    ev.OccurrenceCancelled: "cancelled",
}
_ATTEMPT_ENDS = {
    ev.AttemptSucceeded: "succeeded",
    ev.AttemptFailed: "failed",
    ev.AttemptTimedOut: "timed_out",
    ev.AttemptLost: "lost",
}
_DELIVERIES = {
    ev.NotificationDelivered: "delivered",
    ev.NotificationRetried: "retried",
    ev.NotificationDeadLettered: "dead",
}


class Metrics:
    """The counters and the lag histogram, fed with events; :meth:`text` renders everything."""

    def __init__(self) -> None:
        self.runs: Counter[str] = Counter()
        self.attempts: Counter[str] = Counter()
        self.retries = 0
        self.deliveries: Counter[tuple[str, str]] = Counter()
        self.lag_buckets = [0] * len(LAG_BUCKETS)
        self.lag_count = 0
        self.lag_sum = 0
        self.dead_letters: Callable[[], int] = lambda: 0
        """How many dead letters the store holds (the server's store's count)."""
        self.dead_letters_seen = 0

    def __call__(self, events: Iterable[ev.Event]) -> None:
        for event in events:
            kind = type(event)
            if kind in _RUN_ENDS:
                self.runs[_RUN_ENDS[kind]] += 1
            elif kind is ev.BacklogCancelled:
                self.runs["cancelled"] += event.runs  # type: ignore[attr-defined]
            if kind in _ATTEMPT_ENDS:
                self.attempts[_ATTEMPT_ENDS[kind]] += 1
            elif kind is ev.RetryScheduled:
                self.retries += 1
            elif kind in _DELIVERIES:
                channel = event.key[4]  # type: ignore[attr-defined]
                self.deliveries[(channel, _DELIVERIES[kind])] += 1
            elif kind is ev.AttemptStarted and event.attempt == 1:  # type: ignore[attr-defined]
                self._lag(event.tick - event.scheduled)  # type: ignore[attr-defined]

    def _lag(self, seconds: int) -> None:
        self.lag_count += 1
        self.lag_sum += seconds
        for index, bound in enumerate(LAG_BUCKETS):
            if seconds <= bound:
                self.lag_buckets[index] += 1

    def text(self, engine: Engine, state: LiveState | None = None) -> str:
        """Every metric in the text exposition format; ``state`` (the live service's) adds each
        job's last success and failure."""
        out = _Exposition()
        out.family("cronlapse_runs_total", "counter", "Runs that ended, by outcome.")
        for outcome in ("succeeded", "failed", "cancelled"):
            out.sample("cronlapse_runs_total", self.runs[outcome], outcome=outcome)
        out.family("cronlapse_attempts_total", "counter", "Attempts that ended, by outcome.")
        for outcome in ("succeeded", "failed", "timed_out", "lost"):
            out.sample("cronlapse_attempts_total", self.attempts[outcome], outcome=outcome)
        out.family("cronlapse_retries_total", "counter", "Retries scheduled.")
        out.sample("cronlapse_retries_total", self.retries)
        out.family(
            "cronlapse_notifications_total", "counter", "Notification delivery tries by outcome."
        )
        for (channel, outcome), count in sorted(self.deliveries.items()):
            out.sample("cronlapse_notifications_total", count, channel=channel, outcome=outcome)
        self._gauges(out, engine)
        out.family("cronlapse_dead_letters", "gauge", "Inputs set aside as dead letters.")
        out.sample("cronlapse_dead_letters", self._dead_letters())
        if state is not None:
            _last_times(out, state)
        name = "cronlapse_dispatch_lag_seconds"
        out.family(name, "histogram", "Seconds from a run's scheduled time to its first start.")
        for bound, count in zip(LAG_BUCKETS, self.lag_buckets, strict=True):
            out.sample(name + "_bucket", count, le=_number(bound))
        out.sample(name + "_bucket", self.lag_count, le="+Inf")
        out.sample(name + "_sum", self.lag_sum)
        out.sample(name + "_count", self.lag_count)
        return out.text()

    def _dead_letters(self) -> int:
        """The store's count; the last one read while the store cannot answer (a scrape must
        not fail with it)."""
        try:
            self.dead_letters_seen = self.dead_letters()
        except Exception as error:
            log.warning("the dead letters could not be counted: %s", error)
        return self.dead_letters_seen

    @staticmethod
    def _gauges(out: _Exposition, engine: Engine) -> None:
        query = engine.query
        out.family("cronlapse_queue_depth", "gauge", "Runs due and waiting for a worker.")
        out.sample("cronlapse_queue_depth", query.count_runs(state=OccurrenceState.QUEUED))
        out.family("cronlapse_retry_pending", "gauge", "Runs waiting to be retried.")
        out.sample("cronlapse_retry_pending", len(query.record_keys(OccurrenceState.RETRY_PENDING)))
        out.family("cronlapse_running", "gauge", "Runs running.")
        out.sample("cronlapse_running", len(query.record_keys(OccurrenceState.RUNNING)))
        states = Counter(worker.state for worker in query.workers().values())
        out.family("cronlapse_workers", "gauge", "Worker slots by state.")
        for state in WorkerState:
            out.sample("cronlapse_workers", states[state], state=state.value.lower())
        out.family("cronlapse_tick", "gauge", "The engine's tick (Unix seconds).")
        out.sample("cronlapse_tick", engine.now)


LAST_TIMES = (
    ("cronlapse_job_last_success_timestamp_seconds", "succeeded", "last_success"),
    ("cronlapse_job_last_failure_timestamp_seconds", "failed for good", "last_failure"),
)


def _last_times(out: _Exposition, state: LiveState) -> None:
    """When each job's last run succeeded, and failed: for an alert such as
    ``time() - cronlapse_job_last_success_timestamp_seconds > 3600``. Jobs without such a run,
    and deleted ones, have no sample."""
    jobs = state.engine.query.jobs()
    for name, ended, attribute in LAST_TIMES:
        out.family(name, "gauge", f"When each job's last run {ended} (Unix seconds).")
        for job_id, tick in sorted(getattr(state, attribute).items()):
            if not jobs[job_id].deleted:
                out.sample(name, tick, job=job_id)


class _Exposition:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def family(self, name: str, kind: str, help_text: str) -> None:
        self.lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]

    def sample(self, name: str, value: float, **labels: str) -> None:
        if labels:
            pairs = ",".join(f'{key}="{_escape(text)}"' for key, text in labels.items())
            name = f"{name}{{{pairs}}}"
        self.lines.append(f"{name} {_number(value)}")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
