"""Creation: every due run is created once, in its schedule, with its definition's values.

A modification applies to the runs created after it (docs/engine.md): a run keeps the priority,
attempts allowed, duration and timeout of the definition its job had when the run was created,
and a new schedule applies from the modification's tick. So a job's history is a list of
definitions, each in force from its tick to the next one's (both ends included: at a
modification's own tick a run may have been created just before it or just after). The checks:

- every materialised run lies in the schedule of a definition in force at its tick (a run
  cancelled before its tick: or at the cancel, which created it);
- its values are those of a definition in force when it was created: under automatic dispatch
  from the tick it fell due (or its resume) to that tick, under manual dispatch at any later tick
  (only a dispatch creates it); a cancelled run may have been created by the cancel itself;
- behind the cursor of a job still producing runs, every tick of the current schedule (from the
  tick after the last schedule change) was created, or skipped by a resume or an overlap rule.

A definition nobody observed (see :class:`cronlapse.analyses.invariants.Checker`) accepts any run.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from itertools import islice

from cronlapse.analyses.invariants.facts import Definition, Facts, JobFacts, Violation
from engine.core import Engine
from engine.model.policies import DispatchMode
from engine.model.records import AttemptOutcome, Job, JobSpec, Occurrence
from engine.schedules.calendar import CronSchedule
from engine.schedules.kinds import Schedule


@dataclass(frozen=True, slots=True)
class Window:
    """Ticks ``[start, end]`` (``end`` None: onwards) under one schedule (None: unknown)."""

    start: int
    end: int | None
    schedule: Schedule | None

    def overlaps(self, first: int, last: int) -> bool:
        return self.start <= last and (self.end is None or first <= self.end)


Values = tuple[int, int, int, int | None]
"""What a run takes from its definition: priority, attempts allowed, duration, timeout."""
JobHistory = tuple[JobFacts, list[Window], list[Values | None]]
"""A job's facts, its schedule windows and each definition's values (None when unknown)."""


class CreationCheck:
    """The creation checks of single runs, against the facts as they stand: an archived run is
    checked when it is archived (its definitions are all known by then: a later one starts after
    it was created), a live one at the end. Each job's windows and values are worked out when its
    definitions change, for the jobs whose runs are asked about."""

    def __init__(self, engine: Engine, facts: Facts) -> None:
        self.engine = engine
        self.facts = facts
        self._auto = engine.policy.dispatch is DispatchMode.AUTO
        self._limit = engine.policy.execution_limit
        self._jobs: dict[str, tuple[int, JobSpec | None, JobHistory]] = {}
        """Per job: how many definitions it had and the last one's spec, when worked out (for
        the facts it had then: a job deleted and scheduled again has new ones)."""
        self._plain: dict[str, _Plain | None] = {}
        """Per job whose runs were archived: its one window's start, schedule test and values,
        or None when its runs take the general path; kept until :meth:`definitions_changed`.
        Worked out again each batch, it was 40,000 calls of :meth:`job` on the demo's week (39
        batches, 2,000 jobs)."""
        self._cron: dict[CronSchedule, _CronAnswers] = {}
        """The cron schedules of the jobs in :attr:`_plain`, one for all the jobs on each."""

    def definitions_changed(self) -> None:
        """Some job's definitions changed (one added, or its spec made known): what
        :meth:`archived` kept of them is worked out again."""
        self._plain.clear()
        self._cron.clear()

    def job(self, job_id: str) -> JobHistory | None:
        """The job's facts, its schedule windows and each definition's values (None when
        unknown); None for a job the log never scheduled (reported once, by the end check)."""
        known = self.facts.jobs.get(job_id)
        if known is None or not known.definitions:
            return None
        count, last = len(known.definitions), known.definitions[-1].spec
        held = self._jobs.get(job_id)
        if held is not None and held[0] == count and held[1] is last and held[2][0] is known:
            return held[2]
        values = [
            _spec_values(d.spec, self._limit) if d.spec is not None else None
            for d in known.definitions
        ]
        history = (known, _schedule_windows(known.definitions), values)
        self._jobs[job_id] = (count, last, history)
        return history

    def run(self, occurrence: Occurrence, walked: Collection[int] = ()) -> list[Violation]:
        """The run lies in its schedule (unless the walk behind the cursor found it there:
        ``walked``) and carries the values of a definition in force when it was created."""
        held = self.job(occurrence.job_id)
        if held is None:
            return []
        known, windows, values = held
        found = []
        if occurrence.scheduled not in walked:
            found += _schedule_violation(occurrence, windows, self.facts)
        found += _values_violation(self.engine, occurrence, known, values, self.facts, self._auto)
        return found

    def archived(self, runs: Iterable[Occurrence]) -> list[Violation]:
        """:meth:`run` for each of ``runs`` (archived: final, their definitions all known), with
        the common case taken first: a job with one definition and one schedule, a run neither
        cancelled nor backfilled, in its schedule with its values. A fleet archives runs by
        the million; each is checked here once, and the general path costs twice this one."""
        found: list[Violation] = []
        cancelled, backfilled = self.facts.cancelled_at, self.facts.backfilled_at
        # Most batches have no run cancelled or backfilled: no run's key is hashed to ask.
        exceptions = bool(cancelled or backfilled)
        simple = self._plain
        for answers in self._cron.values():
            answers.forget()
        for occurrence in runs:
            key = occurrence.key
            job_id, scheduled = key
            if job_id in simple:
                plain = simple[job_id]
            else:
                plain = simple[job_id] = self._plain_history(job_id)
            if plain is not None and not (exceptions and (key in cancelled or key in backfilled)):
                start, contains, values = plain
                if (
                    start <= scheduled
                    and (contains is None or contains(scheduled))
                    and (values is None or values == _run_values(occurrence))
                ):
                    continue
            found += self.run(occurrence)
        return found

    def _plain_history(self, job_id: str) -> _Plain | None:
        """The job's one window's start, schedule test and values, if it has one definition
        and one schedule."""
        held = self.job(job_id)
        if held is None or len(held[1]) != 1 or len(held[2]) != 1:
            return None
        window, schedule = held[1][0], held[1][0].schedule
        if isinstance(schedule, CronSchedule):
            answers = self._cron.get(schedule)
            if answers is None:
                answers = self._cron[schedule] = _CronAnswers(schedule)
            return window.start, answers.contains, held[2][0]
        return window.start, None if schedule is None else schedule.contains, held[2][0]


_Plain = tuple[int, Callable[[int], bool] | None, Values | None]
"""A plain job's (one definition, one schedule) window start, the test of its schedule (None:
unknown, any tick) and its values (None: unknown)."""


class _CronAnswers:
    """A cron schedule's answers to ``contains``, for every job on it, over one batch of
    archived runs. Asked run by run, each answer hashed the schedule (its expression and clock)
    for the answers it remembers across schedules, where a fleet's hundreds of jobs on a few
    expressions ask about a few ticks a batch: the check of the demo's 76,662 archived runs
    (8,700 of them on cron schedules) cost 474 M instructions, 400 M asked once a tick."""

    __slots__ = ("_answers", "_schedule")

    def __init__(self, schedule: CronSchedule) -> None:
        self._schedule = schedule
        self._answers: dict[int, bool] = {}

    def forget(self) -> None:
        """A new batch: the ticks asked about move on (kept, they would grow with the run)."""
        self._answers.clear()

    def contains(self, tick: int) -> bool:
        """``schedule.contains(tick)``, asked of the schedule once a batch."""
        answer = self._answers.get(tick)
        if answer is None:
            answer = self._answers[tick] = self._schedule.contains(tick)
        return answer


class WalkedBehind:
    """How far behind each job's cursor the walk has gone already, run by run as the play went
    (:meth:`walk_before`), and the first run it found missing: an engine that forgets its
    finished runs (:meth:`engine.core.Engine.forget_archived`) cannot answer for them at the end,
    so the ticks it is about to forget are walked before it does."""

    def __init__(self) -> None:
        self.through: dict[str, tuple[Schedule, int]] = {}
        """Per job: the schedule walked, and the last tick walked under it."""
        self.missing: dict[str, Violation] = {}
        """Per job: the first run the walk found missing (the walk of that job stops there)."""

    def walk_before(self, engine: Engine, check: CreationCheck, horizon: int) -> None:
        """Walk each job's ticks behind its cursor and before ``horizon`` not walked yet."""
        histories = []
        for job_id, job in engine.query.jobs().items():
            held = check.job(job_id)
            if held is not None and job_id not in self.missing:
                known, windows, _ = held
                stretch = self.rest(job, _behind_cursor(job, known, windows), horizon)
                histories.append((job, known, stretch))
        self._walk(engine, histories)

    def rest(self, job: Job, stretch: Stretch | None, before: int | None = None) -> Stretch | None:
        """``stretch`` less what was walked of it (and cut before ``before``)."""
        if stretch is None:
            return None
        walked = self.through.get(job.job_id)
        after = walked[1] if walked is not None and walked[0] is stretch.schedule else None
        segments = [
            (
                low if after is None else max(low, after + 1),
                high if before is None else min(high, before - 1),
            )
            for low, high in stretch.segments
        ]
        return Stretch(stretch.schedule, [(low, high) for low, high in segments if low <= high])

    def _walk(self, engine: Engine, histories: list[tuple[Job, JobFacts, Stretch | None]]) -> None:
        walks = _walks_of(histories)
        for job, known, stretch in histories:
            if stretch is None or not stretch.segments:
                continue
            missing, _ = _walk_behind_cursor(engine, job, known, stretch, walks)
            if missing:
                self.missing[job.job_id] = missing[0]
            self.through[job.job_id] = (stretch.schedule, stretch.segments[-1][1])


