"""Version 2: the tables through which a scheduler and its worker processes meet.

- ``workers``: one row per ``cronlapse worker`` process: its name, its slots and its heartbeat
  (the database's clock, in seconds, so machines whose clocks differ agree on staleness).
- ``dispatch``: one row per attempt the engine has RUNNING on a worker process's slot, written
  by the scheduler, claimed by the process owning the slot (``claimed_by``), which heartbeats it
  and writes its ``outcome``; the scheduler journals the outcome and deletes the row.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

schema = MetaData()
workers = Table(
    "workers",
    schema,
    Column("name", String(200), primary_key=True),
    Column("slots", Integer, nullable=False),
    Column("heartbeat", Float, nullable=False),
)
dispatch = Table(
    "dispatch",
    schema,
    Column("job_id", String(200), primary_key=True),
    Column("scheduled", BigInteger, primary_key=True, autoincrement=False),
    Column("attempt", Integer, primary_key=True, autoincrement=False),
    Column("slot", String(210), nullable=False, index=True),
    Column("executor", String(200), nullable=True),
    Column("payload", Text, nullable=True),
    Column("scheduled_at", String(40), nullable=False),
    Column("claimed_by", String(200), nullable=True),
    Column("outcome", Boolean, nullable=True),
)


def upgrade(conn: Connection) -> None:
    schema.create_all(conn, checkfirst=True)
