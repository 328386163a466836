"""Small formatters shared by the tables: ticks, times, occurrence names, bars."""

from __future__ import annotations

from rich.text import Text

from engine.clock import Clock
from tui.model.timefmt import short
from tui.states import DIM, TICK

BAR_CELLS = "▏▎▍▌▋▊▉█"


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