def _walks_of(histories: list[tuple[Job, JobFacts, Stretch | None]]) -> _SharedWalks:
    """The cron walks over every stretch the jobs left behind their cursors, shared by the
    jobs on one expression (:class:`_SharedWalks`)."""
    return _SharedWalks(
        (stretch.schedule, low, high)
        for *_, stretch in histories
        if stretch is not None
        for low, high in stretch.segments
    )


def creation_violations(
    engine: Engine,
    facts: Facts,
    walked_behind: WalkedBehind | None = None,
    check: CreationCheck | None = None,
) -> list[Violation]:
    """Every job was scheduled, none left a run behind its cursor uncreated, and the live runs
    were created in their schedules with their definitions' values (archived runs are checked
    as they are archived: :class:`CreationCheck`). ``walked_behind``: what was walked behind
    the cursors as the play went, walked again only for what is new; ``check``: the one that
    checked them, over the same facts, whose jobs' histories are worked out already (a fleet's
    thousands of jobs' schedule windows, made again, were a fifth of this check)."""
    found: list[Violation] = []
    runs: dict[str, list[Occurrence]] = {}
    for occurrence in engine.query.live_records().values():
        runs.setdefault(occurrence.job_id, []).append(occurrence)
    if check is None:
        check = CreationCheck(engine, facts)
    histories = []
    for job_id, job in engine.query.jobs().items():
        held = check.job(job_id)
        if held is None:
            found.append(Violation(engine.now, f"job {job_id} has no JobScheduled event"))
            continue
        known, windows, _ = held
        stretch = _behind_cursor(job, known, windows)
        if walked_behind is not None:
            if job_id in walked_behind.missing:
                found.append(walked_behind.missing[job_id])
                stretch = None
            else:
                stretch = walked_behind.rest(job, stretch)
        histories.append((job, known, stretch))
    walks = _walks_of(histories)
    for job, known, stretch in histories:
        missing, walked = _walk_behind_cursor(engine, job, known, stretch, walks)
        found += missing
        for occurrence in runs.get(job.job_id, ()):
            found += check.run(occurrence, walked)
    return found


