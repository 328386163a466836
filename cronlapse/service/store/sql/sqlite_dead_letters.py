"""An SQLite database's dead letters through the standard library's ``sqlite3``
(:mod:`cronlapse.service.store.sql.sqlite_db`): an SQLite server counts them on every
``/metrics`` scrape, and ``cronlapse status`` lists them (see
:mod:`cronlapse.service.store.dead_letters`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from cronlapse.service.store.dead_letters import VERB_LENGTH, DeadLetter, Why, not_kept
from cronlapse.service.store.sql.sqlite_db import NOW_SECONDS, SqliteDb, translated

COLUMNS = ("why", "verb", "args", "reason", "journal_seq", "at")
"""A dead letter's columns in the order :func:`letter` reads them."""
_INSERT = (
    "INSERT INTO dead_letters (at, why, verb, args, reason, journal_seq) "
    f"VALUES ({NOW_SECONDS}, :why, :verb, :args, :reason, :journal_seq)"
)


def letter_row(letter: DeadLetter) -> dict[str, object]:
    """The columns of a letter to keep (its time is the database's)."""
    return {
        "why": letter.why.value,
        "verb": letter.verb[:VERB_LENGTH],
        "args": letter.args,
        "reason": letter.reason,
        "journal_seq": letter.journal_seq,
    }


def letter(
    why: str, verb: str, args: str, reason: str, journal_seq: int | None, at: float
) -> DeadLetter:
    """A kept letter from its :data:`COLUMNS`."""
    return DeadLetter(Why(why), verb, args, reason, journal_seq, float(at))


class SqliteDeadLetters:
    def __init__(self, db: SqliteDb) -> None:
        self.db = db

    @translated
    def add(self, letters: Sequence[DeadLetter]) -> None:
        if not letters:
            return
        seqs = [letter.journal_seq for letter in letters if letter.journal_seq is not None]

        def added(conn: sqlite3.Connection) -> None:
            found = "SELECT 1 FROM dead_letters WHERE journal_seq = ?"
            kept = {seq for seq in seqs if conn.execute(found, (seq,)).fetchone() is not None}
            rows = [letter_row(letter) for letter in not_kept(letters, kept)]
            if rows:
                conn.executemany(_INSERT, rows)

        self.db.write(added)

    @translated
    def count(self) -> int:
        return int(self.db.read("SELECT count(*) FROM dead_letters")[0][0])

    @translated
    def latest(self, limit: int) -> list[DeadLetter]:
        found = self.db.read(
            f"SELECT {', '.join(COLUMNS)} FROM dead_letters ORDER BY seq DESC LIMIT ?", (limit,)
        )
        return [letter(*row) for row in found]
