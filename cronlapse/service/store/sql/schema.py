"""The current tables: what the SQL store reads and writes.

These are the tables as the last migration leaves them (:mod:`cronlapse.service.store.sql.
migrations`), written out whole. The migrations never import them: each step is a delta frozen
at its version, so a later change here cannot change what an old step did. A test migrates an
empty database through every step and compares what it made with these definitions, table by
table and column by column, on SQLite and on PostgreSQL.

- ``journal``: one row per input (see :mod:`cronlapse.service.store.journal`); ``snapshots`` the
  engine's state at a position; ``meta`` a few settings (the schema's version, the clock's
  anchor, the server's address).
- ``workers``: one row per ``cronlapse worker`` process: its name, its slots, its heartbeat (the
  database's clock, in seconds) and whether it is stopping.
- ``dispatch``: one row per attempt the engine has RUNNING on a worker process's slot, claimed
  by the process owning the slot (``claimed_by``), which writes its ``outcome``.
- ``inbox``: one row per write an API process received, taken by the active scheduler
  (``taken_by``: its election session) and answered (``answer``) with its journal row.
- ``view_jobs``, ``view_runs``, ``view_meta``: the read model, JSON the API sends unchanged.
- ``due_notices``: the notifications whose next delivery try has come.
- ``dead_letters``: the inputs set aside because they could not be journaled or applied
  (:mod:`cronlapse.service.store.dead_letters`).

The journal's position is a 64-bit integer on PostgreSQL (a server journals for years); on
SQLite it must be the ``INTEGER PRIMARY KEY`` that SQLite numbers itself, 64-bit there anyway.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    text,
)

from cronlapse.service.store.dead_letters import VERB_LENGTH

SEQ = BigInteger().with_variant(Integer(), "sqlite")
schema = MetaData()

journal = Table(
    "journal",
    schema,
    Column("seq", SEQ, primary_key=True, autoincrement=True),
    Column("tick", BigInteger, nullable=False),
    Column("phase", SmallInteger, nullable=False),
    Column("verb", String(32), nullable=False),
    Column("args", Text, nullable=False),
    Column("wall", Float, nullable=False),
)
snapshots = Table(
    "snapshots",
    schema,
    Column("seq", SEQ, primary_key=True, autoincrement=False),
    Column("wall", Float, nullable=False),
    Column("state", LargeBinary, nullable=False),
)
meta = Table(
    "meta",
    schema,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)
workers = Table(
    "workers",
    schema,
    Column("name", String(200), primary_key=True),
    Column("slots", Integer, nullable=False),
    Column("heartbeat", Float, nullable=False),
    Column("stopping", Boolean, nullable=False, server_default=text("FALSE")),
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
inbox = Table(
    "inbox",
    schema,
    Column("seq", SEQ, primary_key=True, autoincrement=True),
    Column("verb", String(32), nullable=False),
    Column("args", Text, nullable=False),
    Column("created", Float, nullable=False),
    Column("taken_by", Integer, nullable=True),
    Column("answer", Text, nullable=True),
)
view_jobs = Table(
    "view_jobs",
    schema,
    Column("job_id", String(200), primary_key=True),
    Column("position", BigInteger, nullable=False, unique=True),
    Column("deleted", Boolean, nullable=False),
    Column("status", String(16), nullable=False),
    Column("priority", Integer, nullable=False),
    Column("run", String(200), nullable=False),
    Column("summary", Text, nullable=False),
    Column("detail", Text, nullable=False),
)
view_runs = Table(
    "view_runs",
    schema,
    Column("job_id", String(200), primary_key=True),
    Column("scheduled", BigInteger, primary_key=True, autoincrement=False),
    Column("implicit", Boolean, nullable=False),
    Column("view", Text, nullable=False),
    Column("final", Boolean, nullable=False, server_default=text("FALSE")),
)
view_meta = Table(
    "view_meta",
    schema,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)
due_notices = Table(
    "due_notices",
    schema,
    Column("job_id", String(200), primary_key=True),
    Column("scheduled", BigInteger, primary_key=True, autoincrement=False),
    Column("attempt", Integer, primary_key=True, autoincrement=False),
    Column("event", String(32), primary_key=True),
    Column("channel", String(32), primary_key=True),
    Column("target", String(200), primary_key=True),
    Column("created", BigInteger, nullable=False),
    Column("try_number", Integer, nullable=False),
)
dead_letters = Table(
    "dead_letters",
    schema,
    Column("seq", SEQ, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("why", String(16), nullable=False),
    Column("verb", String(VERB_LENGTH), nullable=False),
    Column("args", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("journal_seq", BigInteger, nullable=True),
)
