"""systemd ``.timer`` units as scheduled jobs, with the ``.service`` each one starts.

What systemd.timer(5) says a timer is, and what cronlapse makes of it (each setting read but not
modelled is noted by name, never dropped silently):

- ``OnCalendar=``: a calendar event (:mod:`cronlapse.importers.calendar_event`), written as cron;
  several lines are several schedules (of one job), and an empty one clears those before it; an
  event with no cron form (a year, seconds other than ``:00``) is listed as not imported;
- ``OnBootSec=``, ``OnStartupSec=``, ``OnActiveSec=``: the first run, that long after tick 0 (the
  boot); ``OnUnitActiveSec=`` repeats it that long after each start (``every``), and
  ``OnUnitInactiveSec=`` that long after each end (``every`` = the span + the run's duration).
  beside ``OnCalendar=``, ``OnUnit*Sec=`` counts from each calendar run too (a ``repeat``).
  A timer with only ``OnUnit*Sec=`` never starts a unit that was never active: not imported;
- ``Persistent=true``: ``catch_up: latest`` (one run for the elapses missed while stopped);
- ``RandomizedDelaySec=``: one delay per timer, drawn from the seed and the timer's name (as
  ``FixedRandomDelay=yes`` does), added to its schedule in whole minutes;
- ``AccuracySec=``: noted (cronlapse starts on the minute; systemd anywhere in the window);
- ``Unit=`` (else the service of the same name, next to the timer; for an instance such as
  ``report@daily.service`` with no file of its own, the template ``report@.service`` with ``%i``
  the instance, as systemd.unit(5) instantiates it): its ``Description=`` (a comment),
  ``ExecStart=`` (the payload), ``User=``, and the limit on a run its ``Type=`` obeys
  (systemd.service(5): ``TimeoutStartSec=`` for ``Type=oneshot``, on which ``RuntimeMaxSec=``
  has no effect; ``RuntimeMaxSec=`` for the other types) as the timeout.

Drop-ins (systemd.unit(5)): ``NAME.timer.d/*.conf`` and ``NAME.service.d/*.conf`` next to the
unit (and a template's ``PREFIX@.service.d/``) are read after it, in the lexical order of their
file names, a later one overriding an earlier; ``OnCalendar=`` left empty in one clears the lines
before it. Drop-ins in other unit directories (``/etc/systemd/system``...) are not seen.

A timer with several triggers is one job (:func:`cronlapse.importers.fleet.import_fleet` joins its
schedules): systemd starts its one unit at the earliest of them.

This module reads the ``.timer``; the service it starts is read by
:mod:`cronlapse.importers.systemd_service`, and both units' drop-ins are found by
:mod:`cronlapse.importers.drop_ins`.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

from cronlapse.importers.calendar_event import (
    EVENT_FORM,
    CalendarError,
    NoCronForm,
    ZoneAlone,
    parse_calendar_event,
)
from cronlapse.importers.drop_ins import find_drop_ins, keep_files, note_drop_ins, read_drop_ins
from cronlapse.importers.files import ImportProblems, at, read_text
from cronlapse.importers.systemd_service import add_service
from cronlapse.importers.unit_file import (
    Setting,
    parse_boolean,
    parse_timespan,
    parse_unit,
    span_problem,
)
from engine.model.problems import Problem
from engine.schedules.clock import ClockError, parse_zone

FIRST_KEYS = ("OnBootSec", "OnStartupSec", "OnActiveSec")
REPEAT_KEYS = ("OnUnitActiveSec", "OnUnitInactiveSec")
_NOTED_KEYS = {
    "WakeSystem": "waking a suspended machine is not modelled",
    "RemainAfterElapse": "whether an elapsed timer stays loaded; no effect on runs",
    "OnClockChange": "clock jumps are not modelled",
    "OnTimezoneChange": "zone changes are not modelled",
    "FixedRandomDelay": "cronlapse always draws one delay per timer (as if yes)",
}


@dataclass(frozen=True, slots=True)
class TimerSchedule:
    path: str
    """The file it is written in: the timer or one of its drop-ins."""
    line: int
    source: str
    """The setting as written (``OnCalendar=Mon..Fri 10:00``)."""
    cron: str | None = None
    timezone: str | None = None
    every: int | None = None
    """Minutes between runs (monotonic timers)."""
    first: int | None = None
    """Minute of the first run (monotonic timers); None with ``every`` beside ``OnCalendar=``:
    the repeat then starts from each calendar run."""


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
    files: dict[str, str] = field(default_factory=dict)
    """Every file read for the timer, by its path from the timer's directory (the timer, the
    service or its template, their drop-ins), as written: what ``cronlapse export`` writes
    back."""


def read_timer(path: str, seed: int = 0, duration: int = 1) -> Timer:
    """Read a ``.timer``, its drop-ins and the service it starts; ``seed`` draws
    ``RandomizedDelaySec=``, ``duration`` (minutes a run takes) spaces ``OnUnitInactiveSec=``
    runs."""
    text = read_text(path, "systemd timer")
    settings = parse_unit(text, path)
    drop_ins = find_drop_ins(Path(path))
    settings += read_drop_ins(drop_ins, "systemd timer drop-in")
    timer = _Reader(path, seed, duration).timer(settings)
    timer.files[Path(path).name] = text
    keep_files(timer.files, Path(path).parent, drop_ins)
    note_drop_ins(timer.notes, Path(path), drop_ins)
    add_service(timer, settings)
    return timer


def parse_timer(text: str, path: str = "<timer>", seed: int = 0, duration: int = 1) -> Timer:
    """The timer in a ``.timer`` unit's text, without its service (see :func:`read_timer`)."""
    return _Reader(path, seed, duration).timer(parse_unit(text, path))


