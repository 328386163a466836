"""The read model: what the API answers about jobs, runs and workers, kept for processes that hold
no engine (``serve --role api``).

The active scheduler writes it (:class:`ViewChanges`, in the transaction of the journal rows that
changed it: :meth:`~cronlapse.service.store.journal.Journal.append`), so a read never sees a
write that is not journaled nor misses one that was answered. Finished runs are the history:
every process with an engine (the single process too) writes them here before a snapshot lets
its engine forget them (:meth:`Views.keep_finished`), reads them back from here
(:meth:`Views.finished`), and the config's retention deletes them
(:meth:`Views.forget_finished`). The JSON it holds is the single process's own
(:mod:`cronlapse.service.views`): the store keeps and pages text, it never reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True, slots=True)
class JobView:
    """One job's answers, with the columns ``GET /jobs`` filters and pages by."""

    job_id: str
    position: int
    """Its place in submission order: ``GET /jobs`` pages by it."""
    deleted: bool
    status: str
    priority: int
    run: str
    summary: str
    """The JSON of the job in a listing."""
    detail: str
    """The JSON of ``GET /job/{id}``."""


@dataclass(frozen=True, slots=True)
class RunView:
    """One run's answer (its JSON), as ``GET /job/{id}/runs`` lists it."""

    job_id: str
    scheduled: int
    implicit: bool
    """A run that waits without a record (the engine's lazy backlog): rewritten with its job."""
    view: str
    final: bool = False
    """The run is final: its answer never changes, and it stays when the model is rebuilt (the
    engine may have forgotten it) until the history's retention deletes it."""


@dataclass(frozen=True, slots=True)
class ViewChanges:
    """What one write changes in the read model."""

    jobs: Sequence[JobView] = ()
    """Each replaces its job's row; the job's implicit runs are dropped (those still waiting
    are among ``runs``)."""
    runs: Sequence[RunView] = ()
    """Each replaces its run's row."""
    meta: Mapping[str, str] = field(default_factory=dict)
    """Values replaced by key (the engine's tick, the worker slots, the metrics text)."""
    reset: bool = False
    """Forget every job and every run not final first: a rebuild of the whole model (finished
    runs stay, since the engine rebuilding it may have forgotten them)."""


@dataclass(frozen=True, slots=True)
class JobFilter:
    """``GET /jobs``' filters, read and checked (None: any)."""

    status: str | None
    priority: int | None
    run: str | None


@dataclass(frozen=True, slots=True)
class Page:
    """One page of JSON texts, and where the next page starts (None: the last page): a
    position in submission order for jobs, a scheduled tick for a job's runs."""

    items: list[str]
    next: int | None


def jobs_page(rows: Sequence[tuple[int, str]], limit: int, last: Callable[[], int | None]) -> Page:
    """The page of ``rows`` (position, summary), at most ``limit`` jobs that matched, in
    submission order from the page's start; ``last()`` is the last position of any job (None:
    there is none), read only when the page is full, to tell whether a job follows it."""
    items = [summary for _position, summary in rows]
    if len(rows) < limit:
        return Page(items, None)
    following = rows[-1][0] + 1
    final = last()
    return Page(items, following if final is not None and following <= final else None)


def runs_page(rows: Sequence[tuple[int, str]], limit: int) -> Page:
    """The page of a job's runs from ``rows`` (scheduled tick, JSON), at most ``limit + 1`` by
    tick: the one past ``limit`` is where the next page starts."""
    return Page(
        [view for _tick, view in rows[:limit]], rows[limit][0] if len(rows) > limit else None
    )


class Views(Protocol):
    """The read model's reads; its writes go with the journal's appends, but for the finished
    runs a process keeps before a snapshot and the ones its retention forgets."""

    def position(self) -> int | None:
        """The journal position the read model is as of (None: never written)."""
        ...

    def meta(self, key: str) -> str | None: ...

    def job(self, job_id: str) -> str | None:
        """The detail of a job that exists and is not deleted."""
        ...

    def jobs(self, start: int, limit: int, wanted: JobFilter) -> Page:
        """Jobs not deleted from position ``start`` on, in submission order, filtered; at most
        ``limit``. ``next`` is None only when no job follows the page's last one."""
        ...

    def runs(self, job_id: str, since: int, limit: int) -> Page | None:
        """The job's runs by scheduled tick, at most ``limit`` from the first scheduled at or
        after ``since``; None when the job does not exist or is deleted. ``next`` is the tick of
        the run after the page (None: the page is the last). Paging by key, not by offset, makes
        a page deep in a long history cost what the first one costs."""
        ...

    def finished(self, job_id: str, since: int, limit: int) -> list[tuple[int, str]]:
        """The job's finished runs (scheduled tick, JSON) from ``since`` on, by tick, at most
        ``limit``, whether or not the job is in the model (the single process keeps only its
        finished runs here): a seek by key, as :meth:`runs`."""
        ...

    def finished_at(self, job_id: str, ticks: Sequence[int]) -> dict[int, str]:
        """The JSON of the job's finished runs scheduled at ``ticks`` (those it has), by tick:
        the recent runs a job's detail shows that the engine forgot."""
        ...

    def latest_finished(self, job_id: str, limit: int) -> list[tuple[int, str]]:
        """The job's ``limit`` latest finished runs (scheduled tick, JSON), by tick: the recent
        runs a job's detail shows that a snapshot wrote here (a seek by key, backwards)."""
        ...

    def keep_finished(self, runs: Sequence[RunView]) -> None:
        """Store finished runs (each replaces its row), in a transaction of their own: a
        process does so before its snapshot lets the engine forget them."""
        ...

    def forget_finished(self, before: int) -> int:
        """Delete the finished runs scheduled before tick ``before`` (the history's retention);
        returns how many."""
        ...
