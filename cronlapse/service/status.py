"""``cronlapse status --db URL``: what a service's database says, for the people who run it.

Read-only, and safe while a server runs on the database (SQLite's WAL mode lets a reader see the
last committed rows without blocking the writer): the state is rebuilt as a restart rebuilds it
(the latest snapshot, then the rows after it) in this process, and nothing is written back.

It shows jobs by seed 003's status words (:mod:`engine.query.status_words`), the workers, the
notification outbox (queued, delivered, dead: the engine's notifications), the oldest run that
waits for a worker, the journal's size and the inputs set aside as dead letters
(:mod:`cronlapse.service.store.dead_letters`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from cronlapse.service.journal_replay import JournalReplay, open_journal
from cronlapse.service.live import LiveState
from cronlapse.service.store import DeadLetter, Store
from cronlapse.service.views import PAST_DATES, iso, time_text, workers_json
from engine.core import Engine
from engine.model.records import OccurrenceState
from engine.parts.notifications import NotificationState
from engine.parts.ready_entry import SCHEDULED
from engine.query.status_words import STATUSES

OUTBOX_WORDS = {
    NotificationState.PENDING: "queued",
    NotificationState.DELIVERED: "delivered",
    NotificationState.DEAD: "dead",
}


@dataclass(frozen=True, slots=True)
class Waiting:
    """The oldest run that is due and waits for a worker."""

    job: str
    scheduled: int
    waited: int
    """Ticks (seconds) since it fell due, as of the last journaled input."""


@dataclass(frozen=True, slots=True)
class JournalSize:
    rows: int
    bytes: int | None
    """The database's files on disk (SQLite: the file and its WAL); None for other backends."""
    snapshot_at: int | None
    """The journal position of the latest snapshot."""


@dataclass(frozen=True, slots=True)
class Status:
    tick: int
    """The engine's tick: that of the last input journaled (a quiet server journals nothing)."""
    jobs: dict[str, int]
    workers: list[dict]
    outbox: dict[str, int]
    outbox_by_channel: dict[str, dict[str, int]]
    oldest_waiting: Waiting | None
    journal: JournalSize
    deleted_jobs: int = field(default=0)
    dead_letters: int = field(default=0)
    """Inputs set aside, neither journaled nor applied (or a journal row not applied)."""
    latest_dead_letters: list[DeadLetter] = field(default_factory=list)
    """The last :data:`DEAD_LETTERS_SHOWN` of them, newest first."""
    failing: list[Failing] = field(default_factory=list)
    """The jobs whose last attempt failed."""


DEAD_LETTERS_SHOWN = 5
FAILING_SHOWN = 10


@dataclass(frozen=True, slots=True)
class Failing:
    """A job whose last attempt failed: its word (``created`` for a recurring job whose next
    run waits) does not say so."""

    job: str
    failed: int
    """When the attempt failed (the tick its run failed for good, or its attempt ended)."""
    now: str
    """What the job does now: ``retrying``, ``running again``, ``next run at ...`` or ``no run
    to come``."""


def failing_jobs(state: LiveState) -> list[Failing]:
    """The jobs whose last attempt failed, by job id: those whose run waits for a retry, and
    those whose last run failed for good after their last success."""
    engine = state.engine
    query = engine.query
    retrying: dict[str, int] = {}
    for job_id, scheduled in query.record_keys(OccurrenceState.RETRY_PENDING):
        record = query.record(job_id, scheduled)
        ended = [a.ended for a in record.attempts if a.ended is not None] if record else []
        retrying[job_id] = max([retrying.get(job_id, 0), *ended])
    failed = {
        job_id: tick
        for job_id, tick in state.last_failure.items()
        if tick > state.last_success.get(job_id, -1) and job_id not in retrying
    }
    failing = []
    for job_id, tick in sorted((retrying | failed).items()):
        job = query.live_job(job_id)
        if job is None:
            continue
        if job_id in retrying:
            now = "retrying"
        elif query.job_word(job_id) == "running":
            now = "running again"
        elif job.next_due is not None:
            now = f"next run at {time_text(job.next_due)}"
        else:
            now = "no run to come"
        failing.append(Failing(job_id, tick, now))
    return failing


def oldest_waiting(engine: Engine) -> Waiting | None:
    """The earliest-scheduled run that is due and waits for a worker: a job's implicit front or
    a created run that is QUEUED (a retry waits for its backoff first, not for a worker)."""
    scheduled: list[tuple[int, str]] = [
        (job.front[SCHEDULED], job.job_id)
        for job in engine.query.jobs().values()
        if job.front is not None and not job.deleted
    ]
    queued = engine.query.record_keys(OccurrenceState.QUEUED)
    scheduled += [(tick, job_id) for job_id, tick in queued]
    if not scheduled:
        return None
    tick, job_id = min(scheduled)
    return Waiting(job_id, tick, engine.now - tick)


