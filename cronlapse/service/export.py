"""``cronlapse export --scenario --db URL``: a stretch of a service's journal as a scenario.

The scenario replays the stretch event for event: its engine is the service's (the ``seed-003``
preset with reported completion, the same seed, its generator continued with ``seed_skip``), its
ticks are the service's (Unix seconds, on a UTC clock at the Unix epoch), and its timeline holds
the journal's inputs as the service applied them (``timeline_phase: after_dispatch``), each
with the answer the service gave (``expect``), so ``cronlapse check`` verifies the answers too.

How the stretch starts. A scenario starts from job definitions, so its first tick must be one
where nothing is in flight (no run waiting, running or retrying, no notification being
delivered): the export starts at the latest such tick at or before ``--from`` and says so when
that is earlier. The journal is replayed up to there by the service's own code
(:mod:`cronlapse.service.journal_replay`); the jobs and workers are read from that engine and
scheduled at the start tick; the rows after it, up to ``--to``, become the timeline:

- ``schedule``, ``modify``, ``cancel``, ``delete``, ``complete``, ``register``, ``drain``,
  ``down``, ``up`` (a restart's lost attempts, worker processes): the row's arguments as they
  are (they are a scenario's already, see cronlapse.service.codec), without the service's own
  ``run`` key (a ``modify`` that only changes ``run`` is left out);
- ``pause``, ``resume``: as they are;
- a change asked ``after_run``: nothing (it changed nothing then); the report that ended the run
  applied it (:class:`~cronlapse.service.live.KeptApplied`), written as its command after that
  report, or a ``kept`` row did, its command without that key (nothing if the report had);
- ``clock``: nothing (a scenario's time moves by itself);
- ``downtime``: a ``pause`` of each job the restart paused, then a ``resume`` of each.

Jobs that have finished or were deleted before the start are kept, so that a command naming
one answers as in the service: each with a one-time run past the end, cancelled (or the job
deleted) at the start. A job's dependencies on jobs that finished before the start are left out
(they succeeded, or the job would have been cancelled).
"""

from __future__ import annotations

from dataclasses import dataclass

from cronlapse.service.clock import ENGINE_CLOCK
from cronlapse.service.codec import AFTER_RUN, CLOCK, DOWNTIME, KEPT, RUN_KEY
from cronlapse.service.journal_replay import (
    JournalReplay,
    UnknownInput,
    busy,
    in_flight,
    open_journal,
)
from cronlapse.service.live import KeptApplied
from cronlapse.service.store import NOTIFICATION_POLICY, JournalRow, NoJournal, Store, shown
from engine.core import Engine
from engine.model.policies import NotificationPolicy
from engine.model.records import Job, WorkerState
from engine.scenario.schedule_keys import SCHEDULE_KEYS
from engine.scenario.yaml_text import flow
from engine.schedules.calendar import CronSchedule, DstRule
from engine.schedules.clock import Clock
from engine.schedules.kinds import AnyOf, Every, Once, Repeating, Schedule
from engine.schedules.schedule_clock import calendar_clock
from engine.schedules.targets import TargetError, parse_target


def _notifications(policy: NotificationPolicy) -> dict[str, object]:
    backoff = policy.backoff
    return {
        "max_tries": policy.max_tries,
        "backoff": {
            "kind": backoff.kind.value,
            "base": backoff.base,
            "cap": backoff.cap,
            "jitter": backoff.jitter.value,
        },
        "delivery": policy.delivery.value,
    }


SCENARIO_POLICY = {
    "preset": "seed-003",
    "completion": "reported",
    "notifications": _notifications(NOTIFICATION_POLICY),
}
"""cronlapse.service.store.SERVICE_POLICY in a scenario's words: its delivery tries end by the
journal's ``delivery`` reports, as its attempts end by its ``complete`` reports."""


class ExportError(ValueError):
    """The stretch cannot be exported; the message says why."""


@dataclass(frozen=True, slots=True)
class Stretch:
    """What was exported: the scenario's text, its first and last tick, and why it starts
    before the tick asked for (None when it does not)."""

    text: str
    start: int
    end: int
    moved: str | None


