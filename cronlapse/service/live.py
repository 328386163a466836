"""The live engine: the one scheduling engine, driven by journaled inputs and a live clock.

The engine is deterministic, so its state is a function of its inputs; the service keeps the
inputs. Each input (an API command, an executor's report, a clock reading) is committed to the
journal with the tick it applies at before its request is answered, through the one write path
(:mod:`cronlapse.service.write_path`: journaled, then applied; the active scheduler applies a
batch first and commits it with what it publishes). Every input is applied at its tick in the
``AFTER_DISPATCH`` phase
through the engine's :class:`~engine.play.ticks.TickDriver` (the one tick driver): time is first
played up to the tick, then the command runs, then the tick settles again. Replaying the rows in
order therefore rebuilds the same state, which is what a restart does (:meth:`LiveService.open`):
latest snapshot, then the rows after it.

What the service keeps beside the engine (in :class:`LiveState`, snapshotted with it): each job's
executor name, the jobs in submission order (for cursor paging) and each job's recently touched
runs (read from the engine's events, which are then dropped: a server runs for months, and
nothing rewinds it).

Catch-up after downtime. Runs that fell due while the server was down are the job's ``catch_up``
business (``skip``, ``latest`` or ``all``; the service's default is ``latest``). A restart whose
clock is more than ``misfire_grace`` ticks past the engine's journals one ``downtime`` input:
every job with runs to come is paused at the tick the engine had reached and resumed at the
restart's tick, where the engine's resume applies the job's ``catch_up`` rule. Within the grace,
missed runs simply run late, in order. (APScheduler's ``misfire_grace_time`` and ``coalesce`` are
the reference; ``latest`` is its ``coalesce=True``.)
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import pickle
import zlib
from array import array
from collections.abc import Callable, Iterator
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, NoReturn, Protocol, TypeVar

from cronlapse.service.clock import LiveClock
from cronlapse.service.codec import (
    AFTER_RUN,
    CLOCK,
    DOWNTIME,
    KEPT,
    Decoded,
    InputInvalid,
    with_field,
)
from cronlapse.service.config import Config
from cronlapse.service.store import (
    PHASE,
    SERVICE_POLICY,
    DeadLetter,
    JournalReader,
    JournalRow,
    Publication,
    RowUnreadable,
    Snapshot,
    SnapshotUnreadable,
    Store,
    Why,
    downtime_commands,
    pausable_jobs,
    read_row,
)
from cronlapse.service.stored_inputs import decode
from cronlapse.service.views import RECENT_RUNS, run_view
from cronlapse.service.write_path import Input, ascii_json, write_now
from engine.core import Engine
from engine.model import events as ev
from engine.model.commands import Command, Outcome, Result, refused
from engine.model.digits import is_digits
from engine.model.problems import Code
from engine.model.records import Occurrence
from engine.parts.notifications import NotificationKey, NotificationState
from engine.play.ticks import TickDriver, TimedCommand

log = logging.getLogger("cronlapse.serve")
T = TypeVar("T")

_OK = Result(Outcome.OK)
_REPORT = "complete"
"""The verb of an attempt's end, reported by its executor or worker process."""
DIVERGED_EXIT = 4
"""The exit status of a scheduler whose applied inputs could not be journaled."""
SNAPSHOT_FLOOR = 500
"""The fewest journal rows between two snapshots (but for a smaller ``snapshot_every``): below
that, a snapshot costs more than the replay it saves (a restart imports for about 0.15 s; 500
rows replay in about 0.015 s)."""


class BackgroundWriter(Protocol):
    def busy(self) -> bool:
        """Whether a snapshot is still being written."""
        ...

    def start(self, state: LiveState) -> bool:
        """Begin writing a snapshot of ``state``; False if one is still being written."""
        ...

    def wait(self) -> None:
        """Until the snapshot being written, if any, is written."""
        ...


class Publisher(Protocol):
    """What the active scheduler writes with its journal rows
    (:mod:`cronlapse.service.roles.publish`): the read model, the inbox's answers and the due
    notices, in the journal's own transaction."""

    def applied(self, verb: str, args: dict) -> None:
        """An input was applied (and will be journaled with the next write)."""
        ...

    def publication(self, answers: dict[int, str]) -> Publication:
        """What changed since the last write, with ``answers`` (inbox row -> answer): written
        with the next journal rows (called where the commit runs, off the event loop)."""
        ...

    def stale(self) -> bool:
        """Whether time alone, with no input, changed what was published (an idle scheduler's
        time follows the clock without a journal row): then a write without rows publishes it."""
        ...


