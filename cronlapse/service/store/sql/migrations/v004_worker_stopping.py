"""Version 4: a worker process can say that it is stopping.

- ``workers.stopping``: set by a ``cronlapse worker`` asked to stop (SIGTERM, Ctrl-C). The
  active scheduler then drains its slots (the engine assigns them nothing more, and each goes
  down once its attempt ends) rather than bringing them up again, and a stopping process whose
  heartbeat has ended handed its slots back: it was not lost. Registering clears it.
"""

from __future__ import annotations

from sqlalchemy import Connection


def upgrade(conn: Connection) -> None:
    conn.exec_driver_sql("ALTER TABLE workers ADD COLUMN stopping BOOLEAN NOT NULL DEFAULT FALSE")
