"""Small formatters shared by the tables: ticks, times, occurrence and run names, bars."""

from __future__ import annotations

from rich.text import Text

from engine.schedules.clock import Clock
from tui.model.timefmt import run_label, short, tick_label
from tui.states import DIM, TICK

BAR_CELLS = "▏▎▍▌▋▊▉█"
ELLIPSIS = "…"


def fit(text: Text | str, width: int, *, middle: bool = True) -> Text:
    """``text`` cut to ``width`` cells with an ellipsis: in the middle for ids (``backup-primary``
    and ``backup-secondary`` at 9 cells are ``back…mary`` and ``back…dary``: ids differ in their
    ends, so both ends stay), at the end for prose. The tail gets the larger half: numbered ids
    (``w-01``, ``etl@1440``) differ last. Every table and the timeline cut cells with this."""
    if isinstance(text, str):
        text = Text(text)
    if text.cell_len <= width:
        return text
    if width <= 1:
        return Text(ELLIPSIS[:width])
    if not middle or len(text.plain) != text.cell_len:  # wide characters: cut at the end
        cut = text.copy()
        cut.truncate(width, overflow="ellipsis")
        return cut
    head = (width - 1) // 2
    tail = width - 1 - head
    cut = text[:head]
    cut.append(ELLIPSIS)
    cut.append_text(text[len(text.plain) - tail :])
    return cut


def fit_run(text: Text, width: int) -> Text:
    """A run's name (``job@scheduled``, maybe `` #attempt``) cut to ``width`` in its job id: the
    tick and attempt stay whole, since runs of jobs with alike ids differ there
    (``batch-287@6000`` and ``batch-297@6000`` cut as a whole are both ``batch-2…6000``). Without
    room for three cells of the job id, or without an ``@``, it is cut as any id."""
    at = text.plain.rfind("@")
    tail = text[at:] if at > 0 else None
    if tail is None or text.cell_len <= width or width - tail.cell_len < 3:
        return fit(text, width)
    cut = fit(text[:at], width - tail.cell_len)
    cut.append_text(tail)
    return cut


def tick_text(tick: int | None, clock: Clock | None = None) -> Text:
    """A tick's number, or its time where ticks are times (a live service's)."""
    return Text("" if tick is None else tick_label(clock, tick), style=TICK)


def time_text(clock: Clock | None, tick: int | None) -> Text:
    return Text("" if tick is None else short(clock, tick), style=DIM)


def number(value: int | None, style=None) -> Text:
    return Text("" if value is None else str(value), style=style or "")


def run_name(job_id: str, scheduled: int, attempt: int | None, clock: Clock | None = None) -> Text:
    """``job@scheduled``, then `` #2`` from a second attempt on: a first attempt is the rule, and
    its suffix would take the cells that tell runs apart."""
    name = Text(run_label(job_id, scheduled, clock))
    if attempt is not None and attempt > 1:
        name.append(f" #{attempt}", style=DIM)
    return name


def bar(share: float, width: int = 5) -> Text:
    """A share from 0 to 1 as a bar of ``width`` cells with eighths, then the percentage."""
    share = max(0.0, min(1.0, share))
    eighths = round(share * width * 8)
    full, part = divmod(eighths, 8)
    cells = "█" * full + (BAR_CELLS[part - 1] if part else "")
    text = Text(cells.ljust(width), style="cyan")
    text.append(f" {share * 100:3.0f}%")
    return text
