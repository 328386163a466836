"""Writing an imported fleet as a scenario file: plain YAML a person can read and edit.

The text is written by hand rather than dumped, so that each job keeps, as comments above it, the
line it came from and the comment that described it there. Every string goes out JSON-quoted
and every comment escaped (:mod:`engine.scenario.yaml_text`), so that YAML reads the file back
exactly, whatever text the imported files held.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cronlapse.importers.files import at
from engine.model.problems import Problem
from engine.scenario.yaml_text import escaped, flow

_NOT_ID = re.compile(r"[^A-Za-z0-9._-]+")
_JOB_LINE = "  - {id: "


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an imported job came from: a line of a file, and the setting written there."""

    path: str
    line: int
    setting: str
    """The entry or setting, as written (``30 2 * * * /bin/load``, ``CronJob nightly``)."""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.setting}"

    def problem(self, message: str) -> Problem:
        """A problem of the job, at the line it came from."""
        return at(self.path, self.line, None, f"{self.setting}: {message}")


@dataclass(frozen=True, slots=True)
class ImportedJob:
    name: str
    """What the job is called where it came from (becomes its id, made unique)."""
    keys: dict[str, object]
    """The scenario job's keys besides ``id``, in the order to write them."""
    comments: tuple[str, ...]
    """Lines to write above the job."""
    origin: Origin
    """Where it came from, for a problem the scenario finds in it."""


@dataclass(frozen=True, slots=True)
class Horizon:
    epoch: str
    timezone: str
    days: int


def scenario_text(
    title: str,
    header: Iterable[str],
    horizon: Horizon,
    workers: int,
    jobs: list[ImportedJob],
    paused: Sequence[int] = (),
) -> str:
    """The scenario: a minute per tick over ``horizon``, ``workers`` workers, ``jobs``, of which
    those at the indexes ``paused`` are paused from the start."""
    lines = [f"# {escaped(line)}" if line else "#" for line in header]
    lines += [
        f"scenario: {_quote(title)}",
        f"clock: {{epoch: {_quote(horizon.epoch)}, timezone: {_quote(horizon.timezone)}, "
        f"tick: 60, until: {horizon.days * 1440}}}",
        "workers: [" + ", ".join(worker_ids(workers)) + "]",
        "jobs:" if jobs else "jobs: []",
    ]
    ids = unique_ids(job.name for job in jobs)
    for job_id, job in zip(ids, jobs, strict=True):
        lines += job_text(job_id, job)
    if paused:
        lines.append("timeline:")
        lines += [f"  {pause_item(ids[index])}" for index in paused]
    return "\n".join(lines) + "\n"


def job_text(job_id: str, job: ImportedJob, indent: str = "  ") -> list[str]:
    """The lines of a job under ``jobs:``: its comments, then the job on one line."""
    lines = [f"{indent}# {escaped(comment)}" for comment in job.comments]
    return [*lines, f"{indent}{job_item(job_id, job)}"]


def job_item(job_id: str, job: ImportedJob) -> str:
    """The job as a list item in flow style: ``- {id: "x", cron: ...}``."""
    keys = ", ".join(f"{key}: {_quote(value)}" for key, value in job.keys.items())
    return f"- {{id: {_quote(job_id)}, {keys}}}"


def pause_item(job_id: str) -> str:
    """The timeline item that pauses a job from the start (a suspended CronJob)."""
    return f"- {{at: 0, pause: {{job: {_quote(job_id)}}}}}"


def worker_ids(count: int) -> list[str]:
    """``w1``..``w9``, or ``w01``..``w16``: zero-padded to the count's width, so that the ids
    sort as text in the order of their numbers (a table sorted by worker, ``w2`` before
    ``w10``)."""
    width = len(str(count))
    return [f"w{number:0{width}d}" for number in range(1, count + 1)]


def job_lines(text: str) -> list[int]:
    """The line number of each job in a :func:`scenario_text`, in order: each is one line."""
    return [
        number
        for number, line in enumerate(text.splitlines(), start=1)
        if line.startswith(_JOB_LINE)
    ]


MAX_ID = 60
"""The longest id an import writes, suffix included: ids are read in tables and commands."""


def id_base(name: str) -> str:
    """The id a name gives: the characters an id may hold, at most :data:`MAX_ID` of them."""
    return _NOT_ID.sub("-", name).strip("-.")[:MAX_ID] or "job"


def suffixed(base: str, suffix: str) -> str:
    """``base-suffix``, ``base`` shortened so that the whole is at most :data:`MAX_ID` long."""
    return f"{base[: MAX_ID - len(suffix) - 1]}-{suffix}"


def unique_ids(names: Iterable[str]) -> list[str]:
    """Ids from names (:func:`id_base`), ``-2``, ``-3``... added to repeats."""
    seen: dict[str, int] = {}
    ids = []
    for name in names:
        base = id_base(name)
        count = seen.get(base, 0) + 1
        seen[base] = count
        ids.append(base if count == 1 else suffixed(base, str(count)))
    return ids


def _quote(value: object) -> str:
    """A key's value in flow style: a list (a timer's ``cron:`` lines) item by item, a mapping
    (``source:``) and a string as JSON."""
    if isinstance(value, list):
        return "[" + ", ".join(_quote(item) for item in value) + "]"
    return flow(value) if isinstance(value, str | dict) else str(value)
