"""Schema migrations: numbered steps kept in the repository, applied in order at start.

The schema's version is the ``schema_version`` row of ``meta``. Opening a database applies every
step above it, each in its own transaction together with the version it reaches, so a crash
mid-way leaves the database at a whole step (both backends roll DDL back with the transaction).
A database made before versions were kept (the journal, snapshots and meta tables, no version
row) is version 0 like an empty one: step 1 creates only the tables that are missing.

Each step is a delta against the version before it, frozen: it creates the tables it adds as
they were at its version, on a ``MetaData`` of its own (or alters one with the DDL of its day),
and never imports the current definitions (:mod:`cronlapse.service.store.sql.schema`), so a later
change of those cannot change what an old step did. Applied in order to an empty database, the
steps make exactly the current schema (a test compares them). A database newer than this code is
refused rather than written by code that does not know its tables.

On PostgreSQL several processes may start at once on one database (see docs/deployment.md);
the migrating transaction holds a transaction-scoped advisory lock, so one migrates and the
others then find the version done.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, delete, insert, inspect, select
from sqlalchemy.engine import Engine as SqlEngine

from cronlapse.service.store.errors import SchemaTooNew
from cronlapse.service.store.sql.db import lock_schema
from cronlapse.service.store.sql.migrations import (
    v001_journal,
    v002_dispatch,
    v003_inbox,
    v004_worker_stopping,
    v005_dead_letters,
    v006_finished_runs,
)
from cronlapse.service.store.sql.migrations.v001_journal import meta
from cronlapse.service.store.sql.version import LATEST, VERSION_KEY

STEPS: tuple[Callable[[Connection], None], ...] = (
    v001_journal.upgrade,
    v002_dispatch.upgrade,
    v003_inbox.upgrade,
    v004_worker_stopping.upgrade,
    v005_dead_letters.upgrade,
    v006_finished_runs.upgrade,
)
"""Step n (from 1) takes the schema from version n-1 to version n (the last reaches
:data:`~cronlapse.service.store.sql.version.LATEST`)."""
__all__ = ["LATEST", "STEPS", "VERSION_KEY", "migrate", "schema_version"]


def schema_version(conn: Connection) -> int:
    """The database's version: 0 when it has no version row (empty, or made before versions)."""
    if not inspect(conn).has_table("meta"):
        return 0
    value = conn.execute(select(meta.c.value).where(meta.c.key == VERSION_KEY)).scalar()
    return 0 if value is None else int(value)


def migrate(engine: SqlEngine) -> list[int]:
    """Apply the steps the database lacks; returns the versions reached, in order."""
    with engine.connect() as conn:
        if schema_version(conn) == LATEST:
            return []
    applied = []
    while True:
        with engine.begin() as conn:
            lock_schema(conn)
            version = schema_version(conn)
            if version > LATEST:
                raise SchemaTooNew(
                    f"the database's schema is version {version}; this cronlapse knows up to "
                    f"{LATEST}: upgrade cronlapse"
                )
            if version == LATEST:
                return applied
            STEPS[version](conn)
            conn.execute(delete(meta).where(meta.c.key == VERSION_KEY))
            conn.execute(insert(meta).values(key=VERSION_KEY, value=str(version + 1)))
            applied.append(version + 1)
