"""A small modal that asks for one value (a tick, a path) and says inline what is wrong with it."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui.widgets.command_bar import CommandInput, Completer, candidate_list, escape_markup


class PromptScreen(ModalScreen[str | None]):
    """Dismissed with the typed value once ``check`` finds nothing wrong, or None on escape."""

    BINDINGS: ClassVar[list[Binding]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        hint: str,
        value: str = "",
        *,
        check: Callable[[str], str | None] | None = None,
        complete: Completer | None = None,
        blink: bool = True,
        prompt_id: str = "prompt",
    ) -> None:
        super().__init__(id=prompt_id)
        self.title_text = title
        self.hint = hint
        self.check = check
        self.input = CommandInput(value=value, completer=complete, id="prompt-input")
        self.input.cursor_blink = blink
        self.error = Static("", id="prompt-error")

    def compose(self):
        with Vertical(id="prompt-box"):
            yield Static(self.title_text, id="prompt-title")
            yield self.input
            yield Static(self.hint, id="prompt-hint")
            yield self.error

    def on_mount(self) -> None:
        self.input.focus()
        self.input.cursor_position = len(self.input.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        problem = None
        if self.check is not None:
            try:
                problem = self.check(value)
            except Exception as error:  # the check is user-facing: report, never raise
                problem = f"{type(error).__name__}: {error}"
        if problem:  # as the command line: the failed entry stays, selected, so typing replaces it
            self.error.update(f"[b red]✗[/] {escape_markup(problem)}")
            self.input.select_all()
            return
        self.dismiss(value)

    def on_command_input_listed(self, message: CommandInput.Listed) -> None:
        message.stop()
        self.error.update(candidate_list(message.words, message.index))

    def on_command_bar_closed(self, event) -> None:
        event.stop()
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
