"""What the active scheduler writes with its journal rows: read model, inbox answers, due notices.

A :class:`Publication` is the scheduler's :class:`~cronlapse.service.live.Publisher`. Every journal
transaction of the active scheduler also writes, through it, the answers of the inbox rows it
applied (NOTIFYing ``cronlapse_answers`` with their positions), the read model those rows
changed (:class:`~cronlapse.service.read_model.ReadModel`) and the notifications now due for
delivery (``due_notices``, what changed since the last write), which the process holding the outbox
claim delivers (:mod:`cronlapse.service.roles.outbox`). Its first write after an election checks
that the read model is as of the journal's last row, and rebuilds it otherwise (a database that a
single process ran, or one migrated from before the read model).
"""

from __future__ import annotations

from sqlalchemy import Connection, and_, bindparam, delete, insert, update

from cronlapse.service.db import ANSWER_CHANNEL, notify
from cronlapse.service.delivery.notice import due_notices
from cronlapse.service.live import LiveService
from cronlapse.service.migrations.v003_inbox import due_notices as due_table
from cronlapse.service.migrations.v003_inbox import inbox
from cronlapse.service.read_model import ReadModel
from engine.parts.notifications import NotificationKey

KEY_COLUMNS = ("job_id", "scheduled", "attempt", "event", "channel", "target")

NOTIFY_BYTES = 7000
"""A NOTIFY payload's budget (PostgreSQL's limit is 8000 bytes)."""


class Publication:
    def __init__(self, live: LiveService, read_model: ReadModel) -> None:
        self.live = live
        self.read_model = read_model
        self.checked = False
        """Whether the stored read model was found to match the journal."""
        self.due: dict[NotificationKey, tuple[int, int]] = {}
        """The due notices as written: key -> (created, try number)."""

    def applied(self, verb: str, args: dict) -> None:
        self.read_model.applied(verb, args)

    def write(self, conn: Connection, seq: int, answers: dict[int, str]) -> None:
        if not self.checked:
            if self.read_model.stored_seq(conn) != self.live.state.seq:
                self.read_model.rebuild(conn)
            conn.execute(delete(due_table))
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
        self._write_due(conn)

    def _write_due(self, conn: Connection) -> None:
        due = {key: (n.time, n.try_number) for key, n in due_notices(self.live).items()}
        gone = [key for key, was in self.due.items() if due.get(key) != was]
        new = [key for key, now in due.items() if self.due.get(key) != now]
        for key in gone:
            parts = zip(KEY_COLUMNS, key, strict=True)
            conn.execute(delete(due_table).where(and_(*(due_table.c[n] == p for n, p in parts))))
        if new:
            rows = [
                dict(zip(KEY_COLUMNS, key, strict=True))
                | {"created": due[key][0], "try_number": due[key][1]}
                for key in new
            ]
            conn.execute(insert(due_table), rows)
        self.due = due


def _payloads(rows: list[str]) -> list[str]:
    """``rows`` comma-separated, in payloads within NOTIFY_BYTES."""
    payloads, current = [], ""
    for row in rows:
        if current and len(current) + len(row) + 1 > NOTIFY_BYTES:
            payloads.append(current)
            current = ""
        current = f"{current},{row}" if current else row
    return [*payloads, current]
