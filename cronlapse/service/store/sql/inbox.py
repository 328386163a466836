"""The inbox in SQL (see :mod:`cronlapse.service.store.inbox`). Every write and answer wakes
its listeners at commit (PostgreSQL); the ages are by the database's clock."""

from __future__ import annotations

import json
from collections.abc import Mapping

from sqlalchemy import Connection, Row, bindparam, delete, insert, or_, update
from sqlalchemy.engine import Engine as SqlEngine

from cronlapse.service.store.coordination import Channel
from cronlapse.service.store.dead_letters import DeadLetter, Why
from cronlapse.service.store.inbox import InboxRow
from cronlapse.service.store.sql.db import is_postgresql, notify, now_seconds, wake_up
from cronlapse.service.store.sql.failures import translated
from cronlapse.service.store.sql.schema import dead_letters, inbox
from cronlapse.service.store.sql.sqlite_dead_letters import letter_row

NOTIFY_BYTES = 7000
"""A NOTIFY payload's budget (PostgreSQL's limit is 8000 bytes)."""


def write_answers(conn: Connection, answers: Mapping[int, str]) -> None:
    """Answer inbox rows in ``conn``'s transaction, waking the API processes with their
    positions (in payloads within NOTIFY_BYTES)."""
    if not answers:
        return
    conn.execute(
        update(inbox).where(inbox.c.seq == bindparam("row")).values(answer=bindparam("text")),
        [{"row": row, "text": text} for row, text in answers.items()],
    )
    for payload in _payloads([str(row) for row in answers]):
        notify(conn, Channel.ANSWERS.value, payload)


def _payloads(rows: list[str]) -> list[str]:
    """``rows`` comma-separated, in payloads within NOTIFY_BYTES."""
    payloads, current = [], ""
    for row in rows:
        if current and len(current) + len(row) + 1 > NOTIFY_BYTES:
            payloads.append(current)
            current = ""
        current = f"{current},{row}" if current else row
    return [*payloads, current]


def _set_aside(conn: Connection, unreadable: dict[int, tuple[Row, str]]) -> None:
    """Answer the rows whose arguments do not read with a failure (the API process that wrote
    each then answers 503) and keep them as dead letters: taken again and again, they stopped
    every row after them."""
    answers = {
        seq: json.dumps({"failed": f"SetAside: {reason}"}, separators=(",", ":"))
        for seq, (_, reason) in unreadable.items()
    }
    write_answers(conn, answers)
    letters = [
        letter_row(DeadLetter(Why.UNREADABLE, row.verb, json.dumps(row.args), reason))
        for row, reason in unreadable.values()
    ]
    conn.execute(insert(dead_letters).values(at=now_seconds(conn)), letters)


class SqlInbox:
    def __init__(self, db: SqlEngine) -> None:
        self.db = db

    @translated
    def write(self, verb: str, args: dict) -> int:
        with self.db.begin() as conn:
            values = {"verb": verb, "args": json.dumps(args, separators=(",", ":"))}
            written = insert(inbox).values(created=now_seconds(conn), **values)
            if is_postgresql(conn):  # the row and the scheduler's wake-up in one round trip
                returned = written.returning(inbox.c.seq, wake_up(Channel.INBOX.value))
            else:
                returned = written.returning(inbox.c.seq)
            return int(conn.execute(returned).scalar())

    @translated
    def take(self, session: int, sweep_after: float | None = None) -> list[InboxRow]:
        with self.db.begin() as conn:
            if sweep_after is not None:
                old = now_seconds(conn) - sweep_after
                conn.execute(
                    delete(inbox).where(inbox.c.answer.is_not(None), inbox.c.created < old)
                )
            taken = conn.execute(
                update(inbox)
                .where(
                    inbox.c.answer.is_(None),
                    or_(inbox.c.taken_by.is_(None), inbox.c.taken_by != session),
                )
                .values(taken_by=session)
                .returning(inbox.c.seq, inbox.c.verb, inbox.c.args)
            ).all()
            rows, unreadable = [], {}
            for row in taken:
                try:
                    rows.append(InboxRow(row.seq, row.verb, json.loads(row.args)))
                except ValueError as error:
                    unreadable[row.seq] = (row, f"its arguments are not JSON: {error}")
            if unreadable:
                _set_aside(conn, unreadable)
        return sorted(rows, key=lambda row: row.seq)

    @translated
    def take_answer(self, seq: int) -> str | None:
        with self.db.begin() as conn:
            return conn.execute(
                delete(inbox)
                .where(inbox.c.seq == seq, inbox.c.answer.is_not(None))
                .returning(inbox.c.answer)
            ).scalar()

    @translated
    def withdraw(self, seq: int) -> bool:
        with self.db.begin() as conn:
            gone = conn.execute(delete(inbox).where(inbox.c.seq == seq, inbox.c.taken_by.is_(None)))
            return gone.rowcount == 1
