"""The command line: what users type after ``:``, as engine commands or dashboard actions.

The words follow the scenario format's timeline keys (``register``, ``schedule``, ``modify``,
``cancel``...), so what one types here is what one writes in a file. Parsing never raises
anything but :class:`CommandError`, whose message is shown under the command line.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from engine import commands as cmd
from engine.calendar import CronSchedule, ScheduleError, daily
from engine.clock import Clock
from engine.core import Engine
from engine.model import PRIORITY_LEVELS, CatchUp, JobSpec
from engine.schedules import Every, Once, Schedule
from tui.model.timefmt import TargetError, parse_target


class CommandError(ValueError):
    """A line that is not a command; the message says what was expected."""


@dataclass(frozen=True, slots=True)
class CommandSpec:
    name: str
    usage: str
    summary: str
    args: tuple[str, ...] = ()
    """What each word after the name is, for completion: job, worker, scheduled, outcome,
    catch_up, option (``key=value``, repeated), path, text."""
    engine: bool = True


SCHEDULE_KEYS = ("at", "every", "first", "cron", "daily")
JOB_OPTIONS = ("priority", "duration", "max_attempts", "max_retries", "timeout", "payload")
MODIFY_OPTIONS = (*SCHEDULE_KEYS, *JOB_OPTIONS, "catch_up")
SCHEDULE_OPTIONS = (*MODIFY_OPTIONS, "depends_on", "failure_rate")

COMMANDS: dict[str, CommandSpec] = {
    spec.name: spec
    for spec in (
        CommandSpec("register", "register WORKER", "register a new worker", ("text",)),
        CommandSpec(
            "schedule",
            "schedule JOB [at=T|every=N [first=T]|cron='m h d M w'|daily=HH:MM] [priority=P] "
            "[duration=D] [max_attempts=N] [timeout=T] [depends_on=A,B]",
            "schedule a job (once, now, without a schedule key)",
            ("text", "option"),
        ),
        CommandSpec(
            "modify",
            "modify JOB KEY=VALUE...",
            "change a job's schedule or settings",
            ("job", "option"),
        ),
        CommandSpec(
            "cancel",
            "cancel JOB [SCHEDULED]",
            "cancel an occurrence (default: the next)",
            ("job", "scheduled"),
        ),
        CommandSpec(
            "delete", "delete JOB", "delete a job; its waiting runs are cancelled", ("job",)
        ),
        CommandSpec("pause", "pause JOB", "create no more occurrences of a job", ("job",)),
        CommandSpec(
            "resume", "resume JOB [skip|latest|all]", "resume a paused job", ("job", "catch_up")
        ),
        CommandSpec("dispatch", "dispatch", "create due occurrences and assign idle workers"),
        CommandSpec(
            "complete",
            "complete JOB SCHEDULED ATTEMPT ok|fail",
            "report how a running attempt ended",
            ("job", "scheduled", "text", "outcome"),
        ),
        CommandSpec(
            "fail",
            "fail JOB ATTEMPT",
            "script that an attempt number of a job fails",
            ("job", "text"),
        ),
        CommandSpec(
            "down", "down WORKER", "a worker crashes; its attempt is lost and retried", ("worker",)
        ),
        CommandSpec("up", "up WORKER", "a worker comes back", ("worker",)),
        CommandSpec(
            "drain", "drain WORKER", "a worker finishes its attempt, then stops", ("worker",)
        ),
        CommandSpec(
            "goto",
            "goto TICK|+N|-N|+2h|HH:MM|ISO-TIME",
            "go to a tick or a time",
            ("text",),
            engine=False,
        ),
        CommandSpec(
            "speed", "speed N", "play speed in event ticks per second", ("text",), engine=False
        ),
        CommandSpec(
            "redo", "redo", "bring back the future the last command replaced", engine=False
        ),
        CommandSpec(
            "filter",
            "filter TEXT",
            "filter the focused table (words, !word)",
            ("text",),
            engine=False,
        ),
        CommandSpec("open", "open PATH", "open a scenario or a script", ("path",), engine=False),
        CommandSpec("reload", "reload", "reload the file from disk", engine=False),
        CommandSpec(
            "export",
            "export [PATH]",
            "write the attempts as a Chrome trace or .csv",
            ("path",),
            engine=False,
        ),
        CommandSpec("help", "help", "show keys and commands", engine=False),
        CommandSpec("quit", "quit", "leave the dashboard", engine=False),
    )
}


@dataclass(frozen=True, slots=True)
class Parsed:
    """A parsed line: an engine command, or a dashboard action with its words."""

    name: str
    command: cmd.Command | None = None
    args: tuple[str, ...] = ()


def parse(text: str, engine: Engine, clock: Clock | None) -> Parsed:
    """Parse one command line; :class:`CommandError` says what is wrong."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise CommandError(f"cannot split the line into words: {error}") from None
    if not words:
        raise CommandError("type a command; tab completes, ? lists them all")
    name, args = words[0].lower(), words[1:]
    spec = COMMANDS.get(name)
    if spec is None:
        close = [known for known in COMMANDS if known.startswith(name[:2])]
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise CommandError(f"unknown command {words[0]!r}{hint}")
    if not spec.engine:
        return Parsed(name, None, tuple(args))
    return Parsed(name, _Builder(engine, clock).build(spec, args))


