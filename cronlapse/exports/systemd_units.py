"""A fleet written as systemd units: a ``.timer`` and the ``.service`` it starts per job, what
``cronlapse import`` reads back as the same jobs.

A job imported from a timer goes back as the files it was read from (the timer, its service or
the template it instantiates, their drop-ins), as written, when nothing the import read from them
changed. When the schedule changed, the timer's triggers are written anew in its ``[Timer]``
section (its other settings kept, ``RandomizedDelaySec=`` left out: the delay drawn at import is
in the schedule now) and its drop-ins are left out, as they may set triggers; a changed command
or limit is set in the service (``ExecStart=``, ``TimeoutStartSec=``). Other jobs get a timer and a
``Type=oneshot`` service of their own. A cron expression is written as the calendar event that
fires at the same times (systemd.time(7)), which needs the two day fields not to be both
restricted: systemd fires where both match, cron where either does (or both, when one starts
with ``*``), and an import reads such an event back only for the n-th weekday of a month.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import PurePath

from cronlapse.exports.fleet_jobs import FleetJob, NotExportable, ScheduleParts, schedule_parts
from engine.model.records import CatchUp

FIELDS = ("schedule", "timeout", "catch_up", "payload")
"""The job's fields a timer and its service hold."""
_TRIGGERS = frozenset(
    {"OnCalendar", "OnBootSec", "OnStartupSec", "OnActiveSec", "OnUnitActiveSec"}
    | {"OnUnitInactiveSec", "RandomizedDelaySec", "Persistent"}
)
_SETTING = re.compile(r"\s*([A-Za-z0-9_-]+)\s*=")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_SYSTEMD_WEEKDAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")


def unit_files(job: FleetJob) -> dict[str, str]:
    """``job``'s unit files by name (with drop-in directories); :class:`NotExportable` if its
    schedule is not a timer's."""
    parts = schedule_parts(job.spec.schedule)
    triggers = _triggers(parts)
    source = job.source_of("systemd")
    if source is None:
        return _canonical(job, triggers)
    files: dict[str, str] = json.loads(source["files"])
    changed = job.changed(*FIELDS)
    if not changed:
        return files
    timer_name = PurePath(source["file"]).name
    drop_ins = timer_name + ".d/"
    written = {name: text for name, text in files.items() if not name.startswith(drop_ins)}
    if "schedule" in changed or "catch_up" in changed:
        written[timer_name] = _with_triggers(files[timer_name], triggers, job)
    else:
        written = files
    service = next((name for name in files if name.endswith(".service")), None)
    if service is not None and {"payload", "timeout"} & changed:
        written[service] = _with_service(files[service], job)
    return written


def _triggers(parts: ScheduleParts) -> list[str]:
    zone = f" {parts.zone}" if parts.zone else ""
    lines = [f"OnCalendar={calendar(cron)}{zone}" for cron in parts.crons]
    if parts.first is not None:
        lines.append(f"OnBootSec={parts.first}min")
    if parts.every is not None or parts.repeat is not None:
        lines.append(f"OnUnitActiveSec={parts.every or parts.repeat}min")
    return lines


def _canonical(job: FleetJob, triggers: list[str]) -> dict[str, str]:
    name = job.job_id
    persistent = ["Persistent=true"] if job.spec.catch_up is CatchUp.LATEST else []
    timer = [
        "[Unit]",
        f"Description=cronlapse job {name}",
        "",
        "[Timer]",
        *triggers,
        *persistent,
        "",
        "[Install]",
        "WantedBy=timers.target",
    ]
    service = ["[Unit]", f"Description={name}", "", "[Service]", "Type=oneshot"]
    service += [f"ExecStart={_exec_start(job)}"]
    if job.spec.timeout is not None:
        service.append(f"TimeoutStartSec={job.spec.timeout}min")
    return {f"{name}.timer": "\n".join(timer) + "\n", f"{name}.service": "\n".join(service) + "\n"}


def _exec_start(job: FleetJob) -> str:
    """The payload as a command: as it is when it starts with a path, else run by a shell."""
    command = job.spec.payload if job.spec.payload is not None else job.job_id
    return command if command.startswith("/") else f"/bin/sh -c {shlex.quote(command)}"


