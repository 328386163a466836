"""Problems: why an input is refused, where it is, and which field it concerns.

Every refusal in cronlapse is a :class:`Problem`, whoever makes it: the engine's answer to a
command it refuses (:attr:`engine.model.commands.Result.problem`), the scenario language's
(:class:`~engine.scenario.errors.ScenarioInvalid`), an importer's, a seed 001 script's rejected
line, and the service's readers'. Front ends render its fields (the command line prints it as
``file:line:column: path: message``, the dashboard points at its line and column, the service's
422 names its path), so nothing parses a message back into its parts, and nothing recognises a
refusal by its wording: the engine's carry a :class:`Code` for that.
"""

from __future__ import annotations

from enum import Enum

from engine.model.values import value


class Code(Enum):
    """Why an input was refused: a stable word that an API client or a front end may rely on
    where the message is for people and may be reworded. Every refusal of the engine has one;
    the scenario language gives one where a front end needs to tell a refusal apart."""

    # The scenario language.
    UNKNOWN_KEY = "unknown-key"
    """A key the mapping does not take; the subject is the key (a sweep refuses to vary it)."""

    # A job's definition (schedule and modify).
    JOB_EXISTS = "job-exists"
    OUT_OF_RANGE = "out-of-range"
    """A value outside its limit (:mod:`engine.model.limits`); the path names the field."""
    PAST_RUN_TIME = "past-run-time"
    """A schedule with no run left from now on."""
    UNKNOWN_DEPENDENCY = "unknown-dependency"
    """The subject is the dependency's name."""
    UNKNOWN_POOL = "unknown-pool"
    DEPENDENTS_KEEP_SCHEDULE = "dependents-keep-schedule"
    NOT_MODIFIABLE = "not-modifiable"
    """A field that only a new job can change; the path names it."""

    # Jobs and their runs.
    UNKNOWN_JOB = "unknown-job"
    JOB_DOOMED = "job-doomed"
    """A job cancelled because a job it depends on failed: it can never run."""
    ATTEMPT_RUNNING = "attempt-running"
    NOTHING_TO_CANCEL = "nothing-to-cancel"
    UNKNOWN_RUN = "unknown-run"
    RUN_NOT_CANCELLABLE = "run-not-cancellable"
    RUN_FORGOTTEN = "run-forgotten"
    """A run behind the engine's history horizon: forgotten (:meth:`Engine.forget_archived`)."""
    ALREADY_PAUSED = "already-paused"
    NOT_PAUSED = "not-paused"

    # Attempts reported by workers.
    NO_RUNNING_ATTEMPT = "no-running-attempt"
    WRONG_ATTEMPT = "wrong-attempt"

    # Workers.
    WORKER_EXISTS = "worker-exists"
    UNKNOWN_WORKER = "unknown-worker"
    WORKER_ALREADY_DOWN = "worker-already-down"
    WORKER_ALREADY_UP = "worker-already-up"
    WORKER_NOT_UP = "worker-not-up"

    # Time.
    BEFORE_NOW = "before-now"

    # Notifications delivered by others (reported delivery).
    DELIVERY_SIMULATED = "delivery-simulated"
    UNKNOWN_NOTIFICATION = "unknown-notification"
    NOTIFICATION_SETTLED = "notification-settled"
    TRY_NOT_DUE = "try-not-due"

    # Backfills.
    RUNS_ONCE = "runs-once"
    RANGE_REVERSED = "range-reversed"
    RANGE_NOT_PAST = "range-not-past"
    TOO_MANY_RUNS = "too-many-runs"
    BACKFILL_UNDER_WAY = "backfill-under-way"
    DEPENDENCIES_UNMET = "dependencies-unmet"


@value
class Problem:
    """One reason an input is refused; ``str()`` is ``file:line:column: path: message``, each
    part left out when it is not known."""

    source: str
    """What was read: a file's path, ``<stdin>``, an option (``--from``); empty for the engine's
    refusals, which judge commands, not files."""
    line: int | None
    """1-based, when the problem is at a place in the source."""
    column: int | None
    """1-based, when the place is known to the character."""
    path: str
    """The field the problem concerns: a scenario's key path (``jobs[2].every``), a request's
    JSON path (``depends_on[1]``), or for the engine's refusals the command's field (``pool``,
    ``schedule``, ``depends_on``); empty for a problem of the input as a whole."""
    message: str
    """What is wrong, for people."""
    code: Code | None = None
    """Why, for a front end to tell refusals apart: always there for the engine's refusals;
    most of the language's, and the importers' and the scripts', have none: their place and
    path say what they concern."""
    subject: str = ""
    """Which value the problem is about, where its field alone does not say (the unknown
    dependency among a job's ``depends_on``, the unknown key of a mapping)."""

    @property
    def place(self) -> str:
        """``file:line:column``, as much of it as is known."""
        place = self.source
        if self.line is not None:
            place += f":{self.line}"
            if self.column is not None:
                place += f":{self.column}"
        return place

    @property
    def order(self) -> tuple[int, int]:
        """Where the problem is in its source, for listing problems in file order (a problem
        of the whole file first)."""
        return self.line or 0, self.column or 0

    def __str__(self) -> str:
        return ": ".join(part for part in (self.place, self.path, self.message) if part)


def refusal(code: Code, message: str, path: str = "", subject: str = "") -> Problem:
    """The engine's problem with a command: no source and no place, a code and a field."""
    return Problem("", None, None, path, message, code, subject)
