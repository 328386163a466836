"""Seed 001's line protocol: a one-worker engine with aging, dependencies, backoff and cascades.

The engine runs with the aging order, automatic dispatch, simulated completion and exponential
backoff without cap or jitter; this module parses lines, turns them into engine commands and
prints the events each command caused in the protocol's words. Between two commands the engine
rests at the start of tick ``clock``: ``TICK n`` processes ticks ``clock .. clock+n-1``.

So every command a line amounts to runs at ``(clock, Phase.BEFORE_EVENTS)`` through the one tick
driver, and the session records it as such: :attr:`ScriptSession.commands` is the script's whole
input to the engine, which the dashboard replays instead of reading the text a second time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from engine.core import Engine
from engine.model import events as ev
from engine.model.backoff import Backoff, BackoffKind
from engine.model.commands import (
    Command,
    Outcome,
    RegisterWorker,
    Result,
    ScheduleJob,
    ScriptFailure,
)
from engine.model.digits import MAX_DIGITS, is_digits
from engine.model.limits import ATTEMPTS, DURATION, PRIORITY
from engine.model.policies import (
    CompletionMode,
    DispatchMode,
    DispatchOrder,
    DoomedSubmission,
    Policy,
)
from engine.model.problems import Problem
from engine.model.records import JobSpec, OccurrenceState
from engine.play.ticks import Phase, TickDriver, TimedCommand
from engine.schedules.kinds import Once

WORKER_ID = "worker"

_INTEGER = re.compile(r"-?[0-9]+\Z")

_CREATED = Outcome.CREATED
"""Read once: in Python 3.11 an enum member read through its class costs a tenth of a
microsecond (the enum metaclass's ``__getattr__`` hook)."""

_LOWEST, _HIGHEST = PRIORITY.low, PRIORITY.high
_LONGEST, _MOST_ATTEMPTS = DURATION.high, ATTEMPTS.high
"""The limits a SUBMIT's numbers are compared with (their minimums are the protocol's own), as
module names: a global is read faster than an attribute of one, and every SUBMIT reads them."""

_NO_FAILURES: frozenset[int] = frozenset()
"""Shared by every job without scripted failures: one object fewer per job for the collector."""

_STATUS_WORDS = {
    OccurrenceState.SCHEDULED: "PENDING",
    OccurrenceState.BLOCKED: "PENDING",
    OccurrenceState.QUEUED: "PENDING",
    OccurrenceState.RETRY_PENDING: "PENDING",
    OccurrenceState.RUNNING: "RUNNING",
    OccurrenceState.SUCCEEDED: "SUCCEEDED",
    OccurrenceState.FAILED: "FAILED",
    OccurrenceState.CANCELLED: "CANCELLED",
}


class ScriptError(Exception):
    """A line the protocol rejects; the message says what is wrong with it."""


@dataclass
class ScriptResult:
    output: list[str] = field(default_factory=list)
    """What the protocol prints on standard output."""
    problems: list[Problem] = field(default_factory=list)
    """One per rejected line, at its line (column 1: a line is rejected as a whole)."""

    @property
    def errors(self) -> list[str]:
        """What the protocol prints on standard error: ``line N: what is wrong`` per problem."""
        return [f"line {problem.line}: {problem.message}" for problem in self.problems]

    @property
    def exit_code(self) -> int:
        return 1 if self.problems else 0


def _integer(tokens: list[str], index: int, name: str, minimum: int | None = None) -> int:
    if index >= len(tokens):
        raise ScriptError(f"missing {name}")
    token = tokens[index]
    digits = token.removeprefix("-")
    if not is_digits(digits):
        if _INTEGER.match(token):
            raise ScriptError(f"{name} has {len(digits)} digits: at most {MAX_DIGITS} are read")
        raise ScriptError(f"{name} must be an integer, got {token!r}")
    value = int(token)
    if minimum is not None and value < minimum:
        raise ScriptError(f"{name} must be at least {minimum}, got {value}")
    return value


def _each_number(tokens: list[str]) -> tuple[int, int, int, int]:
    """A SUBMIT's priority, duration, maxAttempts and depCount, each read and checked on its
    own: for the numbers that are not all unsigned within their minimums (a negative priority,
    or a problem to report), which ``ScriptSession._submit`` tells at once."""
    return (
        _integer(tokens, 2, "priority"),
        _integer(tokens, 3, "duration", minimum=1),
        _integer(tokens, 4, "maxAttempts", minimum=1),
        _integer(tokens, 5, "depCount", minimum=0),
    )


def _field_count(tokens: list[str], expected: int, usage: str) -> None:
    if len(tokens) < expected:
        raise ScriptError(f"missing fields; expected: {usage}")
    if len(tokens) > expected:
        raise ScriptError(f"too many fields; expected: {usage}")


_LINE_WORDS: dict[type[ev.Event], str] = {
    ev.AttemptStarted: "START",
    ev.AttemptSucceeded: "DONE",
    ev.AttemptFailed: "FAILATTEMPT",
    ev.OccurrenceFailed: "FAILED",
    ev.OccurrenceCancelled: "CANCEL",
}
"""The events the protocol prints, by the word that starts their line."""


class PrintedLines(ev.EventLog):
    """An event log that keeps no event: it appends the protocol's line of each event the
    protocol prints to ``lines`` as the engine writes it, and drops the others.

    For ``cronlapse script`` (:func:`execute_script`), which reads each event once, as its
    line, and nothing else of the log: kept, the events were a third of the objects a run of
    seed 001's benchmark made (11,363 of 31,798 with 3,000 jobs), each walked by the cycle
    collector, and printing them after the ``TICK`` read each back from the log. Only a
    ``TICK`` logs the kinds the protocol prints (a SUBMIT logs ``JobScheduled`` and a doomed
    one waits, under ``DoomedSubmission.WAIT``), and in the engine's order, so writing their
    lines as they come prints what reading a ``TICK``'s events after it prints (a test
    compares the two). Read as an ``EventLog``, it is empty."""

    __slots__ = ("lines",)

    kinds: ClassVar[frozenset[type] | None] = frozenset(_LINE_WORDS)
    """The kinds it prints, the only ones it keeps (as lines)."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def add(self, kind: type, *fields: object) -> None:
        """The line of ``kind(*fields)`` if the protocol prints it. ``_event_line`` written
        out: calling it cost 1.5% of seed 001's instructions with 3,000 jobs (a call for each of
        the four events a job logs)."""
        word = _LINE_WORDS.get(kind)
        if word is None:
            return
        if kind is ev.AttemptFailed:
            self.lines.append(f"{word} {fields[1]} {fields[0]} {fields[3]}")
        else:
            self.lines.append(f"{word} {fields[1]} {fields[0]}")


def event_line(event: ev.Event) -> str | None:
    """The line the protocol prints for ``event``, if it prints one."""
    return _event_line(type(event), tuple(getattr(event, name) for name in event.__match_args__))


def _event_line(kind: type[ev.Event], fields: tuple) -> str | None:
    """The protocol's line for an event, from its stored fields (every printed kind is an
    occurrence event: its fields start with the tick and the job id)."""
    word = _LINE_WORDS.get(kind)
    if word is None:
        return None
    tick, job_id = fields[0], fields[1]
    if kind is ev.AttemptFailed:
        return f"{word} {job_id} {tick} {fields[3]}"
    return f"{word} {job_id} {tick}"


class ScriptSession:
    """One run of the protocol: feed it lines, read its output.

    ``headless``: only the output is read (``cronlapse script``), so the engine keeps no events
    (each printed one goes to the output as it happens: :class:`PrintedLines`) and no index of
    its runs by state (STATUS reads a run by its key); else the engine's log holds every event
    and its runs are indexed, for the readers of a script's run (``cronlapse run``, ``check``,
    ``export``, the dashboard)."""

    def __init__(self, *, headless: bool = False) -> None:
        self.engine: Engine | None = None
        self.policy: Policy | None = None
        """The policy INIT chose (None before INIT)."""
        self.result = ScriptResult()
        self._applied: list[Command | JobSpec] = []
        self._applied_at: list[int] = []
        """The accepted commands and their ticks, kept apart: a timed command per line would be
        one more object per job for the cycle collector to walk, and only a replay needs them
        (see ``commands``). A SUBMIT's is kept as its job's definition, for the same reason."""
        self._once: Once | None = None
        """The schedule of the jobs submitted at the current clock, shared by them (a value)."""
        self._clock = 0
        """The tick the engine rests at between two lines (``engine.now``, which only INIT and
        TICK move), kept here rather than read through the engine's property twice per SUBMIT
        (with the jobs below and the printing loop: 1.7% of seed 001's instructions)."""
        self._jobs: Mapping[str, object] = {}
        """The engine's jobs by id (``engine.query.jobs()``, the same live mapping for the
        engine's life), fetched once at INIT rather than once per SUBMIT."""
        self._driver: TickDriver | None = None
        self._headless = headless
        self._pending_failures: dict[str, set[int]] = {}
        self._commands: dict[str, Callable[[list[str]], None]] = {
            "INIT": self._init,
            "SUBMIT": self._submit,
            "FAIL": self._fail,
            "TICK": self._tick,
            "STATUS": self._status,
            "RUNNING": self._running,
        }

    def feed(self, number: int, line: str) -> None:
        """Line ``number`` of the script."""
        self.feed_lines((line,), number)

    def feed_lines(self, lines: Iterable[str], first: int = 1) -> None:
        """The script's ``lines``, numbered from ``first``: one call for them all rather than
        :meth:`feed` for each, a call fewer per line (seed 001's benchmark script with 3,000
        jobs, 0.5% of its instructions, callgrind)."""
        commands, problems = self._commands, self.result.problems
        for number, line in enumerate(lines, start=first):
            tokens = line.split()
            if not tokens:
                continue
            handler = commands.get(tokens[0])
            try:
                if handler is None:
                    raise ScriptError(f"unknown command {tokens[0]!r}")
                if self.engine is None and handler != self._init:
                    raise ScriptError("INIT missing: the first command must be INIT")
                handler(tokens)
            except ScriptError as error:
                problems.append(Problem("", number, 1, "", str(error)))

    @property
    def commands(self) -> list[TimedCommand]:
        """Every engine command the accepted lines amounted to, where they ran."""
        return [
            TimedCommand(
                tick,
                Phase.BEFORE_EVENTS,
                ScheduleJob(command) if type(command) is JobSpec else command,
            )
            for tick, command in zip(self._applied_at, self._applied, strict=True)
        ]

    def _init(self, tokens: list[str]) -> None:
        if self.engine is not None:
            raise ScriptError("INIT repeated: it must be the first command, once")
        _field_count(tokens, 3, "INIT <AGING_STEP> <BACKOFF_BASE>")
        aging_step = _integer(tokens, 1, "AGING_STEP", minimum=1)
        backoff_base = _integer(tokens, 2, "BACKOFF_BASE", minimum=0)
        policy = Policy(
            order=DispatchOrder.AGING,
            aging_step=aging_step,
            dispatch=DispatchMode.AUTO,
            completion=CompletionMode.SIMULATED,
            backoff=Backoff(BackoffKind.EXPONENTIAL, base=backoff_base),
            doomed_submission=DoomedSubmission.WAIT,
        )
        self.policy = policy
        log = PrintedLines(self.result.output) if self._headless else None
        self.engine = engine = Engine(policy, log=log, indexed=not self._headless)
        self._driver = TickDriver(engine)
        self._jobs = engine.query.jobs()
        self._run(RegisterWorker(WORKER_ID))

    def _submit(self, tokens: list[str]) -> None:
        usage = "SUBMIT <id> <priority> <duration> <maxAttempts> <depCount> [dep ...]"
        if len(tokens) < 6:
            raise ScriptError(f"missing fields; expected: {usage}")
        job_id, numbers = tokens[1], tokens[2:6]
        # The common case, four unsigned numbers within their minimums, costs one check rather
        # than four: a token holds no space, so the four are ASCII digits if their concatenation
        # is. Told here rather than by a function of its own: a call fewer per SUBMIT, 1.2% of
        # seed 001's benchmark instructions with 3,000 jobs (callgrind).
        unsigned = is_digits("".join(numbers))
        if unsigned:
            priority, duration, max_attempts, dep_count = map(int, numbers)
        if not unsigned or duration < 1 or max_attempts < 1:
            priority, duration, max_attempts, dep_count = _each_number(tokens)
        dependencies = tokens[6:]
        if len(dependencies) != dep_count:
            raise ScriptError(f"depCount is {dep_count} but {len(dependencies)} ids follow")
        jobs = self._jobs
        if job_id in jobs:
            raise ScriptError(f"job {job_id!r} was already submitted")
        if dependencies and not all(map(jobs.__contains__, dependencies)):
            self.result.output.append(f"BADDEP {job_id}")
            return
        once = self._once
        if once is None:
            once = self._once = Once(self._clock)
        failures = self._pending_failures.pop(job_id, None)
        spec = JobSpec(
            job_id,
            once,
            max_attempts,
            priority,
            duration,
            tuple(dict.fromkeys(dependencies)) if dependencies else (),
            _NO_FAILURES if failures is None else frozenset(failures),
        )
        assert self.engine is not None
        # The ScheduleJob command's route, without the command: the session rests at the start
        # of its tick between two lines (what ``apply_now`` checks), and keeps the definition,
        # which ``commands`` wraps (a command object a job fewer for the collector to walk).
        # A new id, known dependencies and, within the engine's limits, numbers read as
        # integers (their minimums are the protocol's own): the checked route.
        if (
            _LOWEST <= priority <= _HIGHEST
            and duration <= _LONGEST
            and max_attempts <= _MOST_ATTEMPTS
            and (failures is None or max(failures) <= _MOST_ATTEMPTS)
        ):
            self.engine.schedule_checked(spec, self._clock)
        else:
            result = self.engine.schedule(spec)
            assert result.outcome is not _CREATED, "a number beyond the limits is refused"
            if failures is not None:
                self._pending_failures[job_id] = failures
            raise ScriptError(result.message)
        self._applied.append(spec)  # what ``_run`` does, spelled out for the commonest line
        self._applied_at.append(self._clock)
        self.result.output.append(f"OK {job_id}")

    def _fail(self, tokens: list[str]) -> None:
        _field_count(tokens, 3, "FAIL <id> <attempt>")
        attempt = _integer(tokens, 2, "attempt", minimum=1)
        engine = self._ready_engine()
        job_id = tokens[1]
        if engine.query.job(job_id) is not None:
            self._run(ScriptFailure(job_id, attempt))
        else:
            self._pending_failures.setdefault(job_id, set()).add(attempt)

    def _tick(self, tokens: list[str]) -> None:
        _field_count(tokens, 2, "TICK <n>")
        ticks = _integer(tokens, 1, "n", minimum=0)
        engine = self._ready_engine()
        assert self._driver is not None
        mark = engine.log.mark()
        self._driver.start(self._clock + ticks)
        if engine.now != self._clock:
            self._clock = engine.now
            self._once = None
        if not self._headless:
            self._print_events(mark)

    def _status(self, tokens: list[str]) -> None:
        _field_count(tokens, 2, "STATUS <id>")
        engine = self._ready_engine()
        job_id = tokens[1]
        job = engine.query.job(job_id)
        if job is None:
            self.result.output.append(f"{job_id} UNKNOWN 0")
            return
        assert isinstance(job.spec.schedule, Once)
        scheduled = job.spec.schedule.at
        state = engine.query.run_state(job_id, scheduled) or OccurrenceState.SCHEDULED
        used = len(engine.query.attempts(job_id, scheduled))
        self.result.output.append(f"{job_id} {_STATUS_WORDS[state]} {used}")

    def _running(self, tokens: list[str]) -> None:
        _field_count(tokens, 1, "RUNNING")
        running = self._ready_engine().query.workers()[WORKER_ID].running
        self.result.output.append("IDLE" if running is None else running[0])

    def _run(self, command: Command) -> Result:
        """Apply ``command`` at the start of the current tick (where the engine rests between
        two lines), and record that it did."""
        assert self.engine is not None and self._driver is not None
        result = self._driver.apply_now(command)
        if result.accepted:
            self._applied.append(command)
            self._applied_at.append(self._clock)
        return result

    def _ready_engine(self) -> Engine:
        assert self.engine is not None
        return self.engine

    def _print_events(self, mark: int) -> None:
        """The lines of the events since ``mark``: ``_event_line`` written out in the loop,
        because a TICK to the end prints three lines a job and a call per event from C (through
        ``starmap``) costs more than the loop's own steps."""
        assert self.engine is not None
        words, failed, output = _LINE_WORDS, ev.AttemptFailed, self.result.output
        for kind, fields in self.engine.log.stored_since(mark):
            word = words.get(kind)
            if word is None:
                continue
            if kind is failed:
                output.append(f"{word} {fields[1]} {fields[0]} {fields[3]}")
            else:
                output.append(f"{word} {fields[1]} {fields[0]}")


def execute_script(lines: Iterable[str]) -> ScriptResult:
    """Run a protocol script; returns its output lines and its error lines."""
    session = ScriptSession(headless=True)
    session.feed_lines(lines)
    return session.result


def run_script(lines: Iterable[str]) -> list[str]:
    """The protocol's standard output for ``lines`` (errors are dropped; see execute_script)."""
    return execute_script(lines).output
