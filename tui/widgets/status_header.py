"""The header: scenario name, the tick and its wall-clock time, play state and speed; during a
long jump, how far it has got."""

from __future__ import annotations

from typing import NamedTuple

from rich.text import Text
from textual.widget import Widget

from engine.schedules.clock import Clock
from tui.model.timefmt import compact, short, ticks_are_times, wall

NAME_KEPT = 10
"""Cells of the scenario's name kept before the time of day is dropped from a narrow header: at
80 columns, rewound and paused, a name of 10 cells and the time fit, where 12 left no time."""


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
    fit, it gets shorter in steps: a compact time, no "cronlapse", a shorter jump progress, the
    name cut down to ``NAME_KEPT`` cells, no time, then the name cut further. The time goes
    after most of the name: in a scenario about a DST change the time of day is the point. The
    play state and the speed always show, but at a live service's head, where nothing plays.
    Where ticks are times (a live service's Unix seconds), the middle is the time alone, down
    to the time of day, never the tick's number.
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
        follows: bool = False,
    ) -> None:
        """``open_ended``: ``last`` is a horizon that grows as the run plays (shown as ``N+``).
        ``follows``: the screen follows a live service's head, where nothing plays: the note
        says so, without a play state or a speed."""
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
            follows,
            short(clock, tick) if ticks_are_times(clock) else None,
        )
        if state != self._state:
            self._state = state
            self.summary = self._line(200).plain
            self.refresh()

    def _line(self, width: int) -> Text:
        _, _, _, full, short, *_ = self._state

        def fits(parts: tuple[Text, Text, Text]) -> bool:
            return sum(part.cell_len for part in parts) + 4 <= width

        for brand, time, long_progress in (
            (True, full, True),
            (True, short, True),
            (False, short, True),
            (False, short, False),
        ):
            parts = self._parts(brand, time, long_progress)
            if fits(parts):
                break
        else:
            # The name goes before the time, down to NAME_KEPT cells; then the time goes, and
            # the name is cut to what is left.
            if not short or self._room(parts, width) < min(NAME_KEPT, parts[0].cell_len):
                parts = self._parts(False, "", False)
            parts[0].truncate(max(1, self._room(parts, width)), overflow="ellipsis")
        left, middle, right = parts
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

    @staticmethod
    def _room(parts: tuple[Text, Text, Text], width: int) -> int:
        """The cells the name may take beside the middle and the right."""
        return width - parts[1].cell_len - parts[2].cell_len - 4

    def _parts(self, brand: bool, time: str, long_progress: bool) -> tuple[Text, Text, Text]:
        """The name on the left, the tick and ``time`` in the middle, the state on the right."""
        name, tick, last, _, _, playing, speed, note, progress, open_ended, note_style, follows = (
            self._state[:12]
        )
        time_of_day = self._state[12]
        left = Text("cronlapse " if brand else "", style="bold")
        left.append(name, style="bold cyan")
        if time_of_day is not None:
            middle = Text(time or time_of_day, style="bold")
        else:
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
        elif follows:
            right.append(note, style=note_style)
        else:
            if note:
                right.append(f"{note}  ", style=note_style)
            right.append(
                "▶ playing" if playing else "❚❚ paused", style="bold green" if playing else ""
            )
            right.append(f"  {speed}/s", style="dim")
        return left, middle, right

    def render(self) -> Text:
        if not self._state:
            return Text("")
        return self._line(self.size.width)
