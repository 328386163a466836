"""The advice: findings, a proposal for each, and the plays that prove or refuse it.

Proposals are taken in the order of the findings, each on the fleet with the proposals taken
before it (the workers a fleet needs are counted once its herds are spread), and each is played
against that fleet over the same horizon. A proposal is taken when at least one figure it
targets improves and none of them gets worse; the other figures are shown as they come out, so
a trade (runs skipped by an overlap rule, in return for no doubled runs) is said, not hidden.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cronlapse.analyses.advise.figures import NAMES, Figures, Played, play
from cronlapse.analyses.advise.findings import Finding, find
from cronlapse.analyses.advise.fleet import Fleet, FleetError
from cronlapse.analyses.advise.proposals import Kept, Measure, NoProposal, Proposal, propose

WEEK_SECONDS = 7 * 86_400
DEFAULT_WINDOW = 30
MAX_WINDOW = 60
"""Fire minutes move within their hour: the minute field of a cron expression, no further."""


@dataclass(frozen=True, slots=True)
class AdviceOptions:
    window: int = DEFAULT_WINDOW
    """Minutes after its own a herd's job may fire."""
    until: int | None = None
    """The horizon's last tick; None: a week, or the fleet's ``clock.until`` if sooner."""
    kept: Kept | None = None
    """When the advised fleet goes back to the crontabs, manifests and timers its jobs came
    from: the keys each of those formats says (``cronlapse.exports.fleet.kept_keys``), so that
    a change is proposed only where the files can say it. None: written as a scenario."""


@dataclass(frozen=True, slots=True)
class Step:
    """A finding and what became of it."""

    finding: Finding
    proposal: Proposal | None
    before: Figures | None = None
    after: Figures | None = None
    taken: bool = False
    reason: str = ""
    """Why nothing is proposed (no change could be written, or the play refuted it)."""


@dataclass(frozen=True, slots=True)
class Advice:
    fleet: Fleet
    advised: Fleet
    """The fleet with every proposal taken."""
    until: int
    steps: tuple[Step, ...]
    before: Figures
    after: Figures
    """The whole fleet's figures before any change and after all that were taken."""
    taken: tuple[Proposal, ...] = field(default=())


def horizon(fleet: Fleet, until: int | None) -> int:
    """The last tick the plays reach; :class:`FleetError` for one past the fleet's end."""
    scenario = fleet.scenario
    if until is not None:
        if scenario.until is not None and until > scenario.until:
            raise FleetError(
                f"{fleet.source}: --until {until} is after the scenario ends "
                f"(clock.until: {scenario.until})"
            )
        return until
    week = WEEK_SECONDS // scenario.tick_seconds
    return week if scenario.until is None else min(week, scenario.until)


def advise(fleet: Fleet, options: AdviceOptions) -> Advice:
    """The advice for ``fleet``: the same fleet and options always give the same advice."""
    if not 1 <= options.window <= MAX_WINDOW:
        raise FleetError(
            f"--window: expected a whole number of minutes from 1 to {MAX_WINDOW}, "
            f"got {options.window}"
        )
    until = horizon(fleet, options.until)
    plays: dict[int, tuple[Fleet, Played]] = {}

    def measure(candidate: Fleet) -> Played:
        """Each fleet played once (kept, so that its id is not another's)."""
        if id(candidate) not in plays:
            plays[id(candidate)] = (candidate, play(candidate.scenario, until))
        return plays[id(candidate)][1]

    first = measure(fleet)
    current, moved, steps, taken = fleet, frozenset[str](), [], []
    for finding in find(fleet, until, first):
        proposal = propose(finding, current, until, options.window, moved, measure, options.kept)
        if isinstance(proposal, NoProposal):
            steps.append(Step(finding, None, reason=proposal.reason))
            continue
        before, after = _proof(proposal, current, until, measure)
        if _improves(before, after, proposal.targets):
            steps.append(Step(finding, proposal, before, after, taken=True))
            taken.append(proposal)
            current = proposal.after
            moved |= set(proposal.moved)
        else:
            targets = ", ".join(NAMES[name] for name in proposal.targets)
            reason = f"the play shows no gain in {targets}"
            steps.append(Step(finding, proposal, before, after, reason=reason))
    last = measure(current)
    return Advice(fleet, current, until, tuple(steps), first.figures, last.figures, tuple(taken))


def _proof(
    proposal: Proposal, current: Fleet, until: int, measure: Measure
) -> tuple[Figures, Figures]:
    if proposal.probe:
        before = play(current.with_outages(proposal.probe).scenario, until)
        after = play(proposal.after.with_outages(proposal.probe).scenario, until)
        return before.figures, after.figures
    return measure(current).figures, measure(proposal.after).figures


def _improves(before: Figures, after: Figures, targets: tuple[str, ...]) -> bool:
    pairs = [(before.value(name) or 0, after.value(name) or 0) for name in targets]
    return any(new < old for old, new in pairs) and all(new <= old for old, new in pairs)
