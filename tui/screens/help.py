"""The help screen: every key (read from the BINDINGS that define them) and every command."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.model.commandline import COMMANDS

_KEY_NAMES = {
    "space": "space",
    "right": "→",
    "left": "←",
    "up": "↑",
    "down": "↓",
    "shift+right": "shift+→",
    "shift+left": "shift+←",
    "plus": "+",
    "minus": "-",
    "slash": "/",
    "colon": ":",
    "question_mark": "?",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "shift+tab": "shift+tab",
    "escape": "esc",
}


def key_label(keys: str) -> str:
    """``right,l`` -> ``→ l``: every key of a binding as one would press it."""
    return " ".join(_KEY_NAMES.get(key, key) for key in keys.split(","))


def keys_table(sections: list[tuple[str, list[Binding]]]) -> Table:
    table = Table(box=None, padding=(0, 2), show_header=False, expand=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for title, bindings in sections:
        table.add_row(Text(title, style="bold underline"), "")
        for binding in bindings:
            description = binding.tooltip or binding.description or binding.action
            table.add_row(key_label(binding.key), description)
        table.add_row("", "")
    return table


def commands_table() -> Table:
    table = Table(box=None, padding=(0, 2), show_header=False)
    table.add_column(style="bold green", no_wrap=True)
    table.add_column()
    for spec in COMMANDS.values():
        table.add_row(spec.usage.split(" ", 1)[0], Text(spec.summary))
        rest = spec.usage.split(" ", 1)[1] if " " in spec.usage else ""
        if rest:
            table.add_row("", Text(rest, style="dim"))
    return table


CLOSE_HINT = "esc, ? or q closes this help"


class HelpScreen(ModalScreen[None]):
    """Keys on the left, commands on the right; any of esc, ? or q closes it."""

    BINDINGS: ClassVar[list[Binding]] = [
        Binding("escape,question_mark,q", "close", "Close help"),
    ]

    def __init__(self, sections: list[tuple[str, list[Binding]]]) -> None:
        super().__init__(id="help")
        self.sections = sections

    def compose(self):
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Help"
            box.border_subtitle = CLOSE_HINT
            title = Text("cronlapse: keys and commands", style="bold")
            title.append(f"   {CLOSE_HINT}", style="dim")
            yield Static(title, id="help-title")
            # what the screen underneath adds (a live service's dashboard: where commands go)
            dashboard = getattr(self.app, "dashboard", None)
            notes = dashboard.help_notes() if dashboard is not None else None
            if notes is not None:
                yield Static(notes, id="help-notes")
            yield Static(keys_table(self.sections), id="help-keys")
            yield Static(
                Text.assemble(
                    ("Commands", "bold underline"),
                    ("  type : then a command; tab completes names and ids\n", "dim"),
                ),
            )
            yield Static(commands_table(), id="help-commands")

    def action_close(self) -> None:
        self.dismiss(None)
