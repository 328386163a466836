"""The shell sessions of a documented section, for tests that run them against a real server:
the section's text, its fenced blocks by language, and its console block as (command, output)."""

from __future__ import annotations

import re
from pathlib import Path


def section(path: Path, heading: str) -> str:
    """The text from the heading matching ``heading`` (a regular expression anchored at a line
    start) to the next heading of its level or above."""
    found = re.search(heading, path.read_text(encoding="utf-8"), re.S | re.M)
    assert found is not None, f"no section {heading!r} in {path}"
    return found.group(0)


def block(text: str, language: str) -> str:
    """The first fenced block of ``language`` in ``text``."""
    match = re.search(rf"```{language}\n(.*?)```", text, re.S)
    assert match is not None, f"no {language} block in the section"
    return match.group(1)


def sessions(text: str) -> list[tuple[str, list[str]]]:
    """The console block's commands (after ``$ ``), each with the lines it prints."""
    found: list[tuple[str, list[str]]] = []
    for line in block(text, "console").splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        else:
            found[-1][1].append(line)
    return found
