"""systemd ``.timer`` units as scheduled jobs, with the ``.service`` each one starts.

What systemd.timer(5) says a timer is, and what cronlapse makes of it (each setting read but not
modelled is noted by name, never dropped silently):

- ``OnCalendar=``: a calendar event (:mod:`engine.importers.calendar_event`), written as cron;
  several lines are several schedules (one job each), and an empty one clears those before it;
- ``OnBootSec=``, ``OnStartupSec=``, ``OnActiveSec=``: the first run, that long after tick 0 (the
  boot); ``OnUnitActiveSec=`` repeats it that long after each start (``every``), and
  ``OnUnitInactiveSec=`` that long after each end (``every`` = the span + the run's duration).
  A timer with only ``OnUnit*Sec=`` never starts a unit that was never active: not imported;
- ``Persistent=true``: ``catch_up: latest`` (one run for the elapses missed while stopped);
- ``RandomizedDelaySec=``: one delay per timer, drawn from the seed and the timer's name (as
  ``FixedRandomDelay=yes`` does), added to its schedule in whole minutes;
- ``AccuracySec=``: noted (cronlapse starts on the minute; systemd anywhere in the window);
- ``Unit=`` (else the service of the same name, next to the timer): its ``Description=`` (a
  comment), ``ExecStart=`` (the payload), ``User=`` and ``RuntimeMaxSec=`` (the timeout).
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from engine.clock import ClockError, parse_zone
from engine.importers.calendar_event import EVENT_FORM, CalendarError, parse_calendar_event
from engine.importers.files import ImportProblems, read_text
from engine.importers.unit_file import Setting, parse_boolean, parse_timespan, parse_unit

FIRST_KEYS = ("OnBootSec", "OnStartupSec", "OnActiveSec")
REPEAT_KEYS = ("OnUnitActiveSec", "OnUnitInactiveSec")
_NOTED_KEYS = {
    "WakeSystem": "waking a suspended machine is not modelled",
    "RemainAfterElapse": "whether an elapsed timer stays loaded; no effect on runs",
    "OnClockChange": "clock jumps are not modelled",
    "OnTimezoneChange": "zone changes are not modelled",
    "FixedRandomDelay": "cronlapse always draws one delay per timer (as if yes)",
}
_SERVICE_KEYS = ("Description", "ExecStart", "User", "RuntimeMaxSec")
_UNIT_NAME = re.compile(r"[A-Za-z0-9:_.\\@-]+\.[a-z]+")
"""systemd.unit(5)'s unit names: a name of those characters and a type suffix, no directory."""


@dataclass(frozen=True, slots=True)
class TimerSchedule:
    line: int
    source: str
    """The setting as written (``OnCalendar=Mon..Fri 10:00``)."""
    cron: str | None = None
    timezone: str | None = None
    every: int | None = None
    """Minutes between runs (monotonic timers)."""
    first: int | None = None
    """Minute of the first run (monotonic timers)."""


@dataclass(slots=True)
class Timer:
    name: str
    path: str
    schedules: list[TimerSchedule] = field(default_factory=list)
    persistent: bool = False
    description: str | None = None
    command: str | None = None
    user: str | None = None
    timeout_minutes: int | None = None
    notes: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def read_timer(path: str, seed: int = 0, duration: int = 1) -> Timer:
    """Read a ``.timer`` and the service it starts; ``seed`` draws ``RandomizedDelaySec=``,
    ``duration`` (minutes a run takes) spaces ``OnUnitInactiveSec=`` runs."""
    text = read_text(path, "systemd timer")
    timer = parse_timer(text, path, seed, duration)
    _add_service(timer, parse_unit(text, path))
    return timer


def parse_timer(text: str, path: str = "<timer>", seed: int = 0, duration: int = 1) -> Timer:
    """The timer in a ``.timer`` unit's text, without its service (see :func:`read_timer`)."""
    return _Reader(path, seed, duration).timer(parse_unit(text, path))