def read_tick(text: str, origin: int, option: str) -> int:
    """A tick as ``--from``/``--to`` take it: a tick, an ISO time (UTC unless it says), or
    ``+N``/``+2h`` counted from ``origin``."""
    try:
        tick = parse_target(text, origin, ENGINE_CLOCK)
    except TargetError as error:
        raise ExportError(f"{option}: {error}") from None
    if not ENGINE_CLOCK.names(tick):  # the scenario's name and comments are dates
        raise ExportError(f"{option}: tick {tick} is past the year 9999, where no date names it")
    return tick


def export_stretch(url: str, start: str | None, end: str | None) -> Stretch:
    """The scenario of the journal at ``url`` from ``start`` (default: before its first row)
    to ``end`` (default: its last row); :class:`ExportError` if there is nothing to export."""
    try:
        store = open_journal(url)
    except NoJournal as error:
        raise ExportError(str(error)) from None
    try:
        return export_journal(store, url, start, end)
    finally:
        store.close()


def export_journal(store: Store, url: str, start: str | None, end: str | None) -> Stretch:
    """:func:`export_stretch` of the journal ``store`` holds; ``url`` names it in the scenario's
    comments and messages."""
    rows = list(store.journal.rows_after(0))
    if not rows:
        raise ExportError(f"the journal at {shown(url)} is empty")
    first, last = rows[0].tick, rows[-1].tick
    wanted = first - 1 if start is None else read_tick(start, first, "--from")
    until = last if end is None else read_tick(end, max(wanted, 0), "--to")
    if wanted > last:
        raise ExportError(f"--from: tick {wanted} is after the journal's last input, {last}")
    if until < wanted:
        raise ExportError(f"--to: tick {until} is before the start, tick {wanted}")
    try:
        candidates, moved = _candidates(store, rows, wanted)
        # The latest candidate nearly always passes the thorough check too; each one that
        # does not costs another replay.
        for origin in reversed(candidates):
            writer = _Writer(store, url, rows, origin, until)
            text = writer.text()
            if text is not None:
                return Stretch(text, origin, until, moved)
            moved = writer.refused
    except UnknownInput as error:
        raise ExportError(str(error)) from None
    raise AssertionError("the tick before the first input always qualifies")


def _candidates(store: Store, rows: list[JournalRow], wanted: int) -> tuple[list[int], str | None]:
    """The ticks at or before ``wanted`` where nothing is busy (the cheap check, at the end of
    each gap between inputs), in order, and why ``wanted`` itself is not one (None when it is).
    The first, before any input, always qualifies."""
    replay = JournalReplay(store)
    ticks = [min(rows[0].tick - 1, wanted)]
    reason: str | None = None
    index = 0
    while index < len(rows) and rows[index].tick <= wanted:
        tick = rows[index].tick
        while index < len(rows) and rows[index].tick == tick:
            replay.apply(rows[index])
            index += 1
        following = rows[index].tick if index < len(rows) else None
        candidate = _gap_end(replay.engine, following, wanted)
        if candidate < tick:
            continue
        reason = busy(replay.engine, replay.live.pending)
        if reason is None:
            ticks.append(candidate)
    if ticks[-1] == wanted:
        reason = None
    elif reason is None:
        reason = "a run falls due before it"
    return ticks, reason


def _gap_end(engine: Engine, following: int | None, wanted: int) -> int:
    """The last tick before the next row or the next run falling due, at most ``wanted``."""
    ends = [wanted]
    if following is not None:
        ends.append(following - 1)
    due = engine.query.next_due()
    if due is not None:
        ends.append(due - 1)
    return min(ends)


