"""The advice for the file a session shows, as ``cronlapse advise`` gives it
(:mod:`cronlapse.analyses.advise`): the file is opened again, as every front end opens one, so
an imported crontab, manifest or timer is advised on as its scenario, with the changes its files
can say."""

from __future__ import annotations

from dataclasses import dataclass

from cronlapse.analyses.advise import Advice, AdviceOptions, FleetError, advise, read_fleet
from cronlapse.exports.fleet import kept_keys
from cronlapse.sources import SourceInvalid, open_source
from tui.model.session import Session

NO_FILE = "advice reads a file: this run was not opened from one"
SCRIPT = "advice reads a scenario, a crontab, manifests or a timer, not a seed 001 script"


@dataclass(frozen=True, slots=True)
class AdviceAnswer:
    """The advice, or why there is none (the file cannot be advised on)."""

    advice: Advice | None = None
    reason: str = ""


def advice_for(session: Session, options: AdviceOptions | None = None) -> AdviceAnswer:
    """The advice for the session's file as it is on disk; never raises for a bad file."""
    if session.path is None or session.kind == "empty":
        return AdviceAnswer(reason=NO_FILE)
    if session.kind == "script":
        return AdviceAnswer(reason=SCRIPT)
    try:
        source = open_source(session.path, stdin=False)
    except SourceInvalid as invalid:
        return AdviceAnswer(reason="\n".join(str(problem) for problem in invalid.problems))
    if source.scenario is None:
        return AdviceAnswer(reason=SCRIPT)
    try:
        fleet = read_fleet(source.source, source.text)
        options = options or AdviceOptions(kept=kept_keys(fleet.scenario))  # as the command's
        return AdviceAnswer(advise(fleet, options))
    except FleetError as error:
        return AdviceAnswer(reason=str(error))
