"""A calendar run: its schedule, the daylight-saving rule applied to it if any, the next fires.

Fire times follow Debian cron's rules (see :mod:`engine.schedules.calendar` and docs/schedules.md):
a fixed-time job (neither its minute nor its hour field starts with ``*``) whose time falls in the
spring-forward gap runs once, at the jump; in the repeated fall-back hour it runs in the first pass
only; any other job follows real time and runs in both passes. Which rule applied is read back
from the run's tick: its wall time, whether that wall time is ambiguous (a fold), and whether the
schedule's own time before it did not exist (a gap). A tick in the second pass that a fixed-time
job's time names has no run, by the first rule: :func:`second_pass` says so.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from cronsim import CronSim

from cronlapse.analyses.explain.context import Context
from cronlapse.analyses.explain.lines import Line, line, section
from engine.schedules.calendar import CronSchedule
from engine.schedules.kinds import AnyOf, Repeating, Schedule


def calendar(context: Context, job_id: str, scheduled: int) -> Line | None:
    job = context.engine.query.job(job_id)
    if job is None:
        return None
    schedule = job.spec_for(scheduled).schedule
    if not isinstance(schedule, CronSchedule | AnyOf | Repeating):
        return None
    rows = [line(f"schedule: {schedule.describe()}")]
    trigger, cron = _trigger(context, schedule, scheduled)
    if trigger is not None:
        rows.append(line(f"this run: {trigger}"))
    if cron is not None:
        rows.append(dst_rule(cron, scheduled))
    view = context.engine.query.job_view(job_id, fire_times=5)
    fires = [line(context.at(tick)) for tick in view.next_fire_times] if view else []
    rows.append(line("next fire times", *fires) if fires else line("no more fire times"))
    return section("Calendar", rows)


def _trigger(
    context: Context, schedule: Schedule, scheduled: int
) -> tuple[str | None, CronSchedule | None]:
    """Which of a schedule's triggers put a run at ``scheduled`` (None for a plain cron
    schedule: its one), and the cron schedule whose daylight-saving rule applies to it, if one
    did. A union fires where any part does; a repeat counts from the run before it."""
    if isinstance(schedule, CronSchedule):
        return None, schedule
    if isinstance(schedule, Repeating):
        if schedule.anchors.contains(scheduled):
            return _trigger(context, schedule.anchors, scheduled)
        before = scheduled - schedule.interval
        return f"a repeat, {schedule.interval} ticks after its run at {context.at(before)}", None
    if isinstance(schedule, AnyOf):
        for part in schedule.parts:
            if part.contains(scheduled):
                words = _trigger(context, part, scheduled)[0] or f"its trigger {part.describe()}"
                return words, part if isinstance(part, CronSchedule) else None
    return None, None


def dst_rule(schedule: CronSchedule, scheduled: int) -> Line:
    """Which daylight-saving rule, if any, put this run at its tick."""
    clock, zone = schedule.clock, schedule.clock.zone
    local = clock.to_datetime(scheduled)
    wall = local.replace(tzinfo=None)
    real_time = _real_time_field(schedule.cron)
    first = wall.replace(tzinfo=zone, fold=0).utcoffset()
    second = wall.replace(tzinfo=zone, fold=1).utcoffset()
    if first != second:
        if real_time is None:
            return line(
                f"{_fold(wall, zone)}; a fixed-time job runs in the first pass only: this run, "
                f"at {_offset(first)}"
            )
        field, value = real_time
        which = "second" if local.fold else "first"
        return line(
            f"{_fold(wall, zone)}; a job whose minute or hour field starts with * follows real "
            f"time (its {field} field is {value}) and runs in both passes: this is the {which} "
            f"pass ({local:%H:%M} {_offset(local.utcoffset())})"
        )
    if scheduled > 0 and real_time is None:
        before = clock.to_datetime(scheduled - 1).replace(tzinfo=None)
        nominal = next(iter(CronSim(schedule.cron, before)), None)
        if nominal is not None and nominal < wall and not _exists(nominal, schedule):
            jump_from = _jump_start(local)
            return line(
                f"DST gap: {nominal:%H:%M} on {nominal:%a %Y-%m-%d} does not exist (the clocks "
                f"jump from {jump_from:%H:%M} to {wall:%H:%M}); a fixed-time job in the gap "
                f"runs once, at the jump: this run moved to {wall:%H:%M} "
                f"{_offset(local.utcoffset())}"
            )
    return line("no daylight-saving change moved this run")


def second_pass(context: Context, job_id: str, scheduled: int) -> Line | None:
    """Why a fixed-time job has no run at ``scheduled``, a tick in the second pass of a repeated
    hour at one of its times, and where its run of that time is; None for any other tick.

    The tick is such a second pass when its schedule's next time after the tick before, read as
    wall time in the second pass's offset, is a repeated wall time no later than the tick's own
    (a time between ticks fires at the next one). Its run is then at that time's first pass,
    unless the scenario started after it (a fixed-time job never fires before its start)."""
    job = context.engine.query.jobs()[job_id]
    schedule = job.spec_for(scheduled).schedule
    if not isinstance(schedule, CronSchedule) or _real_time_field(schedule.cron) is not None:
        return None
    clock, zone = schedule.clock, schedule.clock.zone
    local = clock.to_datetime(scheduled)
    if not local.fold:
        return None
    wall = local.replace(tzinfo=None)
    after = wall - timedelta(seconds=clock.tick_seconds)
    nominal = next(iter(CronSim(schedule.cron, after)), None)
    if nominal is None or nominal > wall:
        return None
    first_pass = nominal.replace(tzinfo=zone, fold=0)
    if first_pass.utcoffset() == nominal.replace(tzinfo=zone, fold=1).utcoffset():
        return None
    first_tick = clock.to_tick_ceil(first_pass)
    if first_tick >= 0 and job.fires_at(first_tick):
        run = line(f"its run of {nominal:%H:%M} that day: {context.at(first_tick)}")
    else:
        run = line(
            f"its first pass, {context.at(first_tick)}, is before its schedule began: it has no "
            f"run of {nominal:%H:%M} that day"
        )
    return line(
        f"{_fold(nominal, zone)}; a fixed-time job runs in the first pass only: this tick is "
        f"the second pass ({local:%H:%M} {_offset(local.utcoffset())})",
        run,
    )


def _real_time_field(cron: str) -> tuple[str, str] | None:
    """The field that makes a job follow real time, as :mod:`engine.schedules.calendar` decides it
    (Debian cron's rule: the minute or the hour field starts with ``*``), with its value; None
    for a fixed-time job."""
    minute, hour = cron.split()[:2]
    for name, value in (("minute", minute), ("hour", hour)):
        if value.startswith("*"):
            return name, value
    return None


def _fold(wall: datetime, zone: ZoneInfo) -> str:
    """That the naive ``wall`` time happens twice, with the offsets of its two passes."""
    first = wall.replace(tzinfo=zone, fold=0).utcoffset()
    second = wall.replace(tzinfo=zone, fold=1).utcoffset()
    return (
        f"DST fold: {wall:%H:%M} happens twice on {wall:%a %Y-%m-%d} "
        f"({_offset(first)} then {_offset(second)})"
    )


def _exists(naive: datetime, schedule: CronSchedule) -> bool:
    zone = schedule.clock.zone
    back = naive.replace(tzinfo=zone).astimezone(UTC).astimezone(zone).replace(tzinfo=None)
    return back == naive


def _jump_start(local: datetime) -> datetime:
    """The wall time the clocks left when they jumped to ``local``."""
    before = (local.astimezone(UTC) - timedelta(seconds=1)).astimezone(local.tzinfo)
    gap = (local.utcoffset() or timedelta(0)) - (before.utcoffset() or timedelta(0))
    return (local - gap).replace(tzinfo=None)


def _offset(delta: timedelta | None) -> str:
    minutes = int((delta or timedelta(0)).total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
