"""The bearer token every request but ``GET /health`` must carry.

It comes from ``CRONLAPSE_TOKEN`` or, without it, from a token file: generated at first start
(32 random bytes, URL-safe) and created with mode 0600, so only the server's user can read it.
The file sits next to an SQLite database (``cronlapse.db`` -> ``cronlapse.db.token``), or in
``$XDG_CONFIG_HOME/cronlapse/token`` for other databases. Tokens are compared with
:func:`hmac.compare_digest`, whose time does not depend on where the strings differ.
"""

from __future__ import annotations

import hmac
import os
import secrets
from dataclasses import dataclass

from cronlapse.service.store import TOKEN_ENV, token_path


@dataclass(frozen=True, slots=True)
class Token:
    value: str
    source: str
    """Where it came from, to tell the user: the variable's name or the file's path."""

    def matches(self, header: str | None) -> bool:
        """Whether an ``Authorization`` header carries this token, in constant time."""
        given = header[7:] if header is not None and header[:7].lower() == "bearer " else ""
        return hmac.compare_digest(given.encode(), self.value.encode())


def load_token(db_url: str) -> Token:
    """The token from the environment, else from its file, created with mode 0600 if missing."""
    value = os.environ.get(TOKEN_ENV, "").strip()
    if value:
        return Token(value, TOKEN_ENV)
    path = token_path(db_url)
    try:
        return Token(path.read_text(encoding="utf-8").strip(), str(path))
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(32)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(value + "\n")
    return Token(value, str(path))
