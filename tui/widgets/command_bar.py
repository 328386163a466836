"""The command line at the bottom: ``:`` for engine commands, ``/`` to filter a table.

It completes as one types (the suggestion shows greyed; tab or → accepts it) and shows what went
wrong under the line instead of raising: a typo, a rejected command, anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.suggester import Suggester
from textual.widgets import Input, Static


class LineSuggester(Suggester):
    """Asks a function for the completed line; never cached, since the engine changes."""

    def __init__(self, complete: Callable[[str], str | None]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self._complete = complete

    async def get_suggestion(self, value: str) -> str | None:
        try:
            return self._complete(value)
        except Exception:  # completion is a convenience: never let it break typing
            return None


class CommandInput(Input):
    BINDINGS: ClassVar[list[Binding]] = [
        Binding("tab", "accept_suggestion", "Complete", show=False, priority=True),
        Binding("escape", "close", "Close", show=False),
        Binding("up", "history(-1)", "Previous", show=False),
        Binding("down", "history(1)", "Next", show=False),
    ]

    def action_accept_suggestion(self) -> None:
        if self._suggestion and self._suggestion != self.value:
            self.value = self._suggestion
            self.cursor_position = len(self.value)

    def action_close(self) -> None:
        self.post_message(CommandBar.Closed())

    def action_history(self, direction: int) -> None:
        bar = self.parent
        if isinstance(bar, CommandBar):
            bar.recall(direction)


class CommandBar(Vertical):
    """Hidden until opened; ``mode`` is ``command`` or ``filter``."""

    @dataclass
    class Submitted(Message):
        mode: str
        text: str

    @dataclass
    class Closed(Message):
        pass

    def __init__(self, complete: Callable[[str], str | None], *, blink: bool = True) -> None:
        super().__init__(id="command-bar")
        self.mode = "command"
        self.input = CommandInput(
            placeholder="", suggester=LineSuggester(self._suggest), id="command-input"
        )
        self.input.cursor_blink = blink
        self.message = Static("", id="command-message")
        self.prompt = Static(":", id="command-prompt")
        self._complete = complete
        self._history: list[str] = []
        self._recall = 0

    def compose(self):
        with Horizontal(id="command-row"):
            yield self.prompt
            yield self.input
        yield self.message

    def _suggest(self, value: str) -> str | None:
        return self._complete(value) if self.mode == "command" else None

    def open(self, mode: str, value: str = "") -> None:
        self.mode = mode
        self.input.placeholder = (
            "command: schedule, cancel, down... (tab completes, ? lists them)"
            if mode == "command"
            else "filter the table: words that must appear, !word that must not"
        )
        self.input.value = value
        self.input.cursor_position = len(value)
        self.message.update("")
        self.prompt.update(":" if mode == "command" else "/")
        self.set_class(mode == "filter", "-filter")
        self.add_class("-open")
        self._recall = len(self._history)
        self.input.focus()

    def close(self) -> None:
        self.remove_class("-open")
        self.message.update("")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def show_error(self, text: str) -> None:
        self.message.update(f"[b red]✗[/] {_escape(text)}")

    def show_ok(self, text: str) -> None:
        self.message.update(f"[green]✓[/] {_escape(text)}")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if text and self.mode == "command" and (not self._history or self._history[-1] != text):
            self._history.append(text)
        self.post_message(self.Submitted(self.mode, text))

    def recall(self, direction: int) -> None:
        if self.mode != "command" or not self._history:
            return
        self._recall = max(0, min(len(self._history), self._recall + direction))
        value = self._history[self._recall] if self._recall < len(self._history) else ""
        self.input.value = value
        self.input.cursor_position = len(value)


def _escape(text: str) -> str:
    return text.replace("[", r"\[")
