"""Reading the files an importer is given, and the error every importer raises."""

from __future__ import annotations

from engine.model.problems import Problem

MAX_BYTES = 1_000_000
"""Larger files are refused: crontabs, manifests and unit files are a few kilobytes."""


class ImportProblems(ValueError):
    """What is wrong with the files, each at its ``file:line:column`` where it is known; a file
    with problems imports nothing."""

    def __init__(self, problems: list[Problem], usage: bool = False) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = problems
        self.usage = usage
        """Whether an option of ``cronlapse import`` is wrong (``--from`` in a gap of the fleet's
        zone, ``--days`` past the year 9999): a usage error, which every command exits 2 for."""


def read_text(path: str, kind: str) -> str:
    """The text of ``path``, which should be a ``kind`` (for the messages): refused if it cannot
    be read, is larger than :data:`MAX_BYTES`, is not UTF-8 or holds NUL bytes (binary)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        raise file_problem(path, f"cannot read: {error.strerror}") from None
    if len(data) > MAX_BYTES:
        raise file_problem(path, f"larger than {MAX_BYTES:,} bytes; not a {kind}")
    if b"\x00" in data:
        raise file_problem(path, f"a binary file, not a {kind}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise file_problem(path, f"not UTF-8 text (byte {error.start})") from None


def at(path: str, line: int | None, column: int | None, message: str) -> Problem:
    """An importer's problem at ``path:line:column`` (as much of it as is known)."""
    return Problem(path, line, column, "", message)


def file_problem(path: str, message: str) -> ImportProblems:
    """The one problem of a file as a whole (it cannot be read, it is no text)."""
    return ImportProblems([at(path, None, None, message)])
