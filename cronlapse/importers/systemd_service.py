"""The ``.service`` a systemd timer starts: what it says about the job the timer is imported as.

Apart from :mod:`cronlapse.importers.systemd` (the ``.timer``'s triggers) because the service is
another unit with its own keys: which unit ``Unit=`` names (or the timer's namesake, or for an
instance its template, with ``%i`` replaced), its ``Description=``, ``ExecStart=`` and ``User=``,
and the limit on a run that its ``Type=`` obeys (systemd.service(5)), read as the timeout.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

from cronlapse.importers.drop_ins import (
    find_drop_ins,
    keep_files,
    note_drop_ins,
    read_drop_ins,
    unit_template,
)
from cronlapse.importers.files import ImportProblems, read_text
from cronlapse.importers.unit_file import Setting, parse_timespan, parse_unit, span_problem

if TYPE_CHECKING:
    from cronlapse.importers.systemd import Timer

_SERVICE_KEYS = (
    "Description",
    "ExecStart",
    "User",
    "Type",
    "RuntimeMaxSec",
    "TimeoutStartSec",
    "TimeoutSec",
)
_UNIT_NAME = re.compile(r"[A-Za-z0-9:_.\\@-]+\.[a-z]+")
"""systemd.unit(5)'s unit names: a name of those characters and a type suffix, no directory."""


def add_service(timer: Timer, settings: list[Setting]) -> None:
    """Fill in what the activated service says, if it (or its template) is next to the timer."""
    units = [s for s in settings if s.section == "Timer" and s.key == "Unit"]
    unit = units[-1] if units else None
    if unit is not None and unit.value and not _UNIT_NAME.fullmatch(unit.value):
        message = f"expected a unit name such as backup.service, got {unit.value!r}"
        raise ImportProblems([unit.problem(message)])
    path = Path(timer.path).with_name(
        unit.value if unit and unit.value else f"{timer.name}.service"
    )
    template = unit_template(path)
    source = path if path.is_file() or template is None or not template.is_file() else template
    if not source.is_file():
        also = f" nor its template {template.name}" if template is not None else ""
        timer.notes.append(
            f"{path.name}: not found next to the timer{also}; the job has no command"
        )
        return
    drop_ins = find_drop_ins(path)
    text = read_text(str(source), "systemd service")
    service = parse_unit(text, str(source))
    timer.files[source.name] = text
    keep_files(timer.files, source.parent, drop_ins)
    service += read_drop_ins(drop_ins, "systemd service drop-in")
    note_drop_ins(timer.notes, path, drop_ins)
    values = {s.key: s for s in service if s.section in ("Unit", "Service")}
    if "Description" in values:
        timer.notes.insert(0, f"{path.name}: {values['Description'].value}")
    if "ExecStart" in values:
        command = values["ExecStart"].value.lstrip("-@:+!")
        if source == template:
            # systemd.unit(5)'s specifiers: %i is the instance name, %I it unescaped.
            instance = path.name.partition("@")[2].rpartition(".")[0]
            command = command.replace("%i", instance).replace("%I", instance)
            timer.notes.append(f"{path.name}: an instance of {template.name}")
        timer.command = command
    if "User" in values:
        timer.user = values["User"].value
    _add_limit(timer, path.name, service)
    others = sorted({s.key for s in service if s.key not in _SERVICE_KEYS})
    if others:
        listed = ", ".join(f"{key}=" for key in others)
        timer.notes.append(f"{path.name}: {listed}: not modelled")


def _add_limit(timer: Timer, name: str, service: list[Setting]) -> None:
    """The timeout: the limit on a run its ``Type=`` obeys. systemd.service(5): a
    ``Type=oneshot`` service ends when its start-up does, so ``TimeoutStartSec=`` (or
    ``TimeoutSec=``, which sets it) limits its run and ``RuntimeMaxSec=`` has no effect; for the
    other types start-up is over once the service runs, and ``RuntimeMaxSec=`` limits the run.
    ``infinity`` is no limit."""
    values = {s.key: s for s in service if s.section == "Service"}
    kind = values["Type"].value if "Type" in values else "simple"
    starts = [
        s for s in service if s.section == "Service" and s.key in ("TimeoutStartSec", "TimeoutSec")
    ]
    start = starts[-1] if starts else None
    runtime = values.get("RuntimeMaxSec")
    limit, unused = (start, runtime) if kind == "oneshot" else (runtime, start)
    if unused is not None and kind == "oneshot":
        timer.notes.append(
            f"{name}: {unused.key}={unused.value}: no effect on Type=oneshot (systemd.service(5)); "
            "TimeoutStartSec= limits its run"
        )
    elif unused is not None:
        timer.notes.append(
            f"{name}: {unused.key}={unused.value}: the limit of a {kind} service's start-up, "
            "which a run does not model; RuntimeMaxSec= limits its run"
        )
    if limit is None or limit.value == "infinity":
        return
    seconds = parse_timespan(limit.value)
    problem = span_problem(seconds)
    if seconds is None or problem is not None:
        raise ImportProblems([limit.problem(str(problem))])
    timer.timeout_minutes = max(1, math.ceil(seconds / 60))
