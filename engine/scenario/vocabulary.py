"""One vocabulary of commands for every place a person writes one: a scenario's ``timeline:`` and
the dashboard's command line.

:data:`VERBS` is the table: each :class:`Verb` has a name, its arguments (:class:`Param`: words in
order on the command line, keys in a file), the job options it takes (:data:`OPTIONS`:
``KEY=VALUE`` words, keys in a file), its help text, the engine command it builds and how. A file
gives a verb its values as YAML; the command line's words become the same positioned values
(:func:`words_node`, :func:`~engine.scenario.jobs.word_node`), and both are read by the same
readers, so a form accepted in one place is accepted in the other, builds the same command and is
refused with the same message (a file adds ``file:line:column`` and the key path).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from engine.model import commands as cmd
from engine.model import limits
from engine.model.job_rules import TriggerRule
from engine.model.records import PRIORITY_LEVELS, CatchUp
from engine.model.values import value
from engine.scenario.checks import StatusQuery
from engine.scenario.command_reader import Built, CommandReader, Zones, no_zones
from engine.scenario.errors import Position, Problems
from engine.scenario.jobs import JOB_KEYS, MODIFY_KEYS, OVERLAP_NAMES, JobReader, word_node
from engine.scenario.model import Action
from engine.scenario.schema import Reader
from engine.scenario.yaml_source import Mapping, Node, Scalar
from engine.schedules.calendar import DstRule
from engine.schedules.clock import Clock


class CommandLineError(ValueError):
    """A command line that does not read; the message says what was expected."""


@value
class Param:
    """An argument: the next word on the command line, the key ``key`` in a file."""

    key: str
    kind: str
    """What it is, for completion: ``job``, ``worker``, ``new`` (a new id), ``scheduled``,
    ``attempt``, ``outcome``, ``catch_up``, ``event``, ``channel``, ``text``, ``time``,
    ``order`` or ``count``."""
    optional: bool = False

    @property
    def label(self) -> str:
        labels = {"id": "JOB", "ok": "ok|fail", "catch_up": "skip|latest|all"}
        labels["order"] = "parallel|sequential"
        return labels.get(self.key, self.key.upper())


@value
class Option:
    """A job key given as ``KEY=VALUE`` (or ``KEY: VALUE`` in a file)."""

    key: str
    form: str
    help: str
    values: tuple[str, ...] = ()
    """Values to complete."""


Builder = Callable[[CommandReader, "Verb", Node, str, int, bool], Built]


@value
class Verb:
    """A command: its words, its help, the engine command it builds and how."""

    name: str
    summary: str
    builds: Callable[..., Action]
    """The engine command (or query) it builds."""
    build: Builder
    params: tuple[Param, ...] = ()
    options: tuple[str, ...] = ()
    """The :data:`OPTIONS` it takes as ``KEY=VALUE`` words (keys in a file)."""
    examples: tuple[str, ...] = ()
    """Command lines, each valid on the command line and, as keys, in a file."""

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(param.key for param in self.params) + self.options

    @property
    def usage(self) -> str:
        words = [self.name]
        words += [f"[{param.label}]" if param.optional else param.label for param in self.params]
        if self.name == "modify":
            words.append("KEY=VALUE...")
        elif self.options:
            words.append("[KEY=VALUE...]")
        return " ".join(words)


_TIME = "a tick, +N or +2h from now, HH:MM (today) or an ISO time"
OPTIONS: dict[str, Option] = {
    option.key: option
    for option in (
        Option("at", "T", f"once, at T: {_TIME}"),
        Option("every", "N", "every N ticks, from first (default: now)"),
        Option("first", "T", "with every: the first run; with cron: one more run"),
        Option("daily", "HH:MM", "every day at HH:MM"),
        Option("weekly", "DAYS@HH:MM", "on days such as mon,fri at HH:MM"),
        Option("monthly", "DAY@HH:MM", "on day 1-31 or last of each month at HH:MM"),
        Option("cron", "'m h dom mon dow'", "a cron expression or @daily, @weekly..."),
        Option("repeat", "N", "with cron: again every N ticks after each run, to the next"),
        Option("timezone", "ZONE", "the job's zone for its times (default: the clock's)"),
        Option(
            "dst",
            "RULE",
            "with a calendar: its rule at DST changes (default: cron)",
            tuple(rule.value for rule in DstRule),
        ),
        Option(
            "priority",
            "P",
            f"high, medium, low or {limits.PRIORITY.expected}",
            tuple(PRIORITY_LEVELS),
        ),
        Option("duration", "D", f"ticks an attempt runs: {limits.DURATION.expected}"),
        Option("max_attempts", "N", f"attempts per run: {limits.ATTEMPTS.expected}"),
        Option("max_retries", "N", f"retries per run: {limits.RETRIES.expected}"),
        Option("timeout", "T", "ticks before a running attempt times out, or none", ("none",)),
        Option(
            "run_timeout",
            "T",
            "ticks from a run's first start by which it must be over, retries included",
        ),
        Option("payload", "S", "data for the job's code"),
        Option(
            "catch_up",
            "skip|latest|all",
            "what resume does with missed runs",
            tuple(c.value for c in CatchUp),
        ),
        Option(
            "overlap",
            "POLICY",
            "a run due at max_active: Forbid, Replace, Skip, BufferOne, BufferAll...",
            tuple(OVERLAP_NAMES),
        ),
        Option("max_active", "N", f"runs active at once: {limits.MAX_ACTIVE.expected}"),
        Option("pool", "NAME", "a pool of the scenario's pools: its slots limit the job's runs"),
        Option(
            "catch_up_window", "W", "on resume, runs due more than W ticks before it are skipped"
        ),
        Option("max_missed", "M", "on resume, more than M missed: a warning, only the latest runs"),
        Option("deadline", "D", "ticks after its time by which a run should have finished"),
        Option("start_deadline", "N", "ticks after its time by which a run must have started"),
        Option("depends_on", "A,B", "jobs it waits for (a recurring one: run by run)"),
        Option(
            "trigger_rule",
            "RULE",
            "how its runs judge their upstream runs: all_success, all_done, one_failed...",
            tuple(rule.value for rule in TriggerRule),
        ),
        Option("fail", "N,M", "attempt numbers scripted to fail"),
        Option("hang", "N,M", "attempt numbers scripted never to end"),
        Option("failure_rate", "F", f"chance an attempt fails: {limits.FAILURE_RATE.expected}"),
        Option("backoff", "{kind: ..., base: N}", "the job's retry backoff"),
        Option("notify", "[{on: [...], channel: ..., to: ...}]", "who hears of what"),
    )
}
"""Every job key a command takes, with its form and help (for usage, help and completion)."""

_JOB = Param("job", "job")
_WORKER = Param("worker", "worker")
VERBS: dict[str, Verb] = {
    verb.name: verb
    for verb in (
        Verb(
            "register",
            "register a new worker",
            cmd.RegisterWorker,
            CommandReader.build_register,
            (Param("worker", "new"),),
            examples=("register w9",),
        ),
        Verb(
            "schedule",
            "schedule a job (once, now, without a schedule key)",
            cmd.ScheduleJob,
            CommandReader.build_schedule,
            (Param("id", "new"),),
            tuple(key for key in JOB_KEYS if key != "id"),
            examples=(
                "schedule x",
                "schedule x at=+5 priority=high duration=3",
                "schedule x at=20",
                "schedule x every=30 first=14:00 max_retries=2 timeout=9",
                "schedule x daily=09:00 timezone=Europe/Paris",
                "schedule x weekly=mon,fri@09:00",
                "schedule x monthly=last@06:00",
                "schedule x cron='30 2 * * *' catch_up=latest",
                "schedule x depends_on=once fail=1,2 failure_rate=0.5 payload=hello",
                "schedule x priority=5000 max_attempts=3 timeout=none",
                "schedule x every=10 duration=25 overlap=Forbid",
                "schedule x every=10 duration=25 max_active=2",
            ),
        ),
        Verb(
            "dispatch",
            "create due occurrences and assign idle workers",
            cmd.Dispatch,
            CommandReader.build_dispatch,
            examples=("dispatch",),
        ),
        Verb(
            "complete",
            "report how a running attempt ended",
            cmd.Complete,
            CommandReader.build_complete,
            (
                _JOB,
                Param("scheduled", "scheduled"),
                Param("attempt", "attempt"),
                Param("ok", "outcome"),
            ),
            examples=("complete etl 10 1 ok", "complete etl 10 2 fail", "complete etl 10 1 true"),
        ),
        Verb(
            "delivery",
            "report how a notification's delivery try ended (delivery: reported)",
            cmd.ReportDelivery,
            CommandReader.build_delivery,
            (
                _JOB,
                Param("scheduled", "scheduled"),
                Param("attempt", "attempt"),
                Param("event", "event"),
                Param("channel", "channel"),
                Param("to", "text"),
                Param("ok", "outcome"),
            ),
            examples=(
                "delivery etl 10 1 failed slack ops ok",
                "delivery etl 10 1 succeeded webhook hook fail",
            ),
        ),
        Verb(
            "fail",
            "script that an attempt number of a job fails",
            cmd.ScriptFailure,
            CommandReader.build_fail,
            (_JOB, Param("attempt", "attempt")),
            examples=("fail etl 2",),
        ),
        Verb(
            "modify",
            "change a job's schedule or settings",
            cmd.ModifyJob,
            CommandReader.build_modify,
            (_JOB,),
            tuple(key for key in MODIFY_KEYS if key != "job"),
            examples=(
                "modify etl priority=low duration=4",
                "modify etl every=7 first=+3",
                "modify etl timeout=none",
                "modify etl weekly=sat@10:00",
            ),
        ),
        Verb(
            "cancel",
            "cancel an occurrence (default: the job's next)",
            cmd.CancelOccurrence,
            CommandReader.build_cancel,
            (_JOB, Param("scheduled", "scheduled", optional=True)),
            examples=("cancel etl", "cancel etl 20", "cancel job=etl scheduled=00:20"),
        ),
        Verb(
            "delete",
            "delete a job; its waiting runs are cancelled",
            cmd.DeleteJob,
            CommandReader.build_named,
            (_JOB,),
            examples=("delete etl",),
        ),
        Verb(
            "pause",
            "create no more occurrences of a job",
            cmd.PauseJob,
            CommandReader.build_named,
            (_JOB,),
            examples=("pause etl",),
        ),
        Verb(
            "resume",
            "resume a paused job",
            cmd.ResumeJob,
            CommandReader.build_resume,
            (_JOB, Param("catch_up", "catch_up", optional=True)),
            examples=("resume etl", "resume etl latest"),
        ),
        Verb(
            "backfill",
            "create a job's runs for the logical times from FROM to TO (Airflow, Temporal)",
            cmd.BackfillJob,
            CommandReader.build_backfill,
            (
                _JOB,
                Param("from", "time"),
                Param("to", "time"),
                Param("order", "order", optional=True),
                Param("max_runs", "count", optional=True),
            ),
            examples=(
                "backfill etl 0 10",
                "backfill etl 0 10 sequential",
                "backfill job=etl from=-12 to=+0 order=parallel max_runs=100",
            ),
        ),
        Verb(
            "down",
            "a worker crashes; its attempt is lost and retried",
            cmd.WorkerDown,
            CommandReader.build_named,
            (_WORKER,),
            examples=("down w1",),
        ),
        Verb(
            "up",
            "a worker comes back",
            cmd.WorkerUp,
            CommandReader.build_named,
            (_WORKER,),
            examples=("up w1",),
        ),
        Verb(
            "drain",
            "a worker finishes its attempt, then stops",
            cmd.DrainWorker,
            CommandReader.build_named,
            (_WORKER,),
            examples=("drain w1",),
        ),
        Verb(
            "status",
            "the state of an occurrence",
            StatusQuery,
            CommandReader.build_status,
            (_JOB, Param("scheduled", "scheduled")),
            examples=("status etl 10",),
        ),
    )
}
"""The commands, in the order help lists them."""

_KEYED = re.compile(r"([a-z_]+)=(.*)\Z", re.S)


def words_node(verb: Verb, words: Sequence[str]) -> Node:
    """The value a file would give ``verb`` for these command-line words: words fill the verb's
    arguments in order, ``KEY=VALUE`` words give keys; each value typed as in a file."""
    entries: list[tuple[Scalar, Node]] = []
    params = iter(verb.params)
    for index, word in enumerate(words):
        pos = Position(1, index + 2)
        keyed = _KEYED.match(word)
        if keyed is not None:
            key, value = keyed.groups()
        else:
            param = next(params, None)
            if param is None:
                raise CommandLineError(f"too many words: expected {verb.usage}")
            key, value = param.key, word
        if any(name.text == key for name, _ in entries):
            raise CommandLineError(f"{key} is given twice")
        entries.append((Scalar(key, pos, key), word_node(value, pos)))
    return Mapping(tuple(entries), Position(1, 1))


def read_words(
    verb: Verb, words: Sequence[str], now: int, clock: Clock | None, zones: Zones = no_zones
) -> Action:
    """The action a command line builds at tick ``now``, read as a file's timeline would read
    it; :class:`CommandLineError` gives the first problem, as ``key: what was expected``.
    ``zones`` gives a job's zone, which a ``modify`` naming no ``timezone`` keeps."""
    problems = Problems("command line")
    reader = Reader(problems)
    commands = CommandReader(reader, JobReader(reader, clock), {}, zones)
    action = commands.command(verb, words_node(verb, words), "", now, lenient=True)
    if problems:
        first = next(iter(problems))
        if not first.path:
            raise CommandLineError(f"{first.message}: expected {verb.usage}")
        raise CommandLineError(f"{first.path}: {first.message}")
    if action is None:
        raise CommandLineError(f"expected: {verb.usage}")
    return action
