"""The memory store keeps the store's contract (tests/service/store_contract.py)."""

from __future__ import annotations

import pytest

from cronlapse.service.store.memory import MemoryStore
from tests.service.store_contract import StoreContract


class TestMemoryStore(StoreContract):
    @pytest.fixture
    def store(self) -> MemoryStore:
        return MemoryStore()
