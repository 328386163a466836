"""Version 5: the dead letters (:mod:`cronlapse.service.store.dead_letters`).

- ``dead_letters``: one row per input set aside because it could not be journaled or applied:
  why (``unstorable``, ``unapplied``, ``unreadable``), its verb and arguments (JSON in ASCII),
  the reason, the journal row it was (``unapplied``), and when (the database's clock).
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Connection, Float, Integer, MetaData, String, Table, Text

SEQ = BigInteger().with_variant(Integer(), "sqlite")
schema = MetaData()
dead_letters = Table(
    "dead_letters",
    schema,
    Column("seq", SEQ, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("why", String(16), nullable=False),
    Column("verb", String(32), nullable=False),
    Column("args", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("journal_seq", BigInteger, nullable=True),
)


def upgrade(conn: Connection) -> None:
    schema.create_all(conn, checkfirst=True)