class _Builder:
    def __init__(self, engine: Engine, clock: Clock | None) -> None:
        self.engine = engine
        self.clock = clock

    def build(self, spec: CommandSpec, args: list[str]) -> cmd.Command:
        name = spec.name
        if name == "dispatch":
            self._count(spec, args, 0, 0)
            return cmd.Dispatch()
        if name in ("register", "down", "up", "drain", "delete", "pause"):
            self._count(spec, args, 1, 1)
            kind = {
                "register": cmd.RegisterWorker,
                "down": cmd.WorkerDown,
                "up": cmd.WorkerUp,
                "drain": cmd.DrainWorker,
                "delete": cmd.DeleteJob,
                "pause": cmd.PauseJob,
            }[name]
            return kind(args[0])
        if name == "cancel":
            self._count(spec, args, 1, 2)
            scheduled = self._integer(args[1], "SCHEDULED", 0) if len(args) > 1 else None
            return cmd.CancelOccurrence(args[0], scheduled)
        if name == "resume":
            self._count(spec, args, 1, 2)
            catch_up = (
                self._choice(args[1], "catch-up", {c.value: c for c in CatchUp})
                if len(args) > 1
                else None
            )
            return cmd.ResumeJob(args[0], catch_up)
        if name == "complete":
            self._count(spec, args, 4, 4)
            outcomes = {"ok": True, "true": True, "succeeded": True}
            outcomes |= {"fail": False, "false": False, "failed": False}
            return cmd.Complete(
                args[0],
                self._integer(args[1], "SCHEDULED", 0),
                self._integer(args[2], "ATTEMPT", 1),
                self._choice(args[3], "outcome", outcomes),
            )
        if name == "fail":
            self._count(spec, args, 2, 2)
            return cmd.ScriptFailure(args[0], self._integer(args[1], "ATTEMPT", 1))
        if name == "modify":
            if len(args) < 2:
                raise CommandError(f"expected: {spec.usage}")
            changes = self._options(args[1:], MODIFY_OPTIONS)
            return cmd.ModifyJob.of(args[0], **changes)
        assert name == "schedule"
        if not args:
            raise CommandError(f"expected: {spec.usage}")
        changes = self._options(args[1:], SCHEDULE_OPTIONS)
        changes.setdefault("schedule", Once(self.engine.now))
        try:
            return cmd.ScheduleJob(JobSpec(args[0], **changes))  # type: ignore[arg-type]
        except (TypeError, ValueError) as error:
            raise CommandError(str(error)) from None

    # --------------------------------------------------------------- values

    def _options(self, words: list[str], allowed: tuple[str, ...]) -> dict[str, object]:
        given: dict[str, str] = {}
        for word in words:
            key, equals, value = word.partition("=")
            if not equals or not value:
                raise CommandError(f"expected KEY=VALUE, got {word!r}")
            if key not in allowed:
                raise CommandError(f"unknown key {key!r}; expected one of: {', '.join(allowed)}")
            given[key] = value
        changes: dict[str, object] = {}
        schedule = self._schedule(given)
        if schedule is not None:
            changes["schedule"] = schedule
        for key, value in given.items():
            if key in SCHEDULE_KEYS:
                continue
            if key == "priority":
                level = PRIORITY_LEVELS.get(value.lower())
                changes[key] = level if level is not None else self._integer(value, key, -1000)
            elif key in ("duration", "max_attempts"):
                changes[key] = self._integer(value, key, 1)
            elif key == "max_retries":
                changes["max_attempts"] = self._integer(value, key, 0) + 1
            elif key == "timeout":
                changes[key] = None if value.lower() == "none" else self._integer(value, key, 1)
            elif key == "catch_up":
                changes[key] = self._choice(value, key, {c.value: c for c in CatchUp})
            elif key == "depends_on":
                changes[key] = tuple(part for part in value.split(",") if part)
            elif key == "failure_rate":
                changes[key] = self._rate(value)
            else:
                changes[key] = value
        return changes

    def _schedule(self, given: dict[str, str]) -> Schedule | None:
        kinds = [key for key in ("at", "every", "cron", "daily") if key in given]
        if len(kinds) > 1:
            raise CommandError(f"a job has one schedule: give {kinds[0]} or {kinds[1]}, not both")
        if "first" in given and kinds != ["every"]:
            raise CommandError("first only goes with every")
        if not kinds:
            return None
        kind, value = kinds[0], given[kinds[0]]
        if kind == "at":
            return Once(self._tick(value, "at"))
        if kind == "every":
            first = self._tick(given["first"], "first") if "first" in given else self.engine.now
            return Every(first, self._integer(value, "every", 1))
        if self.clock is None:
            raise CommandError(f"{kind} needs a clock; this run has none: use at= or every=")
        try:
            expression = daily(value) if kind == "daily" else value
            return CronSchedule(expression, self.clock)
        except ScheduleError as error:
            raise CommandError(str(error)) from None

    def _tick(self, text: str, what: str) -> int:
        try:
            return parse_target(text, self.engine.now, self.clock)
        except TargetError as error:
            raise CommandError(f"{what}: {error}") from None

    @staticmethod
    def _integer(text: str, what: str, minimum: int) -> int:
        try:
            value = int(text)
        except ValueError:
            raise CommandError(f"{what}: expected a whole number, got {text!r}") from None
        if value < minimum:
            raise CommandError(f"{what}: expected at least {minimum}, got {value}")
        return value

    @staticmethod
    def _rate(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not 0.0 <= value <= 1.0:
            raise CommandError(f"failure_rate: expected a number from 0 to 1, got {text!r}")
        return value

    @staticmethod
    def _choice(text: str, what: str, choices: dict[str, object]):
        value = choices.get(text.lower())
        if value is None:
            raise CommandError(f"{what}: expected one of {', '.join(choices)}, got {text!r}")
        return value

    @staticmethod
    def _count(spec: CommandSpec, args: list[str], low: int, high: int) -> None:
        if not low <= len(args) <= high:
            raise CommandError(f"expected: {spec.usage}")
