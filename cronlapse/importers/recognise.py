"""Telling a crontab, a Kubernetes manifest or a systemd timer from a scenario, by name and content.

``cronlapse check``, ``run`` and ``tui`` open such files directly: they import them on the fly
with ``cronlapse import``'s defaults (:class:`~cronlapse.importers.fleet.ImportOptions`). The rules:

- ``NAME.timer``: a systemd timer;
- ``crontab``, ``NAME.crontab``, ``NAME.cron``, or a file of a ``cron.d`` directory: a crontab;
- a ``.yaml``/``.yml`` file with a top-level ``apiVersion:`` or ``kind:`` line: a Kubernetes
  manifest (a scenario has neither key at the top; ``kind:`` of a backoff is indented);
- another file whose first line that is not blank or a comment is a crontab entry (five time
  fields or a nickname, then a command) or an environment line, or that has a ``[Timer]`` section:
  a crontab or a timer.

Everything else (``.txt`` scripts, scenarios, files that cannot be read) is left to the scenario
loader, which says what is wrong with it.
"""

from __future__ import annotations

import re
from pathlib import Path

from cronlapse.importers.files import MAX_BYTES
from cronlapse.importers.fleet import ImportedFleet, ImportOptions, import_fleet

_MANIFEST_KEY = re.compile(r"^(?:apiVersion|kind)\s*:", re.MULTILINE)
_TIMER_SECTION = re.compile(r"^\s*\[Timer\]\s*$", re.MULTILINE)
_CRON_FIELD = r"[0-9*][0-9A-Za-z*/,-]*"
_CRONTAB_LINE = re.compile(
    rf"(?:@[a-z]+|{_CRON_FIELD}(?:\s+{_CRON_FIELD}){{4}})\s+\S.*|[A-Za-z_][A-Za-z0-9_]*\s*=.*"
)
_YAML_SUFFIXES = (".yaml", ".yml")
_SCRIPT_SUFFIXES = (".txt",)


def recognise(path: str) -> str | None:
    """``crontab``, ``k8s`` or ``systemd`` for a file that is one, else None."""
    file = Path(path)
    name, suffix = file.name, file.suffix.lower()
    if suffix == ".timer":
        return "systemd"
    if name == "crontab" or suffix in (".crontab", ".cron") or file.parent.name == "cron.d":
        return "crontab"
    if suffix in _SCRIPT_SUFFIXES:
        return None
    text = _head(file)
    if text is None:
        return None
    if suffix in _YAML_SUFFIXES:
        return "k8s" if _MANIFEST_KEY.search(text) else None
    if _TIMER_SECTION.search(text):
        return "systemd"
    first = next((line.strip() for line in text.splitlines() if _is_content(line)), "")
    return "crontab" if _CRONTAB_LINE.fullmatch(first) else None


def import_recognised(path: str, options: ImportOptions | None = None) -> ImportedFleet | None:
    """The imported scenario of a file :func:`recognise` knows, None for other files; raises
    :class:`~cronlapse.importers.files.ImportProblems` when it is one but has problems."""
    kind = recognise(path)
    if kind is None:
        return None
    return import_fleet(kind, [path], options or ImportOptions())


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _head(file: Path) -> str | None:
    """The start of the file as text, None if it cannot be read or is binary."""
    try:
        with file.open("rb") as handle:
            data = handle.read(min(MAX_BYTES, 65536))
    except OSError:
        return None
    if b"\x00" in data:
        return None
    return data.decode("utf-8", errors="replace")