def _schedule_windows(definitions: list[Definition]) -> list[Window]:
    """One window per schedule: the first definition and each change of the schedule start
    one; any observed definition in it tells its schedule."""
    starts = [i for i, d in enumerate(definitions) if d.fields is None or "schedule" in d.fields]
    windows = []
    for number, first in enumerate(starts):
        stop = starts[number + 1] if number + 1 < len(starts) else len(definitions)
        specs = [d.spec for d in definitions[first:stop] if d.spec is not None]
        end = definitions[stop].tick if stop < len(definitions) else None
        schedule = specs[-1].schedule if specs else None
        windows.append(Window(definitions[first].tick, end, schedule))
    return windows


def _schedule_violation(
    occurrence: Occurrence, windows: list[Window], facts: Facts
) -> list[Violation]:
    """The run lies in a schedule in force at its tick (or, cancelled early, at the cancel)."""
    key = occurrence.key
    job_id, scheduled = key
    earliest = min(scheduled, facts.cancelled_at.get(key, scheduled))
    created = facts.backfilled_at.get(key, scheduled)  # a backfill's: its own tick
    if len(windows) == 1:  # nearly every job, nearly every run: its one schedule holds it
        only = windows[0]
        if only.start <= created and (only.schedule is None or only.schedule.contains(scheduled)):
            return []
    holding = [w for w in windows if w.overlaps(earliest, created)]
    if not holding:
        text = f"{job_id}@{scheduled} falls before its job was scheduled (tick {windows[0].start})"
        return [Violation(scheduled, text)]
    if any(w.schedule is None or w.schedule.contains(scheduled) for w in holding):
        return []
    since = ", ".join(str(w.start) for w in holding)
    text = f"{job_id}@{scheduled} is not in its job's schedule (the one defined at tick {since})"
    return [Violation(scheduled, text)]


