"""Small formatters shared by the tables: ticks, times, occurrence names, bars."""

from __future__ import annotations

from rich.text import Text

from engine.clock import Clock
from engine.core import Engine
from engine.model import Job, OccurrenceState
from tui.model.timefmt import short
from tui.states import DIM, TICK

BAR_CELLS = "▏▎▍▌▋▊▉█"
QUEUED = OccurrenceState.QUEUED


def tick_text(tick: int | None) -> Text:
    return Text("" if tick is None else str(tick), style=TICK)


def time_text(clock: Clock | None, tick: int | None) -> Text:
    return Text("" if tick is None else short(clock, tick), style=DIM)


def number(value: int | None, style=None) -> Text:
    return Text("" if value is None else str(value), style=style or "")


def occurrence_name(job_id: str, scheduled: int) -> str:
    return f"{job_id}@{scheduled}"


def bar(share: float, width: int = 5) -> Text:
    """A share from 0 to 1 as a bar of ``width`` cells with eighths, then the percentage."""
    share = max(0.0, min(1.0, share))
    eighths = round(share * width * 8)
    full, part = divmod(eighths, 8)
    cells = "█" * full + (BAR_CELLS[part - 1] if part else "")
    text = Text(cells.ljust(width), style="cyan")
    text.append(f" {share * 100:3.0f}%")
    return text


def backlog(engine: Engine, job: Job, cap: int = 9) -> int:
    """How many implicit QUEUED occurrences wait behind a job's front one, counted up to ``cap``
    (each is a schedule query, which for a cron schedule is not free: keep ``cap`` small for
    table rows)."""
    schedule = job.spec.schedule
    due = job.next_due
    count = 0
    tick = schedule.first_at_or_after(due + 1) if due is not None else None
    while tick is not None and count < cap and engine.is_created(job, tick):
        key = (job.spec.job_id, tick)
        if key not in engine.occurrences and engine.occurrence_state(*key) is QUEUED:
            count += 1
        tick = schedule.first_at_or_after(tick + 1)
    return count
