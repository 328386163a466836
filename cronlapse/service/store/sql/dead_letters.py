"""Dead letters in SQL (see :mod:`cronlapse.service.store.dead_letters`): PostgreSQL's, through
SQLAlchemy; an SQLite database's go through sqlite3
(:mod:`cronlapse.service.store.sql.sqlite_dead_letters`), whose rows these share."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, insert, select
from sqlalchemy.engine import Engine as SqlEngine

from cronlapse.service.store.dead_letters import DeadLetter, not_kept
from cronlapse.service.store.sql.db import now_seconds
from cronlapse.service.store.sql.failures import translated
from cronlapse.service.store.sql.schema import dead_letters
from cronlapse.service.store.sql.sqlite_dead_letters import COLUMNS, letter, letter_row


class SqlDeadLetters:
    def __init__(self, db: SqlEngine) -> None:
        self.db = db

    @translated
    def add(self, letters: Sequence[DeadLetter]) -> None:
        if not letters:
            return
        with self.db.begin() as conn:
            seqs = [letter.journal_seq for letter in letters if letter.journal_seq is not None]
            kept = set(
                conn.execute(
                    select(dead_letters.c.journal_seq).where(dead_letters.c.journal_seq.in_(seqs))
                ).scalars()
            )
            rows = [letter_row(letter) for letter in not_kept(letters, kept)]
            if rows:
                conn.execute(insert(dead_letters).values(at=now_seconds(conn)), rows)

    @translated
    def count(self) -> int:
        with self.db.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(dead_letters)).scalar() or 0)

    @translated
    def latest(self, limit: int) -> list[DeadLetter]:
        columns = [dead_letters.c[name] for name in COLUMNS]
        query = select(*columns).order_by(dead_letters.c.seq.desc()).limit(limit)
        with self.db.connect() as conn:
            return [letter(*row) for row in conn.execute(query)]