def _with_triggers(text: str, triggers: list[str], job: FleetJob) -> str:
    """The timer's text with its ``[Timer]`` triggers (and ``Persistent=``) written anew."""
    persistent = ["Persistent=true"] if job.spec.catch_up is CatchUp.LATEST else []
    out: list[str] = []
    section = None
    for line in text.split("\n"):
        header = line.strip()
        if header.startswith("[") and header.endswith("]"):
            section = header
            out.append(line)
            if section == "[Timer]":
                out += triggers + persistent
            continue
        setting = _SETTING.match(line)
        if section == "[Timer]" and setting is not None and setting.group(1) in _TRIGGERS:
            continue
        out.append(line)
    return "\n".join(out)


def _with_service(text: str, job: FleetJob) -> str:
    """The service's text with ``ExecStart=`` and ``TimeoutStartSec=`` set from the job."""
    out: list[str] = []
    section = None
    for line in text.split("\n"):
        header = line.strip()
        setting = _SETTING.match(line)
        if header.startswith("[") and header.endswith("]"):
            section = header
            out.append(line)
            if section == "[Service]":
                out.append(f"ExecStart={_exec_start(job)}")
                if job.spec.timeout is not None:
                    out.append(f"TimeoutStartSec={job.spec.timeout}min")
            continue
        keys = ("ExecStart", "TimeoutStartSec", "TimeoutSec")
        if section == "[Service]" and setting is not None and setting.group(1) in keys:
            continue
        out.append(line)
    return "\n".join(out)


def calendar(cron: str) -> str:
    """The systemd calendar event that fires where the cron expression ``cron`` does."""
    minute, hour, day, month, weekday = cron.split()
    if any(mark in day + weekday for mark in "LW#"):
        raise NotExportable(f"{cron!r}: L, W and # are not written as calendar events yet")
    days = _field(weekday, 0, 7, _WEEKDAYS)
    if days is not None and _field(day, 1, 31, ()) is not None:
        raise NotExportable(
            f"{cron!r}: a day of the month and a weekday both restricted: systemd fires where "
            "both match, cron by its own rule (where either does, or both when one starts "
            "with *), and only the n-th weekday of a month reads back as cron"
        )
    event = ""
    if days is not None:
        week = sorted(7 if value == 0 else value for value in days)  # Monday first
        event = _shown(week, lambda value: _SYSTEMD_WEEKDAYS[value % 7]) + " "
    date = f"*-{_shown(_field(month, 1, 12, _MONTHS))}-{_shown(_field(day, 1, 31, ()))}"
    time = f"{_shown(_field(hour, 0, 23, ()))}:{_shown(_field(minute, 0, 59, ()))}:00"
    return f"{event}{date} {time}"


def _field(text: str, low: int, high: int, names: tuple[str, ...]) -> list[int] | None:
    """The values of a cron field, None for every value (``*``)."""
    values: set[int] = set()
    for item in text.lower().split(","):
        spread, _, step_text = item.partition("/")
        step = int(step_text) if step_text else 1
        if spread == "*":
            first, last = low, high
        else:
            start, _, end = spread.partition("-")
            first = _number(start, names, low)
            last = _number(end, names, low) if end else (high if step_text else first)
        values.update(range(first, last + 1, step))
    if names is _WEEKDAYS:
        values = {value % 7 for value in values}
        return None if values == set(range(7)) else sorted(values)
    return None if values == set(range(low, high + 1)) else sorted(values)


def _number(text: str, names: tuple[str, ...], low: int) -> int:
    if text in names:
        return names.index(text) + (low if names is _MONTHS else 0)
    return int(text)


def _shown(values: list[int] | None, name: Callable[[int], str] = "{:02d}".format) -> str:
    """Values as systemd lists them: ``*``, ``05``, ``01,15``, runs of three or more as
    ``08..18`` (``Mon..Fri``), each value written by ``name``."""
    if values is None:
        return "*"
    runs: list[list[int]] = []
    for value in values:
        if runs and value == runs[-1][-1] + 1:
            runs[-1].append(value)
        else:
            runs.append([value])
    return ",".join(
        f"{name(run[0])}..{name(run[-1])}" if len(run) >= 3 else ",".join(map(name, run))
        for run in runs
    )