class _Reader:
    def __init__(self, path: str, seed: int, duration: int) -> None:
        self.path = path
        self.seed = seed
        self.duration = duration
        self.problems: list[str] = []

    def error(self, setting: Setting, message: str, offset: int = 0) -> None:
        self.problems.append(f"{setting.where(self.path, offset)}: {setting.key}=: {message}")

    def timer(self, settings: list[Setting]) -> Timer:
        timer = Timer(Path(self.path).name.removesuffix(".timer"), self.path)
        calendar: list[TimerSchedule] = []
        monotonic: dict[str, tuple[Setting, int]] = {}
        delay: Setting | None = None
        for setting in settings:
            key = setting.key
            if setting.section == "Unit" and key == "Description":
                timer.description = setting.value
            elif setting.section == "Install":
                timer.notes.append(f"[Install] {key}=: how the timer is enabled; no effect on runs")
            elif setting.section != "Timer":
                timer.notes.append(f"[{setting.section}] {key}=: not modelled")
            elif key == "OnCalendar":
                calendar = [] if not setting.value else [*calendar, self.calendar(setting)]
            elif key in FIRST_KEYS + REPEAT_KEYS:
                self.monotonic(setting, monotonic)
            elif key == "Persistent":
                timer.persistent = self.boolean(setting) is True
            elif key == "RandomizedDelaySec":
                delay = setting if self.span(setting) else None
            elif key == "AccuracySec":
                self.accuracy(setting, timer)
            elif key == "Unit":
                continue
            else:
                reason = _NOTED_KEYS.get(key, "unknown to cronlapse (systemd ignores unknown keys)")
                timer.notes.append(f"{key}={setting.value}: {reason}")
        timer.schedules = [s for s in calendar if s.cron is not None]
        self.add_monotonic(timer, monotonic)
        if not timer.schedules and not timer.skipped and not self.problems:
            self.problems.append(
                f"{self.path}:1:1: expected OnCalendar= or OnBootSec=/OnActiveSec= in a [Timer] "
                "section"
            )
        if self.problems:
            raise ImportProblems(self.problems)
        if delay is not None:
            self.add_delay(timer, delay)
        return timer

    def calendar(self, setting: Setting) -> TimerSchedule:
        source = f"OnCalendar={setting.value}"
        try:
            event = parse_calendar_event(setting.value)
            cron = event.cron()
        except CalendarError as error:
            self.error(setting, f"{error}", error.column)
            return TimerSchedule(setting.line, source)
        if event.timezone is not None:
            try:
                parse_zone(event.timezone, "zone")
            except ClockError as error:
                message = str(error).removeprefix("zone: ")
                if setting.value.strip() == event.timezone and "/" not in event.timezone:
                    # A lone word is read as a zone (``OnCalendar=UTC``: midnight there), but
                    # one that names none is no event at all rather than a zone mistyped.
                    message = (
                        f"{event.timezone!r} is not a calendar event: expected {EVENT_FORM}, "
                        "each part optional, such as 'Mon..Fri *-*-* 02:30:00', 'daily' or 'UTC'"
                    )
                self.error(setting, message, setting.value.rfind(event.timezone))
                return TimerSchedule(setting.line, source)
        return TimerSchedule(setting.line, source, cron, event.timezone)

    def monotonic(self, setting: Setting, found: dict[str, tuple[Setting, int]]) -> None:
        if not setting.value:
            found.pop(setting.key, None)
            return
        seconds = self.span(setting)
        if seconds is not None and seconds < 60 and setting.key in REPEAT_KEYS:
            self.error(setting, "shorter than a minute, a scenario's tick: expected 1min or more")
        elif seconds is not None:
            found[setting.key] = (setting, math.ceil(seconds / 60))

    def add_monotonic(self, timer: Timer, found: dict[str, tuple[Setting, int]]) -> None:
        firsts = [found[key] for key in FIRST_KEYS if key in found]
        repeat = next((found[key] for key in REPEAT_KEYS if key in found), None)
        written = " ".join(f"{s.key}={s.value}" for s, _ in firsts + ([repeat] if repeat else []))
        if repeat is not None and not firsts:
            timer.skipped.append(
                f"{self.path}:{repeat[0].line}: {repeat[0].key}= alone never elapses: systemd "
                "counts from the unit's last start, and nothing starts it first"
            )
            return
        if not firsts:
            return
        first_setting, first = min(firsts, key=lambda pair: pair[1])
        if len(firsts) > 1:
            timer.notes.append(f"{written}: the earliest first run ({first} min) is kept")
        every = None
        if repeat is not None:
            every = repeat[1] + (self.duration if repeat[0].key == "OnUnitInactiveSec" else 0)
            if repeat[0].key == "OnUnitInactiveSec":
                timer.notes.append(
                    f"{repeat[0].key}={repeat[0].value}: counted from each run's end, so every "
                    f"{every} min while runs take {self.duration} min"
                )
        timer.schedules.append(TimerSchedule(first_setting.line, written, every=every, first=first))

    def add_delay(self, timer: Timer, setting: Setting) -> None:
        seconds = self.span(setting) or 0.0
        digest = hashlib.sha256(f"{self.seed}/{timer.name}".encode()).digest()
        fraction = int.from_bytes(digest[:8], "big") / 2**64
        minutes = math.ceil(fraction * seconds / 60)
        what = f"RandomizedDelaySec={setting.value}: drawn {minutes} min (seed {self.seed})"
        shifted, moved = [], False
        for schedule in timer.schedules:
            event = (
                None
                if schedule.cron is None
                else parse_calendar_event(schedule.source.removeprefix("OnCalendar="))
            )
            later = None if event is None else event.shifted(minutes)
            if event is not None and later is None:
                timer.notes.append(
                    f"{what}; not yet supported for {schedule.source}: that delay cannot be "
                    "written as one cron expression, so its runs start on time"
                )
                shifted.append(schedule)
            else:
                shifted.append(_later(schedule, minutes, later and later.cron()))
                moved = True
        if moved:
            timer.notes.append(f"{what}, added to its run times")
        timer.schedules = shifted

    def accuracy(self, setting: Setting, timer: Timer) -> None:
        seconds = self.span(setting)
        if seconds is None:
            return
        if seconds <= 60:
            timer.notes.append(f"AccuracySec={setting.value}: within a tick: runs start on time")
        else:
            timer.notes.append(
                f"AccuracySec={setting.value}: systemd may start a run up to that late (at a "
                "point fixed per boot); cronlapse starts it on time"
            )

    def span(self, setting: Setting) -> float | None:
        seconds = parse_timespan(setting.value)
        problem = _span_problem(seconds)
        if problem is not None:
            self.error(setting, problem)
            return None
        return seconds

    def boolean(self, setting: Setting) -> bool | None:
        value = parse_boolean(setting.value)
        if value is None:
            self.error(setting, "expected true or false (yes/no, on/off, 1/0)")
        return value


