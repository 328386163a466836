"""Rounds woken by the store: the loop every role process runs against PostgreSQL.

A role does its work in rounds (the dispatcher mirrors attempts, the inbox reader takes writes,
a worker claims its slots). A round runs at once, then whenever one of the role's channels wakes
it (:class:`~cronlapse.service.store.Channel`: LISTEN/NOTIFY on PostgreSQL), and at least every
``every`` seconds. The listening connection is the one thing that can end such a loop by
accident: a restarted database or a proxy dropping an idle connection closes it. So the listener
is opened again whenever it fails, and a failed round is logged and retried by the next: a role
slows to its polling pace while the database is away, and never stops without a word.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import NoReturn

from cronlapse.service.store import Channel, StoreFailure, Wakeups


async def rounds(
    wakeups: Wakeups,
    channels: Sequence[Channel],
    round_: Callable[[], Awaitable[object]],
    every: float,
    what: str,
    log: logging.Logger,
) -> NoReturn:
    """Run ``round_`` now, on each wake-up on ``channels`` and every ``every`` seconds, forever.

    ``what`` names the role in ``log``'s lines."""
    while True:
        try:
            async with wakeups.listen(channels) as listener:
                while True:
                    await _one_round(round_, what, log)
                    await listener.wait(every)
        except StoreFailure as error:
            log.warning("%s: its listening connection failed (%s); reconnecting", what, error)
            await asyncio.sleep(every)


async def _one_round(
    round_: Callable[[], Awaitable[object]], what: str, log: logging.Logger
) -> None:
    try:
        await round_()
    except StoreFailure as error:  # the database is away: the next round retries
        log.warning("%s: cannot reach the database: %s", what, error)
    except Exception:  # a defect: logged with its traceback, and the next round retries
        log.exception("%s round failed", what)
