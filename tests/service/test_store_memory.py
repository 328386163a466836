"""The memory store keeps the store's contract (tests/service/store_contract.py)."""

from __future__ import annotations

import pytest

from cronlapse.service.store import Held
from cronlapse.service.store.memory import MemoryStore
from tests.service.store_contract import StoreContract


class TestMemoryStore(StoreContract):
    @pytest.fixture
    def store(self) -> MemoryStore:
        return MemoryStore()


def test_one_writer_holds_the_memory_store_until_it_is_closed() -> None:
    store = MemoryStore()
    store.hold_writer("process 1 at http://127.0.0.1:8080")
    with pytest.raises(Held, match="process 1"):
        store.hold_writer("process 2 at http://127.0.0.1:8081")
    store.close()  # a restart on the same store
    store.hold_writer("process 2 at http://127.0.0.1:8081")
