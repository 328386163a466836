"""Dispatch claims and worker rows in SQL (see :mod:`cronlapse.service.store.dispatch`).

A worker claims its rows with ``SELECT ... FOR UPDATE SKIP LOCKED`` (PostgreSQL; SQLite has one
writer at a time and no such clause), so two processes given one name never run one attempt
both. Heartbeats are the database's clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy import Connection, and_, delete, select, tuple_, update
from sqlalchemy.engine import Engine as SqlEngine

from cronlapse.service.store.coordination import Channel, Election
from cronlapse.service.store.dispatch import Assigned, Assignment, AttemptId, WorkerProcess
from cronlapse.service.store.errors import Fenced
from cronlapse.service.store.sql.db import holds_fence, insert_for, notify, now_seconds
from cronlapse.service.store.sql.failures import translated
from cronlapse.service.store.sql.schema import dispatch, workers

ENDED = 0.0
"""The heartbeat a stopped process leaves: older than any, so its slots go down at once."""
KEY = tuple_(dispatch.c.job_id, dispatch.c.scheduled, dispatch.c.attempt)


def _assignment(row) -> Assignment:
    return Assignment(
        row.job_id,
        row.scheduled,
        row.attempt,
        row.slot,
        row.executor,
        row.payload,
        row.scheduled_at,
    )


class SqlDispatch:
    def __init__(self, db: SqlEngine) -> None:
        self.db = db
        self.fence: int | None = None
        """PostgreSQL: the election session whose lock every assignment checks."""

    def fence_with(self, election: Election) -> None:
        self.fence = election.session

    @translated
    def assign(self, running: Mapping[AttemptId, Assignment]) -> Assigned:
        with self.db.begin() as conn:
            if self.fence is not None and not holds_fence(conn, self.fence):
                raise Fenced("another scheduler holds the dispatch table: this one changes nothing")
            rows = conn.execute(
                select(
                    dispatch.c.job_id, dispatch.c.scheduled, dispatch.c.attempt, dispatch.c.outcome
                )
            ).all()
            present = {(r.job_id, r.scheduled, r.attempt): r.outcome for r in rows}
            gone = [key for key in present if key not in running]
            if gone:
                conn.execute(delete(dispatch).where(KEY.in_(gone)))
            new = [assignment for key, assignment in running.items() if key not in present]
            if new:
                values = [
                    {
                        "job_id": a.job_id,
                        "scheduled": a.scheduled,
                        "attempt": a.attempt,
                        "slot": a.slot,
                        "executor": a.executor,
                        "payload": a.payload,
                        "scheduled_at": a.scheduled_at,
                    }
                    for a in new
                ]
                conn.execute(insert_for(conn, dispatch).on_conflict_do_nothing(), values)
                notify(conn, Channel.DISPATCH.value)
            now = float(conn.execute(select(now_seconds(conn))).scalar())
            processes = [
                WorkerProcess(row.name, row.slots, now - row.heartbeat, row.stopping)
                for row in conn.execute(select(workers))
            ]
        outcomes = {
            key: outcome
            for key, outcome in present.items()
            if outcome is not None and key in running
        }
        return Assigned(outcomes, processes)


class SqlWorkers:
    def __init__(self, db: SqlEngine) -> None:
        self.db = db

    @translated
    def register(self, name: str, slots: int) -> None:
        with self.db.begin() as conn:
            row = {"name": name, "slots": slots, "heartbeat": now_seconds(conn), "stopping": False}
            conn.execute(
                insert_for(conn, workers)
                .values(row)
                .on_conflict_do_update(index_elements=["name"], set_=row)
            )
            notify(conn, Channel.REPORTS.value)

    @translated
    def exchange(
        self,
        name: str,
        slots: Sequence[str],
        finished: Mapping[AttemptId, bool],
        stopping: bool,
    ) -> list[Assignment]:
        with self.db.begin() as conn:
            self._beat(conn, name, finished, stopping, now_seconds(conn))
            if not stopping:
                free = select(*KEY.clauses).where(
                    dispatch.c.slot.in_(list(slots)),
                    dispatch.c.claimed_by.is_(None),
                    dispatch.c.outcome.is_(None),
                )
                claimable = conn.execute(free.with_for_update(skip_locked=True)).all()
                if claimable:
                    conn.execute(
                        update(dispatch)
                        .where(KEY.in_([tuple(row) for row in claimable]))
                        .values(claimed_by=name)
                    )
            mine = and_(dispatch.c.claimed_by == name, dispatch.c.outcome.is_(None))
            return [_assignment(row) for row in conn.execute(select(dispatch).where(mine))]

    @translated
    def hand_back(self, name: str, finished: Mapping[AttemptId, bool]) -> None:
        with self.db.begin() as conn:
            self._beat(conn, name, finished, True, ENDED)

    def _beat(
        self,
        conn: Connection,
        name: str,
        finished: Mapping[AttemptId, bool],
        stopping: bool,
        beat: object,
    ) -> None:
        """Heartbeat ``beat`` (and whether the process is stopping), write outcomes; wake the
        scheduler if either is news to it."""
        conn.execute(
            update(workers).where(workers.c.name == name).values(heartbeat=beat, stopping=stopping)
        )
        for key, ok in finished.items():
            conn.execute(
                update(dispatch).where(key == KEY, dispatch.c.claimed_by == name).values(outcome=ok)
            )
        if finished or stopping:
            notify(conn, Channel.REPORTS.value)