@dataclass
class LiveState:
    """Everything a snapshot holds: the driver (and its engine) and the service's own indexes."""

    driver: TickDriver
    seq: int = 0
    """The last journal row applied."""
    runs: dict[str, str] = field(default_factory=dict)
    """Each job's executor name (jobs without one use noop)."""
    order: list[str] = field(default_factory=list)
    """Job ids in submission order: a cursor is a position in it."""
    recent: dict[str, dict[int, None]] = field(default_factory=dict)
    """Each job's recently touched runs (scheduled ticks), oldest first, but those a snapshot
    wrote to the store (finished): a job's detail reads its latest finished runs there."""
    last_success: dict[str, int] = field(default_factory=dict)
    """The tick each job's last run succeeded at, for alerting (``GET /job/{id}``,
    ``/metrics``): read from the engine's events, so it outlives the runs it names."""
    last_failure: dict[str, int] = field(default_factory=dict)
    """The tick each job's last run failed for good at (retries exhausted, or none)."""
    kept: dict[str, list[tuple[str, dict]]] = field(default_factory=dict)
    """Each job's changes asked for ``after_run`` while a run of it ran, in order: each verb
    and its arguments, applied one by one once no run of the job runs (by the server, as rows
    of their own: :data:`~cronlapse.service.codec.KEPT`)."""
    finished: list[Occurrence] | None = None
    """The runs the engine archived since the last snapshot, as it archived them (the list the
    engine appends to: ``engine.query.follow_archive``, pickled with it): written to the store's
    history before the next snapshot (:meth:`LiveService.keep_history`), which may let the engine
    forget them. None in a snapshot an older cronlapse wrote (:func:`following_archive`)."""

    def __getstate__(self) -> dict:
        """The fields, but the last success and failure times packed: each job's position in
        :attr:`order` and its tick, in the order they were set, compressed (a few bytes a job,
        where a reference to the job's id and a tick were ten); as they are if a job is not in
        the order (never seen)."""
        saved = dict(self.__dict__)
        positions = {job_id: at for at, job_id in enumerate(self.order)}
        for name in _PACKED_TIMES:
            times = saved.get(name)
            if times is not None and all(job_id in positions for job_id in times):
                del saved[name]
                saved[f"{name}_packed"] = _pack_times(times, positions)
        return saved

    def __setstate__(self, saved: dict) -> None:
        """A snapshot written before a field existed (an older cronlapse) gets the field's
        default, rather than failing on its first read; one written before the last times were
        packed has them as they were."""
        saved = dict(saved)
        for name in _PACKED_TIMES:
            packed = saved.pop(f"{name}_packed", None)
            if packed is not None:
                saved[name] = _unpack_times(packed, saved["order"])
        missing = {
            item.name: item.default if item.default_factory is MISSING else item.default_factory()
            for item in fields(self)
            if item.name not in saved
            and (item.default is not MISSING or item.default_factory is not MISSING)
        }
        self.__dict__.update(missing | saved)

    @property
    def engine(self) -> Engine:
        return self.driver.engine


_PACKED_TIMES = ("last_success", "last_failure")


def _pack_times(times: dict[str, int], positions: dict[str, int]) -> bytes:
    """``times`` as positions in submission order then ticks, in their order, compressed."""
    columns = array("q", (positions[job_id] for job_id in times))
    columns.extend(times.values())
    return zlib.compress(columns.tobytes())


def _unpack_times(packed: bytes, order: list[str]) -> dict[str, int]:
    columns = array("q")
    columns.frombytes(zlib.decompress(packed))
    half = len(columns) // 2
    ticks: dict[int, int] = {}  # one int object a tick, not a job: jobs share their times
    return {
        order[at]: ticks.setdefault(tick, tick)
        for at, tick in zip(columns[:half], columns[half:], strict=True)
    }


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while (un)pickling: a snapshot is hundreds of thousands of
    objects, and the collector would walk them again and again as they are made (5x slower)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _refused_while_running(result: Result) -> bool:
    """The engine refused a change because a run of the job is running (again): a kept change
    then stays kept, first, until that run ends too."""
    problem = result.problem
    return problem is not None and problem.code is Code.ATTEMPT_RUNNING


def _has_waiting_run(engine: Engine, job_id: str) -> bool:
    """Whether a run of the job waits (open, or due without a record yet): the next dispatch
    may start it."""
    job = engine.query.live_job(job_id)
    if job is None:
        return False
    return bool(job.open) or engine.query.implicit_front(job_id) is not None


