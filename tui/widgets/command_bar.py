"""The command line at the bottom: ``:`` for engine commands, ``/`` to filter a table.

It completes as one types (the first candidate shows greyed; → accepts it). Tab completes too, and
lists every candidate under the line; tab again cycles through them. What went wrong shows under
the line instead of raising (a typo, a rejected command, anything), and the line that failed
stays, selected: type to replace it, or → to fix it. A ``:`` typed over it starts a new line, as
``:`` does anywhere: the next command, not a line beginning ``:``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual import events
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.suggester import Suggester
from textual.widgets import Input, Static

from tui.model.completion import Candidates

Completer = Callable[[str], Candidates]
"""The ways to complete a line's last word (see :func:`tui.model.completion.candidates`)."""
LISTED = 12
"""Candidates listed under the line at most (the count of the others follows)."""


def safe_candidates(completer: Completer, value: str) -> Candidates:
    """Completion is a convenience: a failure in it never breaks typing."""
    try:
        return completer(value)
    except Exception:
        return Candidates(value, [])


class LineSuggester(Suggester):
    """Suggests the first candidate; never cached, since the engine changes."""

    def __init__(self, completer: Completer) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self._completer = completer

    async def get_suggestion(self, value: str) -> str | None:
        found = safe_candidates(self._completer, value)
        return found.line(0) if found.words else None


class CommandInput(Input):
    """An input line whose tab completes, lists the candidates and cycles through them."""

    BINDINGS: ClassVar[list[Binding]] = [
        Binding("tab", "complete", "Complete", show=False, priority=True),
        Binding("escape", "close", "Close", show=False),
        Binding("up", "history(-1)", "Previous", show=False),
        Binding("down", "history(1)", "Next", show=False),
    ]

    @dataclass
    class Listed(Message):
        """Tab found these candidates; ``index`` is the one now in the line."""

        words: list[str]
        index: int

    class Restarted(Message):
        """The key that opens the line was typed where a line begins: start a new one."""

    def __init__(self, *args, completer: Completer | None = None, **kwargs) -> None:
        suggester = LineSuggester(completer) if completer is not None else None
        super().__init__(*args, suggester=suggester, **kwargs)
        self.completer = completer
        self._cycle: tuple[Candidates, int] | None = None
        """The candidates tab last listed and the one it put in the line."""
        self.opening_key: str | None = None
        """The key that opened the line (``:``), when typing it again starts a new line."""

    async def _on_key(self, event: events.Key) -> None:
        """The opening key typed where a line begins (an empty line, or a failed one, which is
        left all selected) is that key again, not text: otherwise ``:`` then ``compare`` after
        a refused command reads ``:compare``. Elsewhere it is text (``daily=02:00``)."""
        if event.character is not None and event.character == self.opening_key:
            everything = (0, len(self.value))
            if not self.value or tuple(sorted(self.selection)) == everything:
                event.stop()
                event.prevent_default()  # Input's own handler would type it
                self.post_message(self.Restarted())

    def action_complete(self) -> None:
        """The next candidate when the line is still the one tab left, else the first. A
        single candidate taken is no cycle: the next tab completes from the line it made (a key
        completed to ``priority=`` goes on to its values)."""
        if self.completer is None:
            return
        cycle = self._cycle
        if cycle is not None and len(cycle[0].words) > 1 and self.value == cycle[0].line(cycle[1]):
            found, index = cycle[0], (cycle[1] + 1) % len(cycle[0].words)
        else:
            found, index = safe_candidates(self.completer, self.value), 0
        if not found.words:
            self._cycle = None
            self.post_message(self.Listed([], 0))
            return
        self._cycle = (found, index)
        self.value = found.line(index)
        self.cursor_position = len(self.value)
        self.post_message(self.Listed(found.words, index))

    def on_input_changed(self, event: Input.Changed) -> None:
        """A line edited after tab (typed over, cleared with ctrl+u, recalled) is no longer the
        candidate tab put there: the cycle ends and its list goes."""
        cycle = self._cycle
        if cycle is not None and event.value != cycle[0].line(cycle[1]):
            self._cycle = None
            self.post_message(self.Listed([], 0))

    async def action_submit(self) -> None:
        """What shows under the line now is the answer: no later edit may clear it as a list."""
        self._cycle = None
        await super().action_submit()

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

    def __init__(self, complete: Completer, *, blink: bool = True) -> None:
        super().__init__(id="command-bar")
        self.mode = "command"
        self.input = CommandInput(placeholder="", completer=self._suggest, id="command-input")
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

    def _suggest(self, value: str) -> Candidates:
        return self._complete(value) if self.mode == "command" else Candidates(value, [])

    def on_command_input_listed(self, message: CommandInput.Listed) -> None:
        message.stop()
        self.message.update(candidate_list(message.words, message.index))

    def on_command_input_restarted(self, message: CommandInput.Restarted) -> None:
        message.stop()
        self.open(self.mode)

    def open(self, mode: str, value: str = "") -> None:
        self.mode = mode
        self.input.placeholder = (
            "command: schedule, cancel, down... (tab completes, ? lists them)"
            if mode == "command"
            else "filter the table: words that must appear, !word that must not"
        )
        self.input.value = value
        self.input.cursor_position = len(value)
        self.input.opening_key = ":" if mode == "command" else None
        self.message.update("")
        self.prompt.update(":" if mode == "command" else "/")
        self.set_class(mode == "filter", "-filter")
        self.add_class("-open")
        self._recall = len(self._history)
        # Focused at once, not after the refresh ``focus()`` waits for: the key typed right
        # behind ``/`` or ``:`` goes where the focus is once this key is done (see
        # DashboardApp._send_keys), and this way it is done one trip through the queues sooner.
        self.screen.set_focus(self.input)

    def close(self) -> None:
        self.remove_class("-open")
        self.message.update("")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def show_error(self, text: str) -> None:
        """Say what went wrong; the line stays, selected, so that typing replaces it. Toasts go:
        they sit in the bottom right corner, over the message."""
        self.app.clear_notifications()
        self.message.update(f"[b red]✗[/] {escape_markup(text)}")
        self.input.select_all()

    def show_ok(self, text: str) -> None:
        self.message.update(f"[green]✓[/] {escape_markup(text)}")

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


def candidate_list(words: list[str], index: int) -> str:
    """``tab: etl  report  flaky  +4 more`` with the one in the line highlighted (markup)."""
    if len(words) < 2:
        return ""
    first = max(0, min(index - LISTED // 2, len(words) - LISTED))
    shown = [
        f"[reverse]{escape_markup(word)}[/]" if number == index else escape_markup(word)
        for number, word in enumerate(words[first : first + LISTED], start=first)
    ]
    hidden = len(words) - len(shown)
    more = f"  [dim]+{hidden} more[/]" if hidden else ""
    return f"[dim]tab:[/] {'  '.join(shown)}{more}"


def escape_markup(text: str) -> str:
    """``text`` shown as it is inside markup: every ``[`` escaped, so that nothing in it opens
    or closes a tag (Textual's own ``escape`` leaves ``[/b`` without its ``]`` as it is)."""
    return text.replace("[", r"\[")