class _Reader:
    def __init__(self, path: str, seed: int, duration: int) -> None:
        self.path = path
        self.seed = seed
        self.duration = duration
        self.problems: list[Problem] = []

    def error(self, setting: Setting, message: str, offset: int = 0) -> None:
        self.problems.append(setting.problem(message, offset))

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
                calendar = [] if not setting.value else [*calendar, self.calendar(setting, timer)]
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
        self.add_monotonic(timer, monotonic, calendar)
        if not timer.schedules and not timer.skipped and not self.problems:
            message = "expected OnCalendar= or OnBootSec=/OnActiveSec= in a [Timer] section"
            self.problems.append(at(self.path, 1, 1, message))
        if self.problems:
            raise ImportProblems(self.problems)
        if delay is not None:
            self.add_delay(timer, delay)
        return timer

    def calendar(self, setting: Setting, timer: Timer) -> TimerSchedule:
        source = f"OnCalendar={setting.value}"
        unwritten = TimerSchedule(setting.path, setting.line, source)
        try:
            event = parse_calendar_event(setting.value)
            cron = event.cron()
        except (NoCronForm, ZoneAlone) as error:
            # systemd runs it (or ignores the line): listed, the timer's other triggers imported.
            timer.skipped.append(f"{setting.path}:{setting.line}: {source}: {error}")
            return unwritten
        except CalendarError as error:
            self.error(setting, f"{error}", error.column)
            return unwritten
        if event.timezone is not None:
            try:
                parse_zone(event.timezone, "zone")
            except ClockError as error:
                message = str(error).removeprefix("zone: ")
                if setting.value.strip() == event.timezone and "/" not in event.timezone:
                    # A lone word that names no zone is no event at all rather than a zone
                    # mistyped (one that names a zone is ZoneAlone, listed above).
                    message = (
                        f"{event.timezone!r} is not a calendar event: expected {EVENT_FORM}, "
                        "each part optional, such as 'Mon..Fri *-*-* 02:30:00', 'daily' or "
                        "'daily UTC'"
                    )
                self.error(setting, message, setting.value.rfind(event.timezone))
                return unwritten
        return TimerSchedule(setting.path, setting.line, source, cron, event.timezone)

    def monotonic(self, setting: Setting, found: dict[str, tuple[Setting, int]]) -> None:
        if not setting.value:
            found.pop(setting.key, None)
            return
        seconds = self.span(setting)
        if seconds is not None and seconds < 60 and setting.key in REPEAT_KEYS:
            self.error(setting, "shorter than a minute, a scenario's tick: expected 1min or more")
        elif seconds is not None:
            found[setting.key] = (setting, math.ceil(seconds / 60))

    def add_monotonic(
        self, timer: Timer, found: dict[str, tuple[Setting, int]], calendar: list[TimerSchedule]
    ) -> None:
        """The monotonic triggers as one schedule: the first run and the repeat. Beside
        ``OnCalendar=`` lines (any: one without a cron form still starts the unit in systemd),
        a repeat alone counts from each calendar run (``first`` None)."""
        firsts = [found[key] for key in FIRST_KEYS if key in found]
        repeat = next((found[key] for key in REPEAT_KEYS if key in found), None)
        written = " ".join(f"{s.key}={s.value}" for s, _ in firsts + ([repeat] if repeat else []))
        if repeat is not None and not firsts and not calendar:
            timer.skipped.append(
                f"{repeat[0].path}:{repeat[0].line}: {repeat[0].key}= alone never elapses: "
                "systemd counts from the unit's last start, and nothing starts it first"
            )
            return
        if not firsts and repeat is None:
            return
        if firsts:
            first_setting, first = min(firsts, key=lambda pair: pair[1])
        else:
            assert repeat is not None  # neither: returned above
            first_setting, first = repeat[0], None
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
        timer.schedules.append(
            TimerSchedule(first_setting.path, first_setting.line, written, every=every, first=first)
        )

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
        problem = span_problem(seconds)
        if problem is not None:
            self.error(setting, problem)
            return None
        return seconds

    def boolean(self, setting: Setting) -> bool | None:
        value = parse_boolean(setting.value)
        if value is None:
            self.error(setting, "expected true or false (yes/no, on/off, 1/0)")
        return value


def _later(schedule: TimerSchedule, minutes: int, cron: str | None = None) -> TimerSchedule:
    if cron is not None:
        return replace(schedule, cron=cron)
    return replace(schedule, first=None if schedule.first is None else schedule.first + minutes)
