"""What a run told its subscribers, and its deadline.

Notifications: each one the run queued (a happening of one of its attempts, to one channel's
target), its state, and each try with how it ended, read from the log: a simulated try fails
while the policy has its channel down, a reported one as its deliverer said. A deadline: missed
(the ``DeadlineMissed`` event), met, or still ahead, with the tick it is checked at.
"""

from __future__ import annotations

from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.lines import Line, Tag, line, section
from engine.model import events as ev
from engine.model.policies import DeliveryMode
from engine.model.records import Channel, OccurrenceState
from engine.parts.notifications import Notification, NotificationKey, NotificationState

_TRIES = (ev.NotificationRetried, ev.NotificationDelivered, ev.NotificationDeadLettered)


def notifications(context: Context, job_id: str, scheduled: int) -> Line | None:
    """The run's notifications and their tries; None when it queued none."""
    engine = context.engine
    mine = sorted(
        (key, record)
        for key, record in engine.query.notifications().items()
        if key[0] == job_id and key[1] == scheduled
    )
    if not mine:
        return None
    tries: dict[NotificationKey, list[ev.NotificationEvent]] = {key: [] for key, _ in mine}
    for _, event in engine.log.select(_TRIES):
        if event.key in tries:
            tries[event.key].append(event)
    return section(
        "Notifications",
        [_notification(context, record, tries[key]) for key, record in mine],
    )


def _notification(
    context: Context, record: Notification, tries: list[ev.NotificationEvent]
) -> Line:
    _, _, attempt, happening, channel, target = record.key
    policy = context.engine.policy.notifications
    title = f"{happening} (attempt {attempt}) to {channel} {target}: {record.state.value}"
    if record.state is NotificationState.DELIVERED:
        title += f" at {context.at(record.delivered_at or 0)}, try {record.tries}"
    elif record.state is NotificationState.DEAD:
        dead = tries[-1].tick if tries else context.now
        title += (
            f", dead-lettered at {context.at(dead)} after {record.tries} tries "
            f"(max_tries {policy.max_tries})"
        )
    elif record.next_try is not None:
        title += f", try {record.tries + 1} of {policy.max_tries} at {context.at(record.next_try)}"
    failed = [
        line(f"try {event.tries} at {context.at(event.tick)}: failed: {why}")
        for event in tries
        if not isinstance(event, ev.NotificationDelivered) and (why := _why_failed(context, event))
    ]
    tag = Tag.WARN if record.state is NotificationState.DEAD else Tag.FACT
    return line(title, *failed, tag=tag)


def _why_failed(context: Context, event: ev.NotificationEvent) -> str:
    """Why a try failed: the channel's outage that covered it (simulated delivery), or the
    deliverer's report."""
    policy = context.engine.policy.notifications
    if policy.delivery is DeliveryMode.REPORTED:
        return "its deliverer reported the delivery failed"
    channel = Channel(event.key[4])
    for outage in policy.outages:
        if outage.channel is channel and outage.start <= event.tick < outage.end:
            return (
                f"{channel.value} is down from {context.at(outage.start)} "
                f"to {context.at(outage.end)}"
            )
    return f"{channel.value} was down"


def deadline(context: Context, job_id: str, scheduled: int, state: OccurrenceState) -> Line | None:
    """The run's deadline (engine/rules/deadlines.py): missed, met or still ahead; None without
    one."""
    limit = context.engine.query.jobs()[job_id].spec_for(scheduled).deadline
    if limit is None:
        return None
    due = scheduled + limit
    for event in context.run_events(job_id, scheduled):
        if isinstance(event, ev.DeadlineMissed):
            return line(
                f"missed its deadline at {context.at(event.tick)}: not finished "
                f"{context.ticks(event.deadline)} after its time (deadline: {event.deadline})",
                tag=Tag.WARN,
            )
    if state.is_final:
        if state is OccurrenceState.SUCCEEDED or state is OccurrenceState.FAILED:
            return line(f"it finished within its deadline ({context.at(due)})")
        return None
    return line(
        f"its deadline: it must finish by {context.at(due)}, {context.ticks(limit)} after its "
        "time, or its deadline_missed subscribers are told"
    )