@dataclass(frozen=True, slots=True)
class KeptApplied:
    """A kept change the last input applied (read by ``cronlapse export --scenario``, which
    writes it as a command of its own)."""

    verb: str
    args: dict
    result: Result
    before_dispatch: bool
    """Applied between the run's end and the tick's dispatch, where a scenario's command
    cannot be."""


def is_local_slot(worker_id: str) -> bool:
    """Whether a worker slot is the server's own (``w1``, ``w2``: the config's ``workers``), not
    a slot of a ``cronlapse worker`` process (``NAME/1``), whose attempts that process runs."""
    return worker_id[:1] == "w" and is_digits(worker_id[1:])


def fresh_state() -> LiveState:
    """A new service's state. Its engine archives: a run that is final leaves the live tables
    for the engine's compact run archive (:mod:`engine.parts.run_archive`), which the query API
    reads as before, so the live structures every input walks hold live work only, however long
    the server runs. Before each snapshot the finished runs are written to the store and the
    engine forgets them (:meth:`LiveService.before_snapshot`). Nothing rewinds the service's
    engine: the live dashboard replays the journal into an engine of its own."""
    return following_archive(LiveState(TickDriver(Engine(SERVICE_POLICY, archive=True))))


def following_archive(state: LiveState) -> LiveState:
    """``state``, its :attr:`LiveState.finished` following its engine's archive. A snapshot an
    older cronlapse wrote followed nothing: every run its engine archived is then still to be
    written to the store's history."""
    if state.finished is None:
        state.finished = state.engine.query.follow_archive()
        state.finished.extend(state.engine.query.archived_records())
    return state


def snapshot_state(saved: Snapshot, journal: JournalReader) -> LiveState | None:
    """The state ``saved`` holds, or None if it does not load and the journal is whole, to be
    replayed from its start instead (:class:`SnapshotUnreadable`: a snapshot written by a version
    whose classes this one renamed or reshaped). Once the history's retention has deleted the
    rows before it, nothing else holds that state: SnapshotUnreadable, saying so."""
    try:
        return saved.load()
    except SnapshotUnreadable as error:
        if journal.compacted():
            raise SnapshotUnreadable(
                f"{error}, and the rows before it were deleted by the history's retention, so"
                " the journal cannot be replayed instead: start the version of cronlapse that"
                " wrote it"
            ) from None
        log.warning("%s: replaying the journal from its start", error)
        return None


