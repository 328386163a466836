"""``-`` as a source: standard input, named ``<stdin>`` in messages.

``cronlapse script -`` reads a script from it, and every command that reads its scenario once
(``run``, ``check``, ``export``, ``explain run`` and ``missed``, ``backfill``, ``compare``,
``sweep``) a YAML scenario, held to a file's rules: the same size limit, the same UTF-8 check
and the same ``cannot read`` wording. The dashboard never reads it: it reloads its file.
"""

from __future__ import annotations

import errno
import os
import sys

from engine.scenario.yaml_source import MAX_BYTES, limited_text, unreadable

STDIN = "-"
"""The FILE that names standard input, as ``cat -`` does."""
STDIN_NAME = "<stdin>"
"""How messages name standard input (``FILE:LINE:COLUMN`` has no file name to give)."""


def stdin_bytes(limit: int = -1) -> bytes:
    """At most ``limit`` bytes of standard input (all of it by default), not decoded by the
    locale's encoding. Started with it closed (``<&-``), Python has no ``sys.stdin``: an input
    that cannot be read, said as for a file, rather than an AttributeError."""
    if sys.stdin is None:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))
    return sys.stdin.buffer.read(limit)


def stdin_text() -> str:
    """The scenario text on standard input; :class:`~engine.scenario.ScenarioInvalid` for text
    that cannot be read, is too large or is not UTF-8, worded as for a file."""
    try:
        data = stdin_bytes(MAX_BYTES + 1)
    except OSError as error:
        raise unreadable(STDIN_NAME, error) from None
    return limited_text(data, STDIN_NAME, "standard input")
