"""``serve --role api``: a stateless API process on PostgreSQL.

It holds no engine and no state of its own: the same routes and handlers as the single process
(:class:`~cronlapse.service.api.Routes`), with writes going to the store's inbox
(:mod:`cronlapse.service.inbox`), answered by the active scheduler in the transaction that
journals them, and reads answered from the store's read model
(:mod:`cronlapse.service.stored_reads`) that the scheduler keeps in the same transactions. Any
number of them may run, on any machine; killing one loses nothing but its requests in flight (a
write whose answer it had not sent is applied or not, as with any dropped connection).

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
from cronlapse.service.roles.outbox import OutboxDelivery
from cronlapse.service.store import Store
from cronlapse.service.stored_reads import StoredReads


class ApiRole(Routes):
    def __init__(
        self,
        store: Store,
        replica: Store | None,
        config: Config,
        token: Token,
        out: TextIO,
        metrics_public: bool = False,
    ) -> None:
        self.store = store
        self.replica = replica
        """With ``--read-db``: the streaming replica's store, where GETs are answered."""
        self.inbox = Inbox(store)
        self.claim = OutboxDelivery(store, config.channels, self.inbox, out)
        primary = StoredReads(store.views)
        reads = primary if replica is None else StoredReads(replica.views)
        super().__init__(reads, primary, self.inbox, config, token, metrics_public)

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Starlette):
        await self.inbox.start()
        try:
            async with self.claim.running():
                yield
        finally:
            await self.inbox.close()
            self.store.close()
            if self.replica is not None:
                self.replica.close()