_MAX_SPAN_SECONDS = 1000 * 31_557_600
"""A thousand years: longer spans are refused where they are written, before their minutes
are counted (a span of 400 digits is infinite as a float)."""


def _span_problem(seconds: float | None) -> str | None:
    """What is wrong with a parsed time span, None if nothing."""
    if seconds is None:
        return "expected a time span such as 90, 5min or 1h 30min"
    if seconds > _MAX_SPAN_SECONDS:
        return "too long: expected a time span of at most 1000 years"
    return None


def _later(schedule: TimerSchedule, minutes: int, cron: str | None = None) -> TimerSchedule:
    if cron is not None:
        return TimerSchedule(schedule.line, schedule.source, cron, schedule.timezone)
    first = None if schedule.first is None else schedule.first + minutes
    return TimerSchedule(schedule.line, schedule.source, every=schedule.every, first=first)


def _add_service(timer: Timer, settings: list[Setting]) -> None:
    """Fill in what the activated service says, if it is next to the timer."""
    unit = next((s for s in settings if s.section == "Timer" and s.key == "Unit"), None)
    if unit is not None and unit.value and not _UNIT_NAME.fullmatch(unit.value):
        raise ImportProblems(
            [
                f"{unit.where(timer.path)}: Unit=: expected a unit name such as backup.service, "
                f"got {unit.value!r}"
            ]
        )
    path = Path(timer.path).with_name(
        unit.value if unit and unit.value else f"{timer.name}.service"
    )
    if not path.is_file():
        timer.notes.append(f"{path.name}: not found next to the timer; the job has no command")
        return
    service = parse_unit(read_text(str(path), "systemd service"), str(path))
    values = {s.key: s for s in service if s.section in ("Unit", "Service")}
    if "Description" in values:
        timer.notes.insert(0, f"{path.name}: {values['Description'].value}")
    if "ExecStart" in values:
        timer.command = values["ExecStart"].value.lstrip("-@:+!")
    if "User" in values:
        timer.user = values["User"].value
    if "RuntimeMaxSec" in values:
        seconds = parse_timespan(values["RuntimeMaxSec"].value)
        problem = _span_problem(seconds)
        if seconds is None or problem is not None:
            where = values["RuntimeMaxSec"].where(str(path))
            raise ImportProblems([f"{where}: RuntimeMaxSec=: {problem}"])
        timer.timeout_minutes = max(1, math.ceil(seconds / 60))
    others = sorted({s.key for s in service if s.key not in _SERVICE_KEYS})
    if others:
        listed = ", ".join(f"{key}=" for key in others)
        timer.notes.append(f"{path.name}: {listed}: not modelled")
