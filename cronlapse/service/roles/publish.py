"""What the active scheduler writes with its journal rows: read model, inbox answers, due notices.

A :class:`SchedulerPublisher` is the scheduler's :class:`~cronlapse.service.live.Publisher`.
Every journal transaction of the active scheduler also carries, through it, the answers of the
inbox rows it applied (which wake the API processes waiting on them), the read model those rows
changed (:class:`~cronlapse.service.read_model.ReadModel`) and the changes among the
notifications due for delivery, which the process holding the outbox claim delivers
(:mod:`cronlapse.service.roles.outbox`). Its first write after an election checks that the read
model is as of the journal's last row, and rebuilds it otherwise (a database that a single
process ran, or one migrated from before the read model); it also rewrites the due notices whole.
"""

from __future__ import annotations

from cronlapse.service.delivery.notice import due_notices
from cronlapse.service.live import LiveService
from cronlapse.service.read_model import ReadModel
from cronlapse.service.store import DueChanges, DueNotice, Publication
from engine.parts.notifications import NotificationKey


class SchedulerPublisher:
    def __init__(self, live: LiveService, read_model: ReadModel) -> None:
        self.live = live
        self.read_model = read_model
        self.checked = False
        """Whether the stored read model was found to match the journal."""
        self.due: dict[NotificationKey, tuple[int, int]] = {}
        """The due notices as written: key -> (created, try number)."""

    def applied(self, verb: str, args: dict) -> None:
        self.read_model.applied(verb, args)

    def stale(self) -> bool:
        return self.read_model.stale()

    def publication(self, answers: dict[int, str]) -> Publication:
        first = not self.checked
        if first:
            self.checked = True
            stored = self.live.store.views.position()
            stale = stored != self.live.state.seq
            views = self.read_model.rebuild() if stale else self.read_model.changes()
        else:
            views = self.read_model.changes()
        return Publication(answers, views, self._due_changes(reset=first))

    def _due_changes(self, reset: bool) -> DueChanges:
        due = {key: (n.time, n.try_number) for key, n in due_notices(self.live).items()}
        written = {} if reset else self.due
        removed = [key for key in written if key not in due]
        added = [
            DueNotice(key, *now)  # type: ignore[arg-type]
            for key, now in due.items()
            if written.get(key) != now
        ]
        self.due = due
        return DueChanges(added=added, removed=removed, reset=reset)
