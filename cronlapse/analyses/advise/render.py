"""Advice as text: each finding, its change and the two plays side by side, then the whole."""

from __future__ import annotations

from cronlapse.analyses.advise.advice import Advice, Step
from cronlapse.analyses.advise.figures import NAMES, Figures
from cronlapse.analyses.advise.times import when, zone_name

_LABEL = max(len(name) for name in NAMES.values())


def advice_text(advice: Advice) -> str:
    scenario = advice.fleet.scenario
    taken = len(advice.taken)
    end = when(scenario, advice.until)
    zone = zone_name(scenario)
    tick = f"; a tick is {scenario.tick_seconds} s" if scenario.clock is not None else ""
    lines = [
        f"{advice.fleet.source}: {_count(len(advice.steps), 'finding')}, "
        f"{_count(taken, 'change')} proposed, played to tick {advice.until} "
        f"({end}{' ' + zone if zone else ''}){tick}",
    ]
    for number, step in enumerate(advice.steps, start=1):
        lines += ["", *step_lines(number, step)]
    if not advice.steps:
        lines += ["", "nothing to advise: no herd, peak, DST hour, long run or missed-run exposure"]
    elif taken:
        lines += ["", "All the proposed changes together:", *table(advice.before, advice.after)]
    return "\n".join(lines) + "\n"


def step_lines(number: int, step: Step) -> list[str]:
    finding = step.finding
    lines = [f"{number}. {finding.kind.value}: {finding.text}"]
    proposal = step.proposal
    if proposal is None:
        return [*lines, f"   nothing proposed: {step.reason}"]
    verdict = "proposed" if step.taken else "not proposed"
    lines.append(f"   {verdict}: {proposal.summary}")
    lines += [f"     {change}" for change in proposal.changes]
    if proposal.probe:
        windows = ", ".join(f"{start}-{end}" for start, end in proposal.probe)
        lines.append(f"   played with the scheduler down at ticks {windows}")
    if step.before is not None and step.after is not None:
        lines += table(step.before, step.after, proposal.targets)
    if not step.taken:
        lines.append(f"   {step.reason}")
    return lines


def table(before: Figures, after: Figures, targets: tuple[str, ...] = ()) -> list[str]:
    """The figures before and after, a ``*`` beside those the change targets."""
    lines = [f"   {'':<{_LABEL + 2}}{'before':>8}{'after':>8}"]
    for name, label in NAMES.items():
        mark = "*" if name in targets else " "
        old, new = _number(before.value(name)), _number(after.value(name))
        lines.append(f"   {mark} {label:<{_LABEL}}{old:>8}{new:>8}")
    return lines


def _number(value: int | None) -> str:
    return "-" if value is None else str(value)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
