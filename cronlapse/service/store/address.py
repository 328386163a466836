"""What a service leaves in and beside its database for whoever watches it: where it listens,
its clock, and where its token is kept; and a database URL as it may be printed.

The dashboard attached to a journal (``cronlapse tui --db URL``) reads these through the store's
face, without loading the server: the ``meta`` keys below, written by ``cronlapse serve`` at
start, and the token file it creates beside an SQLite database. A URL is parsed by the SQL
implementation (:mod:`cronlapse.service.store.sql.urls`), loaded when one is first read.
"""

from __future__ import annotations

import os
from pathlib import Path

CLOCK_KEY = "clock"
"""The ``meta`` key of the service's clock anchor (:class:`cronlapse.service.clock.Anchor`)."""
ADDRESS_KEY = "address"
"""The ``meta`` key of where the server listens (``http://HOST:PORT``)."""
TOKEN_ENV = "CRONLAPSE_TOKEN"
"""The environment variable that holds the bearer token, when it is not in its file."""


def token_path(db_url: str) -> Path:
    """The token file of the service on ``db_url``: next to an SQLite database
    (``cronlapse.db.token``), else ``$XDG_CONFIG_HOME/cronlapse/token``."""
    from cronlapse.service.store.sql.urls import sqlite_file

    database = sqlite_file(db_url)
    if database is not None:
        return Path(database + ".token")
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "cronlapse" / "token"


def shown(url: str) -> str:
    """``url`` as it may be printed: without its password."""
    from cronlapse.service.store.sql.urls import shown as shown_url

    return shown_url(url)


def short_name(url: str) -> str:
    """The database as a title names it: an SQLite file's name, else the URL without its
    password."""
    from cronlapse.service.store.sql.urls import sqlite_file

    database = sqlite_file(url)
    return shown(url) if database is None else database.rsplit("/", 1)[-1]


def backend(url: str) -> str:
    """``sqlite`` or ``postgresql``: the backend of a URL cronlapse runs on;
    :class:`~cronlapse.service.store.errors.UnsupportedDatabase` for another,
    :class:`~cronlapse.service.store.errors.StoreFailure` for one that does not parse."""
    from cronlapse.service.store.sql.failures import translated
    from cronlapse.service.store.sql.urls import database_url

    return translated(database_url)(url).get_backend_name()
