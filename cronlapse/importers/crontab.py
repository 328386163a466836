"""Crontab files as scheduled jobs: user crontabs, ``/etc/crontab`` and ``/etc/cron.d`` files.

What crontab(5) says a line is, and what cronlapse makes of it:

- blank lines and ``#`` comments; a comment directly above an entry describes it and is kept;
- ``NAME=value`` environment lines, NAME being anything without blanks or ``=`` (Vixie cron's
  ``load_env``: ``MY-VAR=1`` is one). ``CRON_TZ=zone`` sets the time zone of the entries after
  it (cronie's rule); the entries before any run in cron's own zone, the machine's. ``TZ=`` and
  the others are the commands' environment, recorded but not used for the schedule (cron fires
  by its own zone whatever a command's ``TZ`` is);
- an entry: five time fields (or a nickname such as ``@daily``), then, in a system crontab, the
  user to run as, then the command (the rest of the line). ``@reboot`` fires at the daemon's
  start, which no schedule models: such entries are reported, not imported. Nor is an entry
  whose fields name no date there is (``0 0 31 2 *``): cron takes it and never runs it, and
  the fleet lists it as not imported (:mod:`cronlapse.importers.fleet`).

Every problem names the file, the line and the column, and what was expected; a file with
problems imports nothing. A directory is read as cron(8) reads ``/etc/cron.d``: its files in
name order, without those whose names cron skips (:func:`crontab_files`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from cronlapse.importers.files import ImportProblems, at, read_text
from engine.model.problems import Problem
from engine.schedules.calendar import NeverFires, ScheduleError, parse_schedule_expression
from engine.schedules.clock import ClockError, parse_zone

_ENVIRONMENT = re.compile(r"\s*([^\s=]+)\s*=\s*(.*?)\s*$")
"""Vixie cron's ``load_env``, tried on every line before it is read as an entry: a name without
blanks or ``=``, then ``=``. No entry matches: its first field holds no ``=`` and is followed by
another field."""
_CRON_D_NAME = re.compile(r"[A-Za-z0-9_-]+")
"""The /etc/cron.d file names Debian's cron(8) reads (run-parts' rule); cronie reads more but
also skips names ending in ``~``, ``.rpmsave``, ``.rpmorig`` or ``.rpmnew``, all outside it."""
_SKIPPED_NAME = (
    "cron does not read it: cron.d file names are letters, digits, _ and - only (Debian "
    "cron(8); cronie skips names ending in ~, .rpmsave, .rpmorig and .rpmnew)"
)
_TIME_FIELDS = 5
_PERCENT = re.compile(r"(?<!\\)%")


@dataclass(frozen=True, slots=True)
class CrontabEntry:
    """One schedulable line."""

    line: int
    cron: str
    """Five fields (a nickname resolved)."""
    command: str
    timezone: str | None
    """The ``CRON_TZ`` in force, if any."""
    user: str | None
    """A system crontab's user field."""
    description: str | None
    """The comment lines directly above, joined."""
    source: str
    """The line as written."""
    text: str = ""
    """The file's lines from the entry before this one (comments, environment lines, lines not
    imported) to this one, as written: what ``cronlapse export`` writes back."""

    @property
    def shell_text(self) -> str:
        """What cron gives the shell to run (crontab(5)): the command up to its first ``%``
        not escaped, each ``\\%`` a ``%``; the rest is the command's standard input."""
        return _PERCENT.split(self.command, maxsplit=1)[0].replace("\\%", "%")


@dataclass(slots=True)
class Crontab:
    path: str
    system: bool
    entries: list[CrontabEntry] = field(default_factory=list)
    environment: dict[str, str] = field(default_factory=dict)
    """The last value of each environment line (``CRON_TZ`` included)."""
    skipped: list[str] = field(default_factory=list)
    """``file:line: why`` for lines that cannot be imported (``@reboot``)."""
    notes: list[str] = field(default_factory=list)
    """How it was read, for the scenario's header (a system crontab known by its user field)."""
    after: str = ""
    """The lines after the last entry, as written, each ending in a line break."""


