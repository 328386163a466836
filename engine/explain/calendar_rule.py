"""A calendar run: its schedule, the daylight-saving rule applied to it if any, the next fires.

Fire times follow Debian cron's rules (see :mod:`engine.calendar`): a fixed-time job whose time
falls in the spring-forward gap runs once, at the jump; in the repeated fall-back hour it runs in
the first pass only; a job that runs more often than hourly follows real time and runs in both
passes. Which rule applied is read back from the run's tick: its wall time, whether that wall
time is ambiguous (a fold), and whether the schedule's own time before it did not exist (a gap).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cronsim import CronSim

from engine.calendar import CronSchedule
from engine.explain.context import Context
from engine.explain.lines import Line, line, section
from engine.queries import job_view


def calendar(context: Context, job_id: str, scheduled: int) -> Line | None:
    job = context.engine.jobs.get(job_id)
    if job is None:
        return None
    schedule = job.spec_for(scheduled).schedule
    if not isinstance(schedule, CronSchedule):
        return None
    rows = [line(f"schedule: {schedule.describe()}"), dst_rule(schedule, scheduled)]
    view = job_view(context.engine, job_id, fire_times=5)
    fires = [line(context.at(tick)) for tick in view.next_fire_times] if view else []
    rows.append(line("next fire times", *fires) if fires else line("no more fire times"))
    return section("Calendar", rows)


def dst_rule(schedule: CronSchedule, scheduled: int) -> Line:
    """Which daylight-saving rule, if any, put this run at its tick."""
    clock, zone = schedule.clock, schedule.clock.zone
    local = clock.to_datetime(scheduled)
    wall = local.replace(tzinfo=None)
    minute, hour = schedule.cron.split()[:2]
    fixed_time = not minute.startswith("*") and not hour.startswith("*")
    first = wall.replace(tzinfo=zone, fold=0).utcoffset()
    second = wall.replace(tzinfo=zone, fold=1).utcoffset()
    if first != second:
        passes = f"{_offset(first)} then {_offset(second)}"
        which = "second" if local.fold else "first"
        if fixed_time:
            return line(
                f"DST fold: {wall:%H:%M} happens twice on {wall:%a %Y-%m-%d} ({passes}); "
                f"a fixed-time job runs in the first pass only: this run, at {_offset(first)}"
            )
        return line(
            f"DST fold: {wall:%H:%M} happens twice on {wall:%a %Y-%m-%d} ({passes}); a job "
            f"that runs more often than hourly follows real time and runs in both passes: this "
            f"is the {which} pass ({local:%H:%M} {_offset(local.utcoffset())})"
        )
    if scheduled > 0 and fixed_time:
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