def outbox_counts(engine: Engine) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """Notifications by outcome, in total and by channel."""
    total = dict.fromkeys(OUTBOX_WORDS.values(), 0)
    by_channel: dict[str, dict[str, int]] = {}
    for notification in engine.query.notifications().values():
        word = OUTBOX_WORDS[notification.state]
        total[word] += 1
        channel = by_channel.setdefault(notification.channel, dict.fromkeys(total, 0))
        channel[word] += 1
    return total, by_channel


def read_status(url: str) -> Status:
    """The status of the service database at ``url``
    (:class:`~cronlapse.service.store.NoJournal` if there is none)."""
    store = open_journal(url)
    try:
        return status_of(store)
    finally:
        store.close()


def status_of(store: Store) -> Status:
    """The status of the service whose journal ``store`` holds, as a restart rebuilds it."""
    state = JournalReplay.latest(store).live.state
    engine = state.engine
    jobs = dict.fromkeys(STATUSES, 0)
    deleted = 0
    for job in engine.query.jobs().values():
        word = engine.query.job_word(job.job_id)
        if word is None:
            deleted += 1
        else:
            jobs[word] += 1
    outbox, by_channel = outbox_counts(engine)
    return Status(
        tick=engine.now,
        jobs=jobs,
        workers=workers_json(engine),
        outbox=outbox,
        outbox_by_channel=by_channel,
        oldest_waiting=oldest_waiting(engine),
        journal=_size(store),
        deleted_jobs=deleted,
        dead_letters=store.dead_letters.count(),
        latest_dead_letters=store.dead_letters.latest(DEAD_LETTERS_SHOWN),
        failing=failing_jobs(state),
    )


def _size(store: Store) -> JournalSize:
    journal = store.journal
    return JournalSize(journal.count(), journal.size_on_disk(), journal.latest_snapshot_seq())


def status_json(status: Status) -> str:
    return json.dumps(asdict(status), indent=2) + "\n"


def status_text(status: Status) -> str:
    """The status for a terminal: a few aligned sections."""
    named = iso(status.tick) or PAST_DATES
    lines = [f"tick {status.tick} ({named}), as of the last journaled input", ""]
    jobs = ", ".join(f"{count} {word}" for word, count in status.jobs.items())
    lines.append(f"jobs      {sum(status.jobs.values())}: {jobs}")
    if status.deleted_jobs:
        lines.append(f"          {status.deleted_jobs} deleted (their ids stay taken)")
    lines.append(f"workers   {len(status.workers)}")
    for worker in status.workers:
        running = worker["running"]
        doing = (
            ""
            if running is None
            else f"  {running['job']}@{running['scheduled'] or PAST_DATES} "
            f"attempt {running['attempt']}"
        )
        lines.append(f"  {worker['id']:<8}{worker['state']:<10}{doing}".rstrip())
    outbox = ", ".join(f"{count} {word}" for word, count in status.outbox.items())
    lines.append(f"outbox    {outbox}")
    for channel, counts in sorted(status.outbox_by_channel.items()):
        lines.append(f"  {channel:<8}" + ", ".join(f"{n} {word}" for word, n in counts.items()))
    lines += _failing(status.failing)
    waiting = status.oldest_waiting
    if waiting is None:
        lines.append("waiting   no run waits for a worker")
    else:
        oldest = f"{waiting.job}@{time_text(waiting.scheduled)}"
        lines.append(f"waiting   oldest: {oldest}, waiting {waiting.waited} s")
    size = status.journal
    on_disk = "" if size.bytes is None else f", {size.bytes:,} bytes on disk"
    snapshot = "none" if size.snapshot_at is None else f"at row {size.snapshot_at}"
    lines.append(f"journal   {size.rows:,} rows{on_disk}; latest snapshot {snapshot}")
    lines += _dead_letters(status)
    return "\n".join(lines) + "\n"


def _failing(failing: list[Failing]) -> list[str]:
    """The failing line, and one per job (the first :data:`FAILING_SHOWN`)."""
    if not failing:
        return ["failing   no job's last attempt failed"]
    lines = [f"failing   {len(failing)} job(s) whose last attempt failed:"]
    for job in failing[:FAILING_SHOWN]:
        lines.append(f"  {job.job:<8}  failed at {time_text(job.failed)}; {job.now}")
    if len(failing) > FAILING_SHOWN:
        lines.append(f"  and {len(failing) - FAILING_SHOWN} more (--json lists them all)")
    return lines


def _dead_letters(status: Status) -> list[str]:
    """The dead letters' line, and one per letter of the latest."""
    if not status.dead_letters:
        return ["dead      no input set aside"]
    lines = [f"dead      {status.dead_letters} input(s) set aside, not applied; the latest:"]
    for letter in status.latest_dead_letters:
        where = "" if letter.journal_seq is None else f" (journal row {letter.journal_seq})"
        lines.append(f"  {letter.verb} {letter.args}{where}: {letter.why.value}, {letter.reason}")
    return lines
