"""Commands: every change to the engine enters as one of these values.

Commands are plain frozen data so that a history can record and replay them, a scenario timeline
can hold them and the dashboard's command line can build them. Each answers with a :class:`Result`
whose outcome maps one-to-one onto an HTTP status, so an HTTP layer is a thin mapping.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engine.model import JobSpec


class Outcome(Enum):
    """How a command ended, with the HTTP status an API would answer."""

    CREATED = 201
    OK = 200
    NOT_FOUND = 404
    CONFLICT = 409
    INVALID = 422

    @property
    def accepted(self) -> bool:
        return self in (Outcome.CREATED, Outcome.OK)


@dataclass(frozen=True, slots=True)
class Result:
    outcome: Outcome
    value: object = None
    message: str = ""

    @property
    def accepted(self) -> bool:
        return self.outcome.accepted


@dataclass(frozen=True, slots=True)
class RegisterWorker:
    worker_id: str


@dataclass(frozen=True, slots=True)
class ScheduleJob:
    spec: JobSpec


@dataclass(frozen=True, slots=True)
class Dispatch:
    """Create every due occurrence and assign pending ones to idle workers (manual dispatch)."""


@dataclass(frozen=True, slots=True)
class Complete:
    """A worker's report of how an attempt ended (reported completion)."""

    job_id: str
    scheduled: int
    attempt: int
    succeeded: bool


@dataclass(frozen=True, slots=True)
class Advance:
    """Move time to ``to``: every tick before it is processed, tick ``to`` is not yet."""

    to: int


@dataclass(frozen=True, slots=True)
class ScriptFailure:
    """Script that attempt number ``attempt`` of each occurrence of ``job_id`` fails."""

    job_id: str
    attempt: int


Command = RegisterWorker | ScheduleJob | Dispatch | Complete | Advance | ScriptFailure