def is_system_crontab(path: str) -> bool:
    """``/etc/crontab`` and the files of ``/etc/cron.d`` have a user field."""
    resolved = Path(path)
    in_etc = resolved.name == "crontab" and resolved.parent.name == "etc"
    return in_etc or resolved.parent.name == "cron.d"


def crontab_files(paths: list[str]) -> tuple[list[str], list[str]]:
    """The crontabs to read for ``paths`` (a directory stands for its files, in name order),
    and ``file: why`` for the files of a directory or of a ``cron.d`` directory that cron(8)
    does not read (:data:`_CRON_D_NAME`): ``/etc/cron.d/*`` names ``backup~`` too."""
    files: list[str] = []
    skipped: list[str] = []
    for path in paths:
        given = Path(path)
        if given.is_dir():
            listed = [str(child) for child in sorted(given.iterdir()) if child.is_file()]
        else:
            listed = [path]
        for file in listed:
            in_directory = given.is_dir() or Path(file).parent.name == "cron.d"
            if in_directory and not _CRON_D_NAME.fullmatch(Path(file).name):
                skipped.append(f"{file}: {_SKIPPED_NAME}")
            else:
                files.append(file)
    return files, skipped


def read_crontab(path: str, system: bool | None = None) -> Crontab:
    """Read and check a crontab file; ``system`` (a user field), when None, is known from its
    path or its lines (:func:`parse_crontab`)."""
    text = read_text(path, "crontab")
    return parse_crontab(text, path, True if system is None and is_system_crontab(path) else system)


SYSTEM_ACCOUNTS = frozenset(
    {"root", "daemon", "nobody", "www-data", "wwwrun", "apache", "http", "_www", "postgres"}
    | {"mysql", "nginx"}
)
"""Accounts a system crontab's lines run as that no one runs as a command with a path or a word
after it (``mysql -e ...`` is a command: an option follows): one of them after the time fields
says the file has a user field."""
_USER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\$?")
"""What useradd(8) takes for a name (a trailing ``$`` for machine accounts)."""


def parse_crontab(text: str, path: str = "<crontab>", system: bool | None = False) -> Crontab:
    """The entries of a crontab's text (see the module docstring); ``system`` None: a user
    field if its lines have one (:func:`_with_user_field`)."""
    if system is None:
        return _with_user_field(_parse(text, path, system=False), text)
    return _parse(text, path, system)


def _with_user_field(crontab: Crontab, text: str) -> Crontab:
    """``crontab``, read as a user crontab, or read again as a system crontab if its lines
    name an account of :data:`SYSTEM_ACCOUNTS` where the command would start, and every line
    has a word there that can be a user name; if some cannot, the lines cannot be told
    apart, and the file is refused with the two options that say which it is."""
    accounts = [entry for entry in crontab.entries if _names_an_account(entry.command)]
    if not accounts:
        return crontab
    first = accounts[0]
    word = first.command.split()[0]
    without = next((entry for entry in crontab.entries if not _may_have_user(entry.command)), None)
    if without is not None:
        message = (
            f"{word!r} looks like a system crontab's user field (as in /etc/crontab and "
            f"/etc/cron.d files), but line {without.line} has none: pass --system if every line "
            f"has a user field, or --no-system to read {word!r} as the command"
        )
        column = len(first.source) - len(first.command) + 1
        raise ImportProblems([at(crontab.path, first.line, column, message)])
    system = _parse(text, crontab.path, system=True)
    system.notes.append(
        f"{crontab.path}: read as a system crontab, with a user field: line {first.line} runs "
        f"as {word!r}; --no-system reads the field as the command"
    )
    return system


def _names_an_account(command: str) -> bool:
    words = command.split()
    return len(words) > 1 and words[0] in SYSTEM_ACCOUNTS and not words[1].startswith("-")


