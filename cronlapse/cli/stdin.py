"""``-`` as a command's FILE: standard input, named ``<stdin>`` in messages.

``cronlapse script -`` reads a script from it, and every command that reads its scenario once
(``run``, ``check``, ``export``, ``explain run`` and ``missed``, ``backfill``, ``compare``,
``sweep``) a YAML scenario, held to a file's rules: the same size limit, the same UTF-8 check
and the same ``cannot read`` wording. ``tui`` refuses it: the dashboard reloads its file.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from engine.scenario.yaml_source import MAX_BYTES, limited_text, read_text, unreadable

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


def scenario_text(path: str) -> tuple[str, str]:
    """The scenario text at ``path`` and its name in messages: standard input's, named
    :data:`STDIN_NAME`, for ``-``. Raises :class:`~engine.scenario.ScenarioInvalid` for text
    that cannot be read, is too large or is not UTF-8."""
    if path != STDIN:
        return read_text(path), path
    try:
        data = stdin_bytes(MAX_BYTES + 1)
    except OSError as error:
        raise unreadable(STDIN_NAME, error) from None
    return limited_text(data, STDIN_NAME, "standard input"), STDIN_NAME


def read_once(command: str, paths: Sequence[str], err: TextIO) -> bool:
    """Whether ``-`` is among ``paths`` at most once; else, said as a usage error: a second
    read of standard input finds it empty, and would call the scenario empty."""
    if paths.count(STDIN) <= 1:
        return True
    err.write(
        f"cronlapse {command}: - (standard input) may be given once: it can be read only once\n"
    )
    return False
