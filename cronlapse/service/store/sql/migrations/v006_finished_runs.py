"""Version 6: the read model marks finished runs, which outlive the engine's memory of them.

- ``view_runs.final``: the run is final (succeeded, failed for good, cancelled, skipped): its
  answer never changes again. Every process with an engine writes its finished runs here before
  a snapshot lets the engine forget them, so a rebuild of the read model keeps these rows (the
  engine may no longer hold them) and the history's retention deletes only these.
"""

from __future__ import annotations

from sqlalchemy import Connection


def upgrade(conn: Connection) -> None:
    conn.exec_driver_sql("ALTER TABLE view_runs ADD COLUMN final BOOLEAN NOT NULL DEFAULT FALSE")
