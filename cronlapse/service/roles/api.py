"""``serve --role api``: a stateless API process on PostgreSQL.

It holds no engine and no state of its own: the same routes and handlers as the single process
(:class:`~cronlapse.service.api.Routes`), with writes going to the inbox
(:mod:`cronlapse.service.inbox`), answered by the active scheduler in the transaction that journals
them, and reads answered from the read model (:mod:`cronlapse.service.stored_reads`) that the
scheduler keeps in the same transactions. Any number of them may run, on any machine; killing one
loses nothing but its requests in flight (a write whose answer it had not sent is applied or not, as
with any dropped connection).

It also claims the outbox: while it holds the claim, it delivers the notifications
(:mod:`cronlapse.service.roles.outbox`).

With ``--read-db URL`` (a streaming replica of the database) the GETs are answered there and
only writes, and the existence check before a PUT or DELETE, go to the primary.
"""

from __future__ import annotations

import contextlib
from typing import TextIO

from starlette.applications import Starlette

from cronlapse.service.api import Routes
from cronlapse.service.auth import Token
from cronlapse.service.config import Config
from cronlapse.service.inbox import Inbox
from cronlapse.service.roles.outbox import OutboxClaim
from cronlapse.service.stored_reads import StoredReads


class ApiRole(Routes):
    def __init__(
        self,
        db: str,
        read_db: str | None,
        config: Config,
        token: Token,
        out: TextIO,
        metrics_public: bool = False,
    ) -> None:
        self.inbox = Inbox(db)
        self.claim = OutboxClaim(db, config.channels, self.inbox, out)
        self.primary = StoredReads(db)
        self.replica = None if read_db is None else StoredReads(read_db)
        reads = self.primary if self.replica is None else self.replica
        super().__init__(reads, self.primary, self.inbox, config, token, metrics_public)

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Starlette):
        await self.inbox.start()
        try:
            async with self.claim.running():
                yield
        finally:
            await self.inbox.close()
            self.primary.close()
            if self.replica is not None:
                self.replica.close()
