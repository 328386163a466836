"""The header: scenario name, the tick and its wall-clock time, play state and speed; during a
long jump, how far it has got."""

from __future__ import annotations

from typing import NamedTuple

from rich.text import Text
from textual.widget import Widget

from engine.clock import Clock
from tui.model.timefmt import compact, wall


class Progress(NamedTuple):
    """A jump under way: where it goes and how far it is."""

    target: int
    fraction: float

    def label(self, short: bool = False) -> str:
        """``jump to 10,080: 43%``; short, ``43%`` (the header's middle says the tick)."""
        percent = f"{int(self.fraction * 100)}%"
        if short:
            return percent
        return f"jump to {self.target:,}: {percent}"


class StatusHeader(Widget):
    """One line: name on the left, tick and time in the middle, play state on the right.

    Laid out by hand (a Rich table per step costs more than the step). When the line does not
    fit, it gets shorter in steps: a compact time, no "cronlapse", a shorter jump progress, no
    time, then a cut name. The play state and the speed always show.
    """

    DEFAULT_CSS = "StatusHeader { height: 1; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._state: tuple = ()
        self.summary = ""
        """The header as plain text (for tests)."""

    def show(
        self,
        name: str,
        tick: int,
        last: int,
        clock: Clock | None,
        playing: bool,
        speed: int,
        note: str = "",
        progress: Progress | None = None,
        open_ended: bool = False,
        note_style: str = "yellow",
    ) -> None:
        """``open_ended``: ``last`` is a horizon that grows as the run plays (shown as ``N+``)."""
        state = (
            name,
            tick,
            last,
            wall(clock, tick),
            compact(clock, tick),
            playing,
            speed,
            note,
            progress,
            open_ended,
            note_style,
        )
        if state != self._state:
            self._state = state
            self.summary = self._line(200).plain
            self.refresh()

    def _line(self, width: int) -> Text:
        name, tick, last, full, short, playing, speed, note, progress, open_ended, note_style = (
            self._state
        )
        # play state and speed always show; the progress label is the last to get shorter
        for brand, time, long_progress in (
            (True, full, True),
            (True, short, True),
            (False, short, True),
            (False, short, False),
            (False, "", False),
        ):
            left = Text("cronlapse " if brand else "", style="bold")
            left.append(name, style="bold cyan")
            middle = Text("tick ", style="dim")
            middle.append(f"{tick:,}", style="bold")
            middle.append(f" / {last:,}{'+' if open_ended else ''}", style="dim")
            if time:
                middle.append(f"  {time}")
            right = Text()
            if progress is not None:
                # narrow: a shorter label, so that how to stop it always shows
                right.append(f"» {progress.label(short=not long_progress)}", style="bold yellow")
                right.append("  esc stops", style="dim")
            else:
                if note:
                    right.append(f"{note}  ", style=note_style)
                right.append(
                    "▶ playing" if playing else "❚❚ paused", style="bold green" if playing else ""
                )
                right.append(f"  {speed}/s", style="dim")
            if left.cell_len + middle.cell_len + right.cell_len + 4 <= width:
                break
        else:
            left.truncate(max(1, width - middle.cell_len - right.cell_len - 4), overflow="ellipsis")
        spare = max(0, width - left.cell_len - middle.cell_len - right.cell_len)
        # at least two spaces on each side of the middle, and never wider than the line
        before = min(max(0, spare - 2), max(2, (width - middle.cell_len) // 2 - left.cell_len))
        line = Text(no_wrap=True, overflow="ellipsis", end="")
        line.append_text(left)
        line.append(" " * before)
        line.append_text(middle)
        line.append(" " * max(2, spare - before))
        line.append_text(right)
        return line

    def render(self) -> Text:
        if not self._state:
            return Text("")
        return self._line(self.size.width)
