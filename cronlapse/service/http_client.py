"""An HTTP client made at its first request: ``httpx`` is a tenth of ``serve``'s imports, and a
server whose jobs name no URL executor and whose notifications go nowhere never sends one
(issue 36: serve imports only what serving needs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx


class LazyClient:
    """An ``httpx.AsyncClient`` with ``options``, made (and ``httpx`` imported) at first use."""

    def __init__(self, **options: object) -> None:
        self.options = options
        self._client: httpx.AsyncClient | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            self._client = httpx.AsyncClient(**self.options)  # type: ignore[arg-type]
        return self._client

    async def aclose(self) -> None:
        """Close the client, if one was made."""
        if self._client is not None:
            await self._client.aclose()
