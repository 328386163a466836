"""Telling what a file is, by name and content: a seed 001 script, a crontab, a Kubernetes
manifest, a systemd timer, or a scenario. Each rule is written here once, for every front end.

The rules, in order:

- ``NAME.timer``: a systemd timer;
- ``crontab``, ``NAME.crontab``, ``NAME.cron``, or a file of a ``cron.d`` directory: a crontab;
- ``NAME.txt``: a seed 001 script;
- a ``.yaml``/``.yml`` file with a top-level ``apiVersion:`` or ``kind:`` line: a Kubernetes
  manifest (a scenario has neither key at the top; ``kind:`` of a backoff is indented);
- another file whose first line that is not blank or a comment is a crontab entry (five time
  fields or a nickname, then a command) or an environment line, or that has a ``[Timer]`` section:
  a crontab or a timer.

Everything else (scenarios, files that cannot be read) is a scenario: its loader says what is
wrong with it.
"""

from __future__ import annotations

import re
from enum import Enum
from pathlib import Path

from cronlapse.importers.files import MAX_BYTES


class SourceKind(Enum):
    """What a source is; an imported kind's value is ``cronlapse import``'s name for it."""

    SCENARIO = "scenario"
    SCRIPT = "script"
    CRONTAB = "crontab"
    KUBERNETES = "k8s"
    SYSTEMD = "systemd"

    @property
    def imported(self) -> bool:
        """Whether it is another scheduler's file, opened as the scenario its importer writes."""
        return self in _IMPORTED


_IMPORTED = frozenset({SourceKind.CRONTAB, SourceKind.KUBERNETES, SourceKind.SYSTEMD})

_MANIFEST_KEY = re.compile(r"^(?:apiVersion|kind)\s*:", re.MULTILINE)
_TIMER_SECTION = re.compile(r"^\s*\[Timer\]\s*$", re.MULTILINE)
_CRON_FIELD = r"[0-9*][0-9A-Za-z*/,-]*"
_CRONTAB_LINE = re.compile(
    rf"(?:@[a-z]+|{_CRON_FIELD}(?:\s+{_CRON_FIELD}){{4}})\s+\S.*|[A-Za-z_][A-Za-z0-9_]*\s*=.*"
)
_YAML_SUFFIXES = (".yaml", ".yml")
_SCRIPT_SUFFIX = ".txt"


def recognise(path: str) -> SourceKind:
    """What the file at ``path`` is (see the module docstring for the rules)."""
    file = Path(path)
    by_name = _by_name(file)
    if by_name is not None:
        return by_name
    text = _head(file)
    if text is None:
        return SourceKind.SCENARIO
    if file.suffix.lower() in _YAML_SUFFIXES:
        return SourceKind.KUBERNETES if _MANIFEST_KEY.search(text) else SourceKind.SCENARIO
    if _TIMER_SECTION.search(text):
        return SourceKind.SYSTEMD
    first = next((line.strip() for line in text.splitlines() if _is_content(line)), "")
    return SourceKind.CRONTAB if _CRONTAB_LINE.fullmatch(first) else SourceKind.SCENARIO


def is_script(path: str) -> bool:
    """Whether ``path`` names a seed 001 script, known without reading it."""
    return _by_name(Path(path)) is SourceKind.SCRIPT


def _by_name(file: Path) -> SourceKind | None:
    name, suffix = file.name, file.suffix.lower()
    if suffix == ".timer":
        return SourceKind.SYSTEMD
    if name == "crontab" or suffix in (".crontab", ".cron") or file.parent.name == "cron.d":
        return SourceKind.CRONTAB
    if suffix == _SCRIPT_SUFFIX:
        return SourceKind.SCRIPT
    return None


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
