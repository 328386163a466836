"""The journal's rows after a position, read in chunks: how both SQL journals (SQLAlchemy's and
the standard library's sqlite3 one) read on, so a replay of millions of rows never holds more
than a chunk of them at once."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from cronlapse.service.store.rows import JournalRow

CHUNK = 5000
"""Journal rows fetched per query while reading on."""


def rows_in_chunks(
    read_chunk: Callable[[int, int], list[JournalRow]], seq: int, limit: int | None
) -> Iterator[JournalRow]:
    """The rows after ``seq`` (at most ``limit``), by ``read_chunk(after, count)`` calls."""
    left = limit
    while left is None or left > 0:
        wanted = CHUNK if left is None else min(CHUNK, left)
        chunk = read_chunk(seq, wanted)
        yield from chunk
        if len(chunk) < wanted:
            return
        seq = chunk[-1].seq
        if left is not None:
            left -= len(chunk)
