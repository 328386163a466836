"""Version 3: the tables through which stateless API processes meet the active scheduler.

- ``inbox``: one row per write an API process received (``serve --role api``): its verb and
  arguments as the journal would hold them. The active scheduler takes the rows in order
  (``taken_by``: its election session), applies them, and writes the engine's answer
  (``answer``) in the same transaction as their journal rows; the API process reads the answer,
  deletes the row and answers its client.
- ``view_jobs``, ``view_runs``, ``view_meta``: the read model, what the API answers about jobs,
  runs and workers, as JSON the API sends unchanged. The active scheduler keeps it in the same
  transaction as the journal rows that changed it, so a read never sees a write that is not
  journaled, nor misses one that was answered.
- ``due_notices``: the notifications whose next delivery try has come, also kept by the active
  scheduler with its journal, for whichever process holds the outbox claim to deliver
  (the outbox claim).
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

SEQ = BigInteger().with_variant(Integer(), "sqlite")
schema = MetaData()
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


def upgrade(conn: Connection) -> None:
    schema.create_all(conn, checkfirst=True)