class LiveService:
    """Applies inputs to the engine (journaled through :mod:`cronlapse.service.write_path`),
    replays them on open, and keeps snapshots."""

    def __init__(self, store: Store, clock: LiveClock, config: Config) -> None:
        self.store = store
        self.clock = clock
        self.config = config
        self.state = fresh_state()
        self.service = ""
        """The database's service id, which marks this server's executors (set by the server
        at start: :mod:`cronlapse.service.orphans`; empty: unmarked)."""
        self.unsnapshotted = 0
        self.serving = False
        """Whether the journal is taken over (:meth:`take_over`): until then no snapshot is
        taken, however many rows the replay counted, so a restart serves first and snapshots
        after, in the background when it can (a snapshot pickled in line was a seventh of a
        restart with 20,000 jobs)."""
        self.on_change: Callable[[], None] = lambda: None
        """Called after every applied input (the executors start and stop attempts)."""
        self.on_events: list[Callable[[ev.EventLog], None]] = []
        """Given the engine's new events after every applied input, before they are dropped
        (structured logs, metrics); attached once the journal is replayed."""
        self.background: BackgroundWriter | None = None
        """Writes snapshots without stopping the server (:mod:`cronlapse.service.snapshots`); None:
        the snapshot is written in line."""
        self.kept_applied: list[KeptApplied] = []
        """The kept changes the last input applied (:meth:`_end_attempt`)."""
        self.pending: dict[NotificationKey, None] = {}
        """The outbox's PENDING notifications (kept from the engine's events), so finding the
        ones due costs their number, not the whole outbox's."""
        self.publisher: Publisher | None = None
        """The active scheduler's read model, inbox answers and due notices. When set, an input
        is applied first and journaled with what it changed in one transaction (a failed commit
        ends the process: its engine is ahead of its journal); otherwise it is journaled, then
        applied (:mod:`cronlapse.service.write_path`)."""
        self.unjournaled = False
        """Whether the engine holds inputs the journal does not hold yet: the active scheduler's,
        from a batch's application to its commit (one batch at a time: the group commit's)."""
        self.reads_waiting: list[tuple[Callable[[], Any], asyncio.Future[Any]]] = []
        """Reads waiting for the journal to hold what the engine holds (:meth:`as_journaled`)."""

    @property
    def engine(self) -> Engine:
        return self.state.engine

    # ------------------------------------------------------------------ start

    def open(self) -> int:
        """Load the latest snapshot, replay the journal after it, catch up on downtime and match
        the configured worker slots; returns the number of rows replayed."""
        self.load_snapshot()
        return self.take_over()

    def take_over(self) -> int:
        """Replay the journal's rows not applied yet, catch up on downtime and match the
        configured worker slots: from here on this service journals; returns the rows
        replayed."""
        replayed = self.replay()
        if self.publisher is not None:  # the read model as of this row, checked at election
            write_now(self, [], publish_empty=True)
        # Everything loaded so far lives as long as the server: the cycle collector need not
        # walk it again on every full collection (seconds, once a server has months of runs).
        gc.freeze()
        self._catch_up()
        self._lose_running()
        self._match_workers()
        self.serving = True
        return replayed

    def load_snapshot(self) -> None:
        """Start from the latest snapshot, if there is one and its engine archives its finished
        runs. One that keeps them (written before the service's engine archived) would keep the
        state growing with the history for the life of the database: the journal is replayed
        from its start instead, once, and the next snapshot archives."""
        saved = self.store.journal.latest_snapshot()
        state = None if saved is None else snapshot_state(saved, self.store.journal)
        if state is not None:
            if state.engine.archives or self.store.journal.compacted():
                self.state = following_archive(state)
            else:
                log.info("the latest snapshot keeps every finished run: replaying the journal")
        self.pending = {
            key: None
            for key, notification in self.engine.query.notifications().items()
            if notification.state is NotificationState.PENDING
        }

    def replay(self) -> int:
        """Apply the journal's rows after the state's position; writes nothing. A standby
        scheduler calls it again and again to follow the active one's journal
        (:mod:`cronlapse.service.roles.scheduler`); one left behind the rows the history's
        retention deleted starts again from the latest snapshot."""
        if self.state.seq < self.store.journal.compacted():
            self.load_snapshot()
        replayed = 0
        for row in self.store.journal.rows_after(self.state.seq):
            try:
                self.apply_row(row)
            except RowUnreadable as error:
                log.warning("journal row %d no longer reads (%s): skipped", row.seq, error)
            except Exception as failure:  # a defect: the row is set aside, the replay goes on
                self.state.seq = row.seq
                reason = f"applying it failed: {failure.__class__.__name__}: {failure}"
                args = ascii_json(row.args)
                self.set_aside([DeadLetter(Why.UNAPPLIED, row.verb, args, reason, row.seq)])
            replayed += 1
        self.unsnapshotted += replayed
        return replayed

    def apply_row(self, row: JournalRow) -> Result:
        """Apply a row the journal holds, as it was applied live, and move the state's position
        to it; :class:`RowUnreadable` (the position moves, nothing is applied) when it no longer
        reads."""
        try:
            decoded = read_row(row)
        except RowUnreadable:
            self.state.seq = row.seq
            raise
        result = self.apply(row.tick, row.verb, row.args, decoded)
        self.state.seq = row.seq
        return result

    def set_aside(self, letters: list[DeadLetter]) -> None:
        """Keep ``letters`` in the store's dead letters and say so; a store that cannot keep
        them is logged, and nothing else stops (the input is not journaled either way)."""
        for letter in letters:
            log.error(
                "%s input %s set aside as a dead letter: %s",
                letter.why.value,
                letter.verb,
                letter.reason,
            )
        try:
            self.store.dead_letters.add(letters)
        except Exception:
            log.exception("the dead letters could not be kept")

    def _lose_running(self) -> None:
        """The attempts running on the server's own slots are a previous process's: their
        executors were stopped with it (or, left running by a kill, before this start:
        :mod:`cronlapse.service.orphans`), and what they did is unknown. Each slot goes down
        and up again, so the engine records its attempt LOST and retries it at once under the
        run's idempotency key, as for a crashed worker; a lost attempt does not count against
        the run's retries."""
        slots = sorted(
            worker_id
            for worker_id, worker in self.engine.query.workers().items()
            if worker.running is not None and is_local_slot(worker_id)
        )
        if slots:
            inputs = [Input(verb, {"worker": slot}) for slot in slots for verb in ("down", "up")]
            for answer in write_now(self, inputs):
                if isinstance(answer, BaseException):
                    raise answer

    def _catch_up(self) -> None:
        since, now = self.engine.now, self.clock.now()
        if now - since > self.config.misfire_grace and pausable_jobs(self.engine):
            self._write(Input(DOWNTIME, {"since": since}))

    def _match_workers(self) -> None:
        workers = self.engine.query.workers()
        wanted = [f"w{number}" for number in range(1, self.config.workers + 1)]
        for worker_id in wanted:
            if worker_id not in workers:
                self.submit("register", {"worker": worker_id})
        for worker_id, worker in list(workers.items()):
            if not is_local_slot(worker_id) or worker_id in wanted:
                continue
            if not (worker.draining or worker.down):
                self.submit("drain", {"worker": worker_id})

    # ----------------------------------------------------------------- inputs

    def now(self) -> int:
        """The tick an input given now applies at: the clock's, never before the engine's."""
        return max(self.clock.now(), self.engine.now)

    def submit(self, verb: str, args: dict) -> Result:
        """Read, journal and apply one input now; :class:`InputInvalid` journals nothing."""
        answer = self._write(Input(verb, args))
        assert answer is not None
        return answer

    def _write(self, given: Input) -> Result | None:
        (answer,) = write_now(self, [given])
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def read(self, verb: str, args: dict, tick: int) -> Decoded | None:
        """What an input does at ``tick`` (None for a clock reading or a downtime, whose
        effect depends on the state); :class:`InputInvalid`."""
        return decode(verb, args, tick)

    def clock_due(self) -> int | None:
        """The clock's tick if the engine has something to do by then (a reading to journal)."""
        engine = self.engine
        tick = self.clock.now()
        upcoming = engine.next_event_tick()
        if tick <= engine.now or upcoming is None or upcoming > tick:
            return None
        return tick

    def follow_clock(self) -> None:
        """Move the engine's time to the clock's when it has nothing to do on the way: nothing
        happens but the time, so nothing is journaled, and a replay, whose time moves only with
        the rows, builds the same state. Reads then say what the time says (a run's word turns
        from ``created`` to ``scheduled`` as its time nears; ``/health`` gives the clock's
        tick): they only moved with inputs. Only between batches: a batch on its way applies
        at the tick it was read at."""
        tick = self.clock.now()
        upcoming = self.engine.next_event_tick()
        if tick > self.engine.now and (upcoming is None or upcoming > tick):
            self.play_through(tick)

    def advance_clock(self) -> bool:
        """Journal and apply a clock reading if the engine has something to do by now."""
        return self._write(Input(CLOCK, {})) is not None

    def apply_committed(
        self, seq: int, tick: int, verb: str, args: dict, decoded: Decoded | None
    ) -> Result:
        """Apply an input the journal holds at position ``seq`` (committed: never before)."""
        result = self.apply(tick, verb, args, decoded)
        self.settle(seq, 1)
        return result

    def apply_uncommitted(
        self, tick: int, verb: str, args: dict, decoded: Decoded | None
    ) -> Result:
        """Apply an input the batch journals next, with what it changed (publisher set)."""
        assert self.publisher is not None
        self.unjournaled = True
        result = self.apply(tick, verb, args, decoded)
        self.publisher.applied(verb, args)
        return result

    def diverged(self, error: BaseException) -> NoReturn:
        """Applied inputs could not be journaled: this engine is ahead of the journal. Exit, so
        that a standby (or a restart) replays the journal and nothing unjournaled is served."""
        log.critical("applied inputs could not be journaled (%s): exiting", error)
        os._exit(DIVERGED_EXIT)

    def settle(self, seq: int, applied: int) -> None:
        """``applied`` inputs, up to journal position ``seq``, are applied and journaled."""
        self.state.seq = seq
        self.unsnapshotted += applied
        self.unjournaled = False
        self._read_as_journaled()
        if self.serving and self.snapshot_due():
            self.start_snapshot()
        self.on_change()

    async def as_journaled(self, read: Callable[[], T]) -> T:
        """``read()`` of the engine as the journal holds it.

        The active scheduler applies a batch before it commits it, and the event loop goes on
        during the commit: what is read then may never be journaled (the process dies before the
        commit), and a successor replays only the journal. What leaves the process on the
        engine's word (an attempt handed to a worker process, which runs it) must be read here:
        at once when no batch is committing, else as soon as the commit is done, before the next
        batch is applied (waiting for a moment with no batch at all could last as long as the
        load does)."""
        if not self.unjournaled:
            return read()
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self.reads_waiting.append((read, future))
        return await future

    def _read_as_journaled(self) -> None:
        """Run the reads that waited for the journal to catch up with the engine (it just has)."""
        reads, self.reads_waiting = self.reads_waiting, []
        for read, future in reads:
            if future.cancelled():
                continue
            try:
                future.set_result(read())
            except Exception as failure:  # the reader's defect: its caller's, not the commit's
                future.set_exception(failure)

    def start_snapshot(self) -> None:
        """Take a snapshot: in the background when a writer is attached (unless it still writes
        the last one: the next input tries again), else in line."""
        if self.background is None:
            self.snapshot()
        elif not self.background.busy():
            self.before_snapshot()
            self.background.start(self.state)
            self.unsnapshotted = 0

    def snapshot_when_idle(self) -> None:
        """Between inputs, with nothing due: snapshot if the rows since the latest snapshot are
        :data:`SNAPSHOT_FLOOR` or more. A burst of inputs grows the state as fast as the rows
        (20,000 creations: the jobs rule's bound rises with them), and left up to
        ``snapshot_every`` rows for a restart to replay however long the quiet after it lasted:
        with 20,000 jobs stored, 9,500 rows, a tenth of a second more to the first run."""
        if self.serving and self.unsnapshotted >= SNAPSHOT_FLOOR:
            self.start_snapshot()

    def snapshot_due(self) -> bool:
        """Whether the rows since the latest snapshot call for another: as many as the state has
        jobs (at least :data:`SNAPSHOT_FLOOR`), or ``snapshot_every`` if that is fewer. A
        restart loads the latest snapshot, in time that follows its jobs, then replays the rows
        after it, in time that follows the rows: bounded by the jobs, the replay stays within a
        constant of the load, and the restart's time follows the live state rather than the
        moment of the kill. With ``snapshot_every`` alone, a server of 10 jobs replayed anything
        from 0 to 10,000 rows and restarted in 0.2 s or 0.5 s by chance."""
        jobs = len(self.engine.query.jobs())
        return self.unsnapshotted >= min(self.config.snapshot_every, max(SNAPSHOT_FLOOR, jobs))

    def apply(self, tick: int, verb: str, args: dict, decoded: Decoded | None) -> Result:
        """Apply one input at ``tick`` in the AFTER_DISPATCH phase, as read at that tick
        (``decoded``: None for a clock reading or a downtime): the one place where an input
        reaches the engine, live and on replay. The engine's new events then go to the
        observers and are dropped."""
        state = self.state
        driver = state.driver
        self.kept_applied = []
        if verb == CLOCK:
            driver.finish(tick)
            result = _OK
        elif verb == DOWNTIME:
            result = self._downtime(int(args["since"]), tick)
        elif decoded is not None and decoded.after_run:
            driver.reach(tick, PHASE)
            self._keep(verb, args)
            result = _OK
        else:
            assert decoded is not None
            result = self._apply_change(tick, verb, args, decoded)
        self._consume_events()
        return result

    def _apply_change(self, tick: int, verb: str, args: dict, decoded: Decoded) -> Result:
        """An API command or a report; a report of an attempt's end may end a run that changes
        were kept for (:meth:`_end_attempt`)."""
        driver = self.state.driver
        if decoded.kept and not self.is_first_kept(verb, args):
            driver.reach(tick, PHASE)
            return _OK  # applied already, by the input that ended the job's run
        if decoded.command is None:
            driver.reach(tick, PHASE)
            job = self.engine.query.job(str(args["job"]))
            ok = job is not None and not job.deleted
            message = f"no job {args['job']!r}"
            result = _OK if ok else refused(Outcome.NOT_FOUND, Code.UNKNOWN_JOB, message)
        elif self.state.kept and verb == _REPORT:
            result = self._end_attempt(tick, decoded.command)
        else:
            result = driver.apply(TimedCommand(tick, PHASE, decoded.command))
            result = self._retired(with_field(decoded.command, args, result), args)
        if result.accepted:
            self._record(verb, args, decoded)
        if decoded.kept and not _refused_while_running(result):
            self.drop_first_kept(str(args["job"]))
        return result

    def is_first_kept(self, verb: str, args: dict) -> bool:
        """Whether a ``kept`` row still names its job's first kept change (else the report
        that ended the job's run applied it: the row changes nothing)."""
        changes = self.state.kept.get(str(args["job"]))
        change = {key: value for key, value in args.items() if key != KEPT}
        return bool(changes) and changes[0] == (verb, change)

    def _retired(self, result: Result, args: dict) -> Result:
        """``result``, but a refusal of a deleted job's id says that the id is retired: "already
        exists" named a job no read shows (a deleted job's id stays taken, the journal keeping
        its history)."""
        problem = result.problem
        if problem is None or problem.code is not Code.JOB_EXISTS:
            return result
        job = self.engine.query.job(str(args.get("id")))
        if job is None or not job.deleted:
            return result
        message = (
            f"job {job.job_id!r} was deleted: its id stays retired, since the journal keeps its "
            "history; choose another id"
        )
        return refused(Outcome.CONFLICT, Code.JOB_EXISTS, message, "id")

    def _keep(self, verb: str, args: dict) -> None:
        change = {key: value for key, value in args.items() if key != AFTER_RUN}
        self.state.kept.setdefault(str(args["job"]), []).append((verb, change))

    def _end_attempt(self, tick: int, command: Command) -> Result:
        """An attempt's end, which may end the run of a job with kept changes: they apply in
        this input, in order, so that they wait for the run that was running and not for every
        run of the job (a job whose runs overlap its interval might never be free). A freed job
        whose next run waits for a slot would start it at this tick's dispatch, so its changes
        apply before it; the others' after it, as a scenario's commands after this report
        would (what ``cronlapse export --scenario`` writes). A worker's ``down`` ends no run:
        its attempt is lost and retried at once."""
        driver = self.state.driver
        driver.reach(tick, PHASE)
        result = self.engine.apply(command)
        query = self.engine.query
        freed = [job_id for job_id in self.state.kept if query.job_word(job_id) != "running"]
        waiting = {job_id for job_id in freed if _has_waiting_run(self.engine, job_id)}
        for job_id in freed:
            if job_id in waiting:
                self._apply_kept_of(tick, job_id, before_dispatch=True)
        self.engine.settle()
        for job_id in freed:
            if job_id not in waiting:
                self._apply_kept_of(tick, job_id, before_dispatch=False)
        return result

    def _apply_kept_of(self, tick: int, job_id: str, before_dispatch: bool) -> None:
        """Apply the job's kept changes, in order, and keep them no more; one that no longer
        reads (a time since passed) or applies is dropped, and said so."""
        for verb, change in self.state.kept.pop(job_id):
            try:
                decoded = self.read(verb, change, tick)
            except InputInvalid as invalid:
                log.warning("the change kept for %s no longer applies: %s", job_id, invalid)
                continue
            assert decoded is not None
            result = _OK
            if decoded.command is not None and before_dispatch:
                result = self.engine.apply(decoded.command)
            elif decoded.command is not None:
                result = self.state.driver.apply(TimedCommand(tick, PHASE, decoded.command))
            if result.accepted:
                self._record(verb, change, decoded)
            else:
                log.warning("the change kept for %s was refused: %s", job_id, result.message)
            self.kept_applied.append(KeptApplied(verb, change, result, before_dispatch))

    def drop_first_kept(self, job_id: str) -> None:
        """The job's first kept change is applied (or can never be)."""
        changes = self.state.kept.get(job_id)
        if changes:
            del changes[0]
        if not changes:
            self.state.kept.pop(job_id, None)

    def kept_due(self) -> list[tuple[str, dict]]:
        """The first kept change of each job that has one and no running run: each verb and
        its arguments as the row that applies it holds them."""
        query = self.engine.query
        return [
            (changes[0][0], {**changes[0][1], KEPT: True})
            for job_id, changes in self.state.kept.items()
            if query.job_word(job_id) != "running"
        ]

    def play_through(self, tick: int) -> None:
        """Play the engine through ``tick`` without an input (a clock reading not journaled: a
        replay that stops between rows)."""
        if tick > self.engine.now:
            self.state.driver.finish(tick)
            self._consume_events()

    def _record(self, verb: str, args: dict, decoded: Decoded) -> None:
        if verb == "schedule":
            job_id = str(args["id"])
            self.state.order.append(job_id)
            self.state.runs[job_id] = decoded.run or "noop"
        elif verb == "modify" and decoded.run is not None:
            self.state.runs[str(args["job"])] = decoded.run

    def _downtime(self, since: int, tick: int) -> Result:
        driver = self.state.driver
        for timed in downtime_commands(self.engine, since, tick):
            driver.apply(timed)
        driver.finish(tick)
        return _OK

    def _consume_events(self) -> None:
        """Hand the new events to the observers, note the runs they touched and the
        notifications queued or ended, then drop them (nothing else reads them). They are noted
        and dropped even when an observer fails: its failure is then this input's alone, where
        events kept would fail it again on every later input."""
        log_ = self.engine.log
        try:
            for observer in self.on_events:
                observer(log_)
        finally:
            self._note_and_drop(log_)

    def _note_and_drop(self, log_: ev.EventLog) -> None:
        recent = self.state.recent
        pending = self.pending
        for event in log_:
            if isinstance(event, ev.NotificationQueued):
                pending[event.key] = None
            elif isinstance(event, ev.NotificationDelivered | ev.NotificationDeadLettered):
                pending.pop(event.key, None)
            elif isinstance(event, ev.OccurrenceEvent):
                if isinstance(event, ev.AttemptSucceeded):
                    self.state.last_success[event.job_id] = event.tick
                elif isinstance(event, ev.OccurrenceFailed):
                    self.state.last_failure[event.job_id] = event.tick
                runs = recent.setdefault(event.job_id, {})
                runs.pop(event.scheduled, None)
                runs[event.scheduled] = None
                if len(runs) > RECENT_RUNS:
                    del runs[next(iter(runs))]
        log_.truncate(0)

    # -------------------------------------------------------------- snapshots

    def snapshot(self) -> None:
        """Store the whole state at the last applied row (see the store's journal on pickle), unless
        a snapshot at that row is stored already: the state is a function of the rows up to it,
        so that one holds this state (a stop after a restart with no new input, or after the
        snapshot the last input started)."""
        if self.store.journal.has_snapshot(self.state.seq):
            self.unsnapshotted = 0
            return
        self.before_snapshot()
        with collector_paused():
            state = pickle.dumps(self.state, pickle.HIGHEST_PROTOCOL)
        self.store.journal.save_snapshot(self.state.seq, state)
        self.unsnapshotted = 0

    def before_snapshot(self) -> None:
        """What a snapshot needs done first: the finished runs written to the store
        (:meth:`keep_history`), the history's retention applied
        (:meth:`forget_past_retention`), then the engine's finished runs forgotten behind now
        but what its live rules read (``Engine.forget_archived``): the snapshot holds live
        state, and a restart's time and memory follow live work, not the history."""
        self.keep_history()
        self.forget_past_retention()
        if self.engine.archives:
            self.engine.forget_archived()
            self.drop_stored_recent()

    def drop_stored_recent(self) -> None:
        """Stop naming the recent runs the store now holds (each job's finished runs, written
        before this snapshot and archived by the engine, kept or forgotten): a job's detail
        reads its latest finished runs from the store (:class:`~cronlapse.service.views.
        RecentRuns`), and the snapshot holds the runs not finished, not ten ticks a job. A
        tick the engine forgot with no run there (a run skipped by arithmetic) was shown by
        no detail: it goes too."""
        recent, query = self.state.recent, self.engine.query
        live = query.live_records()
        for job_id in list(recent):
            runs = recent[job_id]
            stored = [
                tick
                for tick in runs
                if (job_id, tick) not in live
                and (query.has_record(job_id, tick) or query.is_forgotten(job_id, tick))
            ]
            for tick in stored:
                del runs[tick]
            if not runs:
                del recent[job_id]

    def keep_history(self) -> None:
        """Write the runs finished since the last snapshot to the store's history (the read
        model's finished runs, :meth:`~cronlapse.service.store.Views.keep_finished`), in their
        answers' JSON: what reads find there (:class:`~cronlapse.service.reads.LiveReads`), the
        engine need not keep. Before a snapshot, so that one that lets the engine forget them
        never holds a state whose finished runs are nowhere else: a crash before this write
        replays them from the journal after the previous snapshot, and writes them again. The
        active scheduler's read model wrote each already, with the rows that finished it."""
        finished = self.state.finished
        if not finished or self.publisher is not None:
            self.drop_finished()
            return
        views = (run_view(self.engine, *occurrence.key) for occurrence in finished)
        self.store.views.keep_finished([view for view in views if view is not None])
        finished.clear()

    def drop_finished(self) -> None:
        """Drop the runs finished since the last snapshot without writing them: a standby
        scheduler's (the active one wrote each with its read model, in the transaction of the
        journal rows that finished it) and a reading tool's (``status``, ``export``), so that
        neither grows with the history it follows."""
        if self.state.finished:
            self.state.finished.clear()

    def forget_past_retention(self) -> None:
        """The history's retention (``history: {retention: ...}``), applied before a snapshot:
        finished runs scheduled longer ago leave the read model, and journal rows as old behind
        the oldest kept snapshot are deleted. That snapshot is already stored, so a restart,
        ``cronlapse status`` and ``cronlapse export`` start from a snapshot and never need the
        rows deleted."""
        retention = self.config.retention
        if retention is None:
            return
        before = self.engine.now - retention
        self.store.views.forget_finished(before)
        self.store.journal.compact(before)