def _spec_values(spec: JobSpec, execution_limit: int | None) -> Values:
    """A job without a timeout of its own has the policy's execution limit."""
    timeout = spec.timeout if spec.timeout is not None else execution_limit
    return spec.priority, spec.max_attempts, spec.duration, timeout


def _run_values(occurrence: Occurrence) -> Values:
    """A lost attempt adds one to the attempts allowed (it does not count)."""
    lost = 0
    for attempt in occurrence.attempts:
        if attempt.outcome is _LOST:
            lost += 1
    return (
        occurrence.priority,
        occurrence.max_attempts - lost,
        occurrence.duration,
        occurrence.timeout,
    )


_LOST = AttemptOutcome.LOST
"""Read once: every archived run is asked for its lost attempts."""


def _values_violation(
    engine: Engine,
    occurrence: Occurrence,
    known: JobFacts,
    candidates: list[Values | None],
    facts: Facts,
    auto: bool,
) -> list[Violation]:
    """The run carries the values of a definition in force when it was created
    (``candidates``: each definition's values, None when unknown)."""
    values = _run_values(occurrence)
    if len(candidates) == 1 and candidates[0] in (None, values):
        return []
    job_id, scheduled = occurrence.key
    earliest = min(scheduled, facts.cancelled_at.get(occurrence.key, scheduled))
    latest = known.created_at(scheduled, engine.now) if auto else None
    latest = facts.backfilled_at.get(occurrence.key, latest)
    if latest is None:
        latest = engine.now
    definitions = known.definitions
    for number, definition in enumerate(definitions):
        following = definitions[number + 1].tick if number + 1 < len(definitions) else None
        if definition.tick > latest or (following is not None and following < earliest):
            continue
        if candidates[number] in (None, values):
            return []
    priority, attempts, duration, timeout = values
    text = (
        f"{job_id}@{scheduled} was created with priority={priority}, max_attempts={attempts}, "
        f"duration={duration}, timeout={timeout}, which no definition of {job_id} in force "
        f"from tick {earliest} to {latest} has"
    )
    return [Violation(scheduled, text)]


@dataclass(frozen=True, slots=True)
class Stretch:
    """The ticks behind a job's cursor whose runs its current schedule must have created: from
    its schedule's start to the cursor, less the ranges a resume skipped, as inclusive segments."""

    schedule: Schedule
    segments: list[tuple[int, int]]


def _behind_cursor(job: Job, known: JobFacts, windows: list[Window]) -> Stretch | None:
    """After a schedule change the change's own tick is left out: a run of the old schedule
    may hold it."""
    current = windows[-1]
    if job.next_due is None or current.schedule is None:
        return None
    low = current.start + 1 if len(windows) > 1 else current.start
    segments, start = [], low
    for after, through in sorted(known.skipped):  # each skips (after, through]
        if after >= job.next_due - 1:
            break
        if after >= start:
            segments.append((start, after))
        start = max(start, through + 1)
    segments.append((start, job.next_due - 1))
    return Stretch(current.schedule, [(a, b) for a, b in segments if a <= b])


