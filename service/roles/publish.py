"""What the active scheduler writes with its journal rows: the read model and inbox answers.

A :class:`Publication` is the scheduler's :class:`~service.live.Publisher`. Every journal
transaction of the active scheduler also writes, through it, the answers of the inbox rows it
applied (NOTIFYing ``cronlapse_answers`` with their positions) and the read model those rows
changed (:class:`~service.read_model.ReadModel`). Its first write after an election checks that
the read model is as of the journal's last row, and rebuilds it otherwise (a database that a
single process ran, or one migrated from before the read model).
"""

from __future__ import annotations

from sqlalchemy import Connection, bindparam, update

from service.db import ANSWER_CHANNEL, notify
from service.live import LiveService
from service.migrations.v003_inbox import inbox
from service.read_model import ReadModel

NOTIFY_BYTES = 7000
"""A NOTIFY payload's budget (PostgreSQL's limit is 8000 bytes)."""


class Publication:
    def __init__(self, live: LiveService, read_model: ReadModel) -> None:
        self.live = live
        self.read_model = read_model
        self.checked = False
        """Whether the stored read model was found to match the journal."""

    def applied(self, verb: str, args: dict) -> None:
        self.read_model.applied(verb, args)

    def write(self, conn: Connection, seq: int, answers: dict[int, str]) -> None:
        if not self.checked:
            if self.read_model.stored_seq(conn) != self.live.state.seq:
                self.read_model.rebuild(conn)
            self.checked = True
        if answers:
            conn.execute(
                update(inbox)
                .where(inbox.c.seq == bindparam("row"))
                .values(answer=bindparam("text")),
                [{"row": row, "text": text} for row, text in answers.items()],
            )
            for payload in _payloads([str(row) for row in answers]):
                notify(conn, ANSWER_CHANNEL, payload)
        self.read_model.write(conn, seq)


def _payloads(rows: list[str]) -> list[str]:
    """``rows`` comma-separated, in payloads within NOTIFY_BYTES."""
    payloads, current = [], ""
    for row in rows:
        if current and len(current) + len(row) + 1 > NOTIFY_BYTES:
            payloads.append(current)
            current = ""
        current = f"{current},{row}" if current else row
    return [*payloads, current]
