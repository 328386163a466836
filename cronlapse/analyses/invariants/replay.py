"""The log read once for the two replays that follow every attempt: safety's
(:class:`.safety.LogSafety`: no run started twice or after it ended, no worker given two
attempts, no job or pool over its limit) and liveness's (:class:`.liveness.LivenessReplay`:
which workers are idle at the end of each tick, since when each run waits).

Nearly every event of a long run starts or ends an attempt, and both replays take each one. Read
by a loop each, every such event was taken apart, its run's key built and its worker's state
kept twice: in one loop, with both replays' updates for an attempt written out here, the demo's
160,257 events cost 1,119 M instructions where the two loops cost 1,389 M (callgrind over the
stretches its ``cronlapse run`` observed). The few other events are built once and handed to
each replay.
"""

from __future__ import annotations

from collections.abc import Iterable

from cronlapse.analyses.invariants.facts import Violation
from cronlapse.analyses.invariants.liveness import LivenessReplay
from cronlapse.analyses.invariants.safety import LogSafety
from engine.model import events as ev

_STARTED, _ENDS, _SUCCEEDED = ev.AttemptStarted, ev.ATTEMPT_ENDS, ev.AttemptSucceeded
"""Read once: the loop asks them of every event."""


def replay(
    stored: Iterable[tuple[type, tuple]], safety: LogSafety, liveness: LivenessReplay | None
) -> None:
    """Events as the log stores them, in order, each once; ``liveness`` None: under manual
    dispatch, where it does not apply. An attempt is read from its stored fields (see
    :data:`engine.model.events.ATTEMPT_ENDS`), a run that starts at the tick it may run (nearly
    all) with no look back at the ticks before."""
    found, holds, finish = safety.found, safety.finished.holds, safety.finished.add
    running, busy = safety.running, safety.busy
    limits = safety.limits if safety.checks_limits() else None
    live = liveness is not None
    if liveness is not None:
        waiting, stopped, current = liveness.waiting, liveness.stopped, liveness.current
        advance, read_other = liveness.advance, liveness.read_other
        now_idle, down, idle_ends = liveness.idle.now_idle, liveness.idle.down, liveness.idle.ends
        pools = liveness.pools if liveness.pools.slots else None
    for kind, fields in stored:
        tick = fields[0]
        if live and tick != current:
            advance(tick)
            current = tick
        if kind is _STARTED:
            _, job_id, scheduled, attempt, worker_id = fields
            key = (job_id, scheduled)
            if holds(job_id, scheduled):
                found.append(Violation(tick, f"{job_id}@{scheduled} started after it ended"))
            if key in running:
                found.append(Violation(tick, f"{job_id}@{scheduled} started twice at once"))
            if worker_id in busy:
                found.append(Violation(tick, f"{worker_id} given a second attempt"))
            running[key] = attempt
            busy[worker_id] = key
            if live:
                # The run may have waited from its entry in waiting on or, without one, from its
                # scheduled tick or later (see since()): it can have waited while a worker was
                # idle only if the last tick closed with one idle is that late. Of the demo's
                # 28,649 runs that started after their tick, none was (every worker was busy):
                # their calls of stopped() (since() and a search of the idle ticks) cost 156 M
                # instructions, this question 38 M (callgrind, its events replayed alone).
                if scheduled < tick or key in waiting:
                    earliest = waiting.get(key, scheduled)  # None: it does not wait
                    if earliest is not None and idle_ends and idle_ends[-1] >= earliest:
                        stopped(key, tick)
                    else:
                        waiting[key] = None
                else:  # since() is its tick or later (a pause, block or hold puts it off):
                    waiting[key] = None  # it waited at the end of no earlier tick
                now_idle.pop(worker_id, None)
        elif kind in _ENDS:
            _, job_id, scheduled, _, worker_id = fields
            key = (job_id, scheduled)
            running.pop(key, None)
            busy.pop(worker_id, None)
            if kind is _SUCCEEDED:
                finish(job_id, scheduled)
            if live:
                if worker_id not in down:
                    now_idle[worker_id] = None
                if kind is _SUCCEEDED:
                    waiting.pop(key, None)
        else:
            event = kind(*fields)
            safety.read_other(event)
            if live:
                read_other(event, tick)
            continue
        if limits is not None:
            limits(kind, fields)
        if live and pools is not None:
            pools.read(kind, fields)
