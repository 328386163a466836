"""The error view: why a file cannot run, each problem at its file:line:column with the line.

The app keeps running under it: fix the file (it reloads by itself when saved), press r to reload,
o to open another file, or escape to go back to what was showing before.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from engine.model.problems import Problem
from tui.model.session import LoadFailed


def _source_lines(path: str) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def render_problems(failed: LoadFailed) -> Group:
    """Each problem, then the line it points at with a caret under the column."""
    lines_by_file: dict[str, list[str]] = {}
    parts: list[Text] = []
    count = len(failed.problems)
    header = Text(f"{failed.source} cannot run: ", style="bold")
    header.append(f"{count} problem{'s' if count != 1 else ''}", style="bold red")
    parts += [header, Text("")]
    for problem in failed.problems:
        parts.append(_problem_line(problem))
        if problem.line is not None:
            source = lines_by_file.setdefault(problem.source, _source_lines(problem.source))
            if 0 < problem.line <= len(source):
                text = source[problem.line - 1]
                gutter = f"{problem.line:>5} │ "
                parts.append(Text(gutter, style="dim") + Text(text))
                caret = " " * (len(gutter) + max(0, (problem.column or 1) - 1)) + "^"
                parts.append(Text(caret, style="bold red"))
        parts.append(Text(""))
    parts.append(
        Text(
            "Fix the file and save it (it reloads by itself), or press r to reload, "
            "o to open another file, esc to go back, q to quit.",
            style="dim",
        )
    )
    return Group(*parts)


def _problem_line(problem: Problem) -> Text:
    where = problem.source
    if problem.line is not None:
        where += f":{problem.line}:{problem.column or 1}"
    text = Text(where, style="bold")
    text.append(": ")
    if problem.path:
        text.append(problem.path, style="cyan")
        text.append(": ")
    text.append(problem.message, style="red")
    return text


class ErrorScreen(Screen[None]):
    """Shows a :class:`LoadFailed`; updated in place when a reload fails again."""

    BINDINGS: ClassVar[list[Binding]] = [
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, failed: LoadFailed) -> None:
        super().__init__(id="errors")
        self.failed = failed
        self.body = Static(render_problems(failed), id="errors-body")

    def compose(self):
        with VerticalScroll(id="errors-box"):
            yield self.body
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#errors-box").border_title = "Cannot run"

    def show(self, failed: LoadFailed) -> None:
        self.failed = failed
        self.body.update(render_problems(failed))

    def action_back(self) -> None:
        self.dismiss(None)