class _Writer:
    """Replays the journal again to the start, then writes the scenario."""

    def __init__(self, store: Store, url: str, rows: list[JournalRow], start: int, end: int):
        self.store, self.url, self.rows = store, url, rows
        self.start, self.end = start, end
        self.lines: list[str] = []
        self.refused: str | None = None
        """Why the start does not qualify, when :meth:`text` found that it does not."""

    def text(self) -> str | None:
        """The scenario, or None if something is in flight at the start after all."""
        replay = JournalReplay(self.store)
        stretch = []
        for row in self.rows:
            if row.tick <= self.start:
                replay.apply(row)
            elif row.tick <= self.end:
                stretch.append(row)
        replay.finish(self.start)
        engine = replay.engine
        self.refused = in_flight(engine, self.start)
        if self.refused is not None:
            return None
        self._head(engine, replay.words)
        self._setup(engine)
        live = replay.live
        for row in stretch:
            pausable = replay.pausable() if row.verb == DOWNTIME else []
            stale = KEPT in row.args and not live.is_first_kept(row.verb, row.args)
            result = replay.apply(row)
            if result is not None and not stale:
                self._row(row, result.outcome.name.lower(), pausable)
            for kept in live.kept_applied:
                self._kept(row.tick, kept)
        return "\n".join(self.lines) + "\n"

    def _head(self, engine: Engine, words: int) -> None:
        start, end = _iso(self.start), _iso(self.end)
        self.lines += [
            f"# Exported by cronlapse export --scenario from {self.url}.",
            "# Ticks are the service's: Unix seconds (UTC). The jobs and workers are as they were",
            f"# at tick {self.start} ({start}); the timeline is the journal's inputs up to tick",
            f"# {self.end} ({end}), each with the answer the service gave.",
            f"scenario: {flow(f'service journal {start} to {end}')}",
            "description: "
            + flow(
                f"The journal of {self.url} from tick {self.start} to {self.end}; "
                "a headless run reproduces the service's events of that stretch."
            ),
            f"clock: {{timezone: UTC, tick: 1, until: {self.end}}}",
            f"policy: {flow(SCENARIO_POLICY)}",
            f"seed: {engine.seed}",
            f"seed_skip: {words}",
            "timeline_phase: after_dispatch",
        ]

    def _setup(self, engine: Engine) -> None:
        workers = list(engine.query.workers().values())
        self.lines.append("workers: " + flow([worker.worker_id for worker in workers]))
        self.lines.append("timeline:")
        for worker in workers:
            if worker.state is WorkerState.DRAINING:
                self._entry(self.start, "drain", {"worker": worker.worker_id}, "ok")
            elif worker.state is WorkerState.DOWN:
                self._entry(self.start, "down", {"worker": worker.worker_id}, "ok")
        jobs = engine.query.jobs().values()
        kept = {job.job_id for job in jobs if _to_come(job)}
        never = self.end + 1
        for job in sorted(jobs, key=lambda job: job.submission):
            if job.job_id in kept:
                self._entry(self.start, "schedule", _job_keys(job, job.next_due, kept), "created")
                continue
            # Finished or deleted: the job still answers (and its id is taken) as in the
            # service, with one run past the end that is cancelled at once (or deleted).
            self._entry(self.start, "schedule", _job_keys(job, never, kept), "created")
            if job.deleted:
                self._entry(self.start, "delete", {"job": job.job_id}, "ok")
            else:
                self._entry(self.start, "cancel", {"job": job.job_id, "scheduled": never}, "ok")

    def _row(self, row: JournalRow, answer: str, pausable: list[str]) -> None:
        if row.verb == CLOCK:
            return
        if row.verb == DOWNTIME:
            since = max(int(row.args["since"]), self.start)
            for job_id in pausable:
                self._entry(since, "pause", {"job": job_id}, "ok")
            for job_id in pausable:
                self._entry(row.tick, "resume", {"job": job_id}, "ok")
            return
        if AFTER_RUN in row.args:  # kept by the service for a run's end: its own row applies it
            return
        self._command(row.tick, row.verb, row.args, answer)

    def _kept(self, tick: int, kept: KeptApplied) -> None:
        """A change kept for a run's end, which the report of that end applied."""
        if kept.before_dispatch:
            self.lines.append(
                "  # The service applied the next change between the run's end and the start of"
                " the job's next run, where a scenario's command cannot be: here it is refused."
            )
        self._command(tick, kept.verb, kept.args, kept.result.outcome.name.lower())

    def _command(self, tick: int, verb: str, given: dict, answer: str) -> None:
        args = {key: value for key, value in given.items() if key not in (RUN_KEY, KEPT)}
        if verb == "modify" and set(args) == {"job"}:
            return
        if verb == "modify" and "timezone" not in args and args.keys() & set(SCHEDULE_KEYS):
            # The service read a schedule naming no zone in its clock's (UTC), as it journaled
            # it before a modify kept the job's zone; a scenario reads it in the job's zone.
            args["timezone"] = "UTC"
        self._entry(tick, verb, args, answer)

    def _entry(self, tick: int, verb: str, args: dict, answer: str) -> None:
        self.lines.append(f"  - {flow({'at': tick, verb: args, 'expect': answer})}")


