"""Dead letters in SQL (see :mod:`cronlapse.service.store.dead_letters`)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, insert, select
from sqlalchemy.engine import Engine as SqlEngine

from cronlapse.service.store.dead_letters import DeadLetter, Why
from cronlapse.service.store.sql.db import now_seconds
from cronlapse.service.store.sql.failures import translated
from cronlapse.service.store.sql.schema import VERB_LENGTH, dead_letters


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
            rows = [
                {
                    "why": letter.why.value,
                    "verb": letter.verb[:VERB_LENGTH],
                    "args": letter.args,
                    "reason": letter.reason,
                    "journal_seq": letter.journal_seq,
                }
                for letter in letters
                if letter.journal_seq is None or letter.journal_seq not in kept
            ]
            if rows:
                conn.execute(insert(dead_letters).values(at=now_seconds(conn)), rows)

    @translated
    def count(self) -> int:
        with self.db.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(dead_letters)).scalar() or 0)

    @translated
    def latest(self, limit: int) -> list[DeadLetter]:
        query = select(dead_letters).order_by(dead_letters.c.seq.desc()).limit(limit)
        with self.db.connect() as conn:
            return [
                DeadLetter(
                    Why(row.why), row.verb, row.args, row.reason, row.journal_seq, float(row.at)
                )
                for row in conn.execute(query)
            ]
