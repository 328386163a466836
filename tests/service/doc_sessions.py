"""The shell sessions of a documented section, for tests that run them against a real server:
the section's text, its fenced blocks by language, its console block as (command, output), and
the check that a command prints what the page shows (``...`` standing for what differs from run
to run)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tests.waiting import wait_until


def section(path: Path, heading: str) -> str:
    """The text from the heading matching ``heading`` (a regular expression anchored at a line
    start) to the next heading of its level or above."""
    found = re.search(heading, path.read_text(encoding="utf-8"), re.S | re.M)
    assert found is not None, f"no section {heading!r} in {path}"
    return found.group(0)


def blocks(text: str, language: str) -> list[str]:
    """The fenced blocks of ``language`` in ``text``, in order."""
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def block(text: str, language: str) -> str:
    """The first fenced block of ``language`` in ``text``."""
    found = blocks(text, language)
    assert found, f"no {language} block in the section"
    return found[0]


def sessions(text: str) -> list[tuple[str, list[str]]]:
    """The console block's commands (after ``$ ``), each with the lines it prints."""
    found: list[tuple[str, list[str]]] = []
    for line in block(text, "console").splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        else:
            found[-1][1].append(line)
    return found


def pattern(expected: list[str]) -> re.Pattern:
    """The lines a page shows as a pattern of the whole output: ``...`` matches anything."""
    return re.compile(re.escape("\n".join(expected)).replace(re.escape("..."), ".*?"), re.S)


def prints_as_shown(command: str, run: Callable[[], str], expected: list[str], wait: bool) -> None:
    """``run()`` (the command as the test runs it) prints what the page shows for ``command``;
    a read (``wait``) may show it a little later: what a job's execution does happens in the
    background."""
    shown = pattern(expected)
    printed: list[str] = []

    def as_shown() -> bool:
        printed.append(run())
        return bool(shown.fullmatch(printed[-1].rstrip("\n")))

    def said() -> str:
        return f"$ {command}\nprinted:\n{printed[-1]}"

    if wait:
        wait_until(as_shown, f"$ {command} to print what the page shows", context=said)
    else:
        assert as_shown(), said()
