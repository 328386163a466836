"""Reading the files an importer is given, and the error every importer raises."""

from __future__ import annotations

MAX_BYTES = 1_000_000
"""Larger files are refused: crontabs, manifests and unit files are a few kilobytes."""


class ImportProblems(ValueError):
    """What is wrong with the files, each ``file:line:column: what was expected``; a file with
    problems imports nothing."""

    def __init__(self, problems: list[str], usage: bool = False) -> None:
        super().__init__("\n".join(problems))
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
        raise ImportProblems([f"{path}: cannot read: {error.strerror}"]) from None
    if len(data) > MAX_BYTES:
        raise ImportProblems([f"{path}: larger than {MAX_BYTES:,} bytes; not a {kind}"])
    if b"\x00" in data:
        raise ImportProblems([f"{path}: a binary file, not a {kind}"])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ImportProblems([f"{path}: not UTF-8 text (byte {error.start})"]) from None