def _to_come(job: Job) -> bool:
    return not job.deleted and job.next_due is not None


def _calendar_keys(schedule: Schedule) -> dict[str, object]:
    """A calendar schedule in a scenario's keys: ``cron`` (one expression or a list), with the
    one more run a union holds (``first``), a repeat after each run (``repeat``) and its rule at
    DST changes (``dst``, unless cron's), as :mod:`engine.scenario.schedule_keys` reads them."""
    keys: dict[str, object] = {}
    if isinstance(schedule, Repeating):
        keys = _calendar_keys(schedule.anchors)
        keys["repeat"] = schedule.interval
        return keys
    parts = schedule.parts if isinstance(schedule, AnyOf) else (schedule,)
    crons = [part for part in parts if isinstance(part, CronSchedule)]
    expressions = [cron.expression for cron in crons]
    keys["cron"] = expressions[0] if len(expressions) == 1 else expressions
    if crons[0].dst is not DstRule.CRON:  # one ``dst`` key gave every expression its rule
        keys["dst"] = crons[0].dst.value
    extra = [part.at for part in parts if isinstance(part, Once)]
    if extra:
        keys["first"] = extra[0]
    return keys


def _job_keys(job: Job, first: int | None, kept: set[str]) -> dict[str, object]:
    """The job's definition in a scenario's keys, its schedule read from ``first`` on (a
    finished job's: a one-time run there)."""
    spec = job.spec
    keys: dict[str, object] = {"id": spec.job_id}
    schedule = spec.schedule
    if isinstance(schedule, Once) or job.job_id not in kept:
        keys["at"] = first
    elif isinstance(schedule, Every):
        keys.update(every=schedule.interval, first=first)
    elif isinstance(schedule, CronSchedule | AnyOf | Repeating):
        keys.update(_calendar_keys(schedule))
        clock = calendar_clock(schedule)
        if clock is not None and clock.zone.key != "UTC":
            keys["timezone"] = clock.zone.key
    if spec.priority:
        keys["priority"] = spec.priority
    if spec.max_attempts != 1:
        keys["max_attempts"] = spec.max_attempts
    if spec.timeout is not None:
        keys["timeout"] = spec.timeout
    if spec.backoff is not None:
        backoff = spec.backoff
        keys["backoff"] = {"kind": backoff.kind.value, "base": backoff.base}
        if backoff.cap is not None:
            keys["backoff"]["cap"] = backoff.cap  # type: ignore[index]
        keys["backoff"]["jitter"] = backoff.jitter.value  # type: ignore[index]
    if spec.payload is not None:
        keys["payload"] = spec.payload
    if spec.notify:
        keys["notify"] = [
            {
                "on": sorted(on.value for on in item.on),
                "channel": item.channel.value,
                "to": item.target,
            }
            for item in spec.notify
        ]
    keys["catch_up"] = spec.catch_up.value
    depends = [job_id for job_id in spec.depends_on if job_id in kept]
    if depends:
        keys["depends_on"] = depends
    return keys


def _iso(tick: int, clock: Clock = ENGINE_CLOCK) -> str:
    return clock.to_datetime(tick).strftime("%Y-%m-%dT%H:%M:%SZ")
