"""Version 1: the single-process service's tables (the journal, snapshots and meta).

``checkfirst`` makes this step adopt a database made before versions were kept: its tables are
these, so only the version row is new. The journal's position is a 64-bit integer on PostgreSQL
(a server journals for years); on SQLite it must be the ``INTEGER PRIMARY KEY`` that SQLite
numbers itself, which is 64-bit there anyway.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    Float,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
)

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


def upgrade(conn: Connection) -> None:
    schema.create_all(conn, checkfirst=True)