class _SharedWalks:
    """The fire ticks of each cron schedule in the stretches asked for, walked once for every
    job on it: a fleet puts hundreds of jobs on a few expressions, and their stretches cover
    nearly the same ticks (asked one by one, each tick would be a cronsim walk once a month of
    runs outgrows the answers the schedule remembers). Overlapping stretches are walked as one,
    so the walks cost no more than the jobs' own would."""

    def __init__(self, stretches: Iterable[tuple[Schedule, int, int]]) -> None:
        asked: dict[CronSchedule, list[tuple[int, int]]] = {}
        for schedule, low, high in stretches:
            if isinstance(schedule, CronSchedule):
                asked.setdefault(schedule, []).append((low, high))
        self._spans: dict[CronSchedule, list[list]] = {}
        """Per schedule, ``[low, high, its fire ticks or None until asked]``, by ``low``."""
        for schedule, ranges in asked.items():
            spans: list[list] = []
            for low, high in sorted(ranges):
                if spans and low <= spans[-1][1] + 1:
                    spans[-1][1] = max(spans[-1][1], high)
                else:
                    spans.append([low, high, None])
            self._spans[schedule] = spans

    def fire_ticks(self, schedule: Schedule, low: int, high: int) -> Iterable[int]:
        """``schedule.fire_ticks(low, high)`` for a stretch given when this was made."""
        spans = self._spans.get(schedule) if isinstance(schedule, CronSchedule) else None
        if spans is None:
            return schedule.fire_ticks(low, high)
        span = spans[bisect.bisect_right([s[0] for s in spans], low) - 1]
        assert span[0] <= low and high <= span[1], "a stretch not given when this was made"
        if span[2] is None:
            span[2] = list(schedule.fire_ticks(span[0], span[1]))
        ticks = span[2]
        return islice(ticks, bisect.bisect_left(ticks, low), bisect.bisect_right(ticks, high))


def _walk_behind_cursor(
    engine: Engine, job: Job, known: JobFacts, stretch: Stretch | None, walks: _SharedWalks
) -> tuple[list[Violation], set[int]]:
    """Every tick of the current schedule behind the cursor was created or skipped; the first
    one missing, and the ticks walked (all in the schedule). The walk visits each run once and
    passes over skipped ranges, so it costs what the engine holds."""
    if stretch is None or not stretch.segments:
        return [], set()
    # The job's runs with a record, read once from the start of the stretch: a question a
    # run walked cost a lookup in the live table and a search in the archive's column.
    recorded = set(engine.query.record_ticks(job.job_id, stretch.segments[0][0]))
    skipped = known.skipped_runs
    # Nearly always every tick has its run: the walk is then the stretch's ticks as a set, less
    # those skipped, made and compared in C (asked tick by tick, the demo's end check of its
    # 2,000 jobs cost 312 M instructions, now 275 M, callgrind); a tick missing is then looked
    # for in order.
    due: set[int] = set()
    for low, high in stretch.segments:
        due.update(walks.fire_ticks(stretch.schedule, low, high))
    due -= skipped
    if due <= recorded:
        return [], due
    return _first_missing(job, stretch, walks, skipped, recorded)


def _first_missing(
    job: Job, stretch: Stretch, walks: _SharedWalks, skipped: set[int], recorded: set[int]
) -> tuple[list[Violation], set[int]]:
    """The first tick of the stretch neither skipped nor recorded, and the ticks walked before
    it (see :func:`_walk_behind_cursor`)."""
    walked: set[int] = set()
    for low, high in stretch.segments:
        for tick in walks.fire_ticks(stretch.schedule, low, high):
            if tick in skipped:
                continue
            if tick not in recorded:
                text = f"{job.job_id}@{tick} fell behind the cursor without being created"
                return [Violation(tick, text)], walked
            walked.add(tick)
    return [], walked
