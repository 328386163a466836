"""The shape of an answer: a small tree of lines that plain text and Rich can both draw.

Each line carries a tag (what kind of line it is) rather than a colour, so the engine says what a
line is and the dashboard decides how it looks.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Tag(Enum):
    TITLE = "title"
    """The answer's first line, or a section's heading."""
    FACT = "fact"
    NOTE = "note"
    """A remark that qualifies the facts around it (how a figure was derived)."""
    WARN = "warn"
    """Something that went wrong: a fault, a limit reached, a failure."""


@dataclass(frozen=True, slots=True)
class Line:
    text: str
    children: tuple[Line, ...] = ()
    tag: Tag = Tag.FACT


def line(text: str, *children: Line, tag: Tag = Tag.FACT) -> Line:
    return Line(text, children, tag)


def section(title: str, children: list[Line]) -> Line:
    return Line(title, tuple(children), Tag.TITLE)


def plain(answer: Line) -> str:
    """The tree as text: the root flush left, children under ``├─`` and ``└─`` guides."""
    out = [answer.text]
    _plain_children(answer.children, "", out)
    return "\n".join(out) + "\n"


def _plain_children(children: tuple[Line, ...], prefix: str, out: list[str]) -> None:
    for index, child in enumerate(children):
        last = index == len(children) - 1
        out.append(f"{prefix}{'└─ ' if last else '├─ '}{child.text}")
        _plain_children(child.children, prefix + ("   " if last else "│  "), out)