def _may_have_user(command: str) -> bool:
    words = command.split()
    return len(words) > 1 and bool(_USER_NAME.fullmatch(words[0]))


def _parse(text: str, path: str, system: bool) -> Crontab:
    crontab = Crontab(path, system)
    problems: list[Problem] = []
    zone: str | None = None
    comments: list[str] = []
    written: list[str] = []
    """The lines since the last entry, as written."""
    for number, raw in enumerate(text.splitlines(), start=1):
        written.append(raw)
        line = raw.strip()
        if not line:
            comments = []
            continue
        if line.startswith("#"):
            comments.append(line.lstrip("#").strip())
            continue
        description, comments = _description(comments), []
        variable = _ENVIRONMENT.match(raw)
        if variable:
            name, value = variable.group(1), _unquote(variable.group(2))
            crontab.environment[name] = value
            if name == "CRON_TZ":
                zone = _checked_zone(value, path, number, raw, problems)
            continue
        entry = _entry(raw, number, path, system, zone, description, problems, crontab)
        if entry is not None:
            crontab.entries.append(replace(entry, text="\n".join(written)))
            written = []
    crontab.after = "".join(f"{line}\n" for line in written)
    if problems:
        raise ImportProblems(problems)
    return crontab


def _description(comments: list[str]) -> str | None:
    """The prose of the comment lines above an entry (at most its last three lines): lines of
    field diagrams or commented-out entries start with something other than a letter."""
    prose = [comment for comment in comments if comment[:1].isalpha()]
    return " ".join(prose[-3:]) or None


def _entry(
    raw: str,
    number: int,
    path: str,
    system: bool,
    zone: str | None,
    description: str | None,
    problems: list[Problem],
    crontab: Crontab,
) -> CrontabEntry | None:
    tokens = raw.split()
    where = f"{path}:{number}"
    if tokens[0].lower() == "@reboot":
        crontab.skipped.append(f"{where}: @reboot runs when cron starts; no schedule models it")
        return None
    time_fields = 1 if tokens[0].startswith("@") else _TIME_FIELDS
    needed = time_fields + (2 if system else 1)
    if len(tokens) < needed:
        what = "the user and the command" if system else "a command"
        fields = f"{time_fields} time field{'s' if time_fields > 1 else ''}"
        problems.append(at(path, number, len(raw) + 1, f"expected {fields} then {what}"))
        return None
    expression = " ".join(tokens[:time_fields])
    try:
        cron = parse_schedule_expression(expression)
    except NeverFires as never:
        cron = never.expression  # cron runs it never: the fleet lists it as not imported
    except ScheduleError as error:
        column = _column(raw, tokens, _field_index(error.field))
        problems.append(at(path, number, column, str(error)))
        return None
    user = tokens[time_fields] if system else None
    command = _rest(raw, needed - 1)  # every token before the command
    return CrontabEntry(number, cron, command, zone, user, description, raw.strip())


def _checked_zone(
    value: str, path: str, number: int, raw: str, problems: list[Problem]
) -> str | None:
    try:
        parse_zone(value, "CRON_TZ")
    except ClockError as error:
        problems.append(at(path, number, raw.index("=") + 2, str(error)))
        return None
    return value


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


_FIELD_NAMES = ("minute", "hour", "day-of-month", "month", "day-of-week")


def _field_index(name: str) -> int:
    return _FIELD_NAMES.index(name) if name in _FIELD_NAMES else 0


def _column(raw: str, tokens: list[str], index: int) -> int:
    """The 1-based column where token ``index`` of ``raw`` starts."""
    position = 0
    for token in tokens[:index]:
        position = raw.index(token, position) + len(token)
    return raw.index(tokens[index], position) + 1


def _rest(raw: str, skip: int) -> str:
    """The text of ``raw`` after its first ``skip`` whitespace-separated tokens, as written."""
    parts = raw.strip().split(None, skip)
    return parts[skip] if len(parts) > skip else ""
