"""Adding an imported fleet to a scenario a user already has (``cronlapse import --into``).

The scenario's text is kept as written (its comments, its layout, its jobs, its timeline): the
new jobs are added at the end of its ``jobs:`` list, with their comments, the workers the whole
fleet needs at the end of ``workers:``, and a suspended CronJob's pause at the end of
``timeline:``. A new job whose id the scenario already has is an error at the file and line the
job comes from, naming the scenario's job: the two may be different jobs, which a suffix would
hide. The merged text is loaded before anything is written, so a fleet the scenario cannot run
(a cron schedule in a scenario without a clock) is refused, nothing written.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import yaml

from cronlapse.importers.files import ImportProblems, at, read_text
from cronlapse.importers.fleet import (
    CRON_ZONE,
    ImportedFleet,
    ImportOptions,
    ReadFleet,
    pool_line,
)
from cronlapse.importers.pool import workers_needed
from cronlapse.importers.scenario_text import ImportedJob, job_item, pause_item, worker_ids
from engine.model.commands import ScheduleJob
from engine.model.problems import Problem
from engine.scenario import Scenario, ScenarioInvalid, parse_scenario
from engine.scenario.yaml_text import escaped


@dataclass(frozen=True, slots=True)
class _Addition:
    """Lines to add to one top-level list of the scenario."""

    key: str
    block: list[str]
    """The items as block lines (``- ...``, comments above them), without indentation."""
    flow: list[str]
    """The items as flow values, for a list written ``[a, b]``."""


def merge_into(path: str, fleet: ReadFleet, options: ImportOptions) -> ImportedFleet:
    """The scenario at ``path`` with ``fleet``'s jobs added (see the module docstring); raises
    :class:`ImportProblems` with every problem, the scenario's own and the clashes."""
    text = read_text(path, "scenario")
    try:
        existing = parse_scenario(text, path)
    except ScenarioInvalid as invalid:
        raise ImportProblems(invalid.problems) from None
    lines_of = _job_lines(existing)
    clashes = [
        job.origin.problem(
            f"id {job.name!r} is already the id of {path}:{lines_of[job.name]}'s job: "
            "rename one of them"
        )
        for job in fleet.jobs
        if job.name in lines_of
    ]
    if clashes:
        raise ImportProblems(clashes)
    jobs = [
        _in_zone(job, kind, existing) for job, kind in zip(fleet.jobs, fleet.job_kinds, strict=True)
    ]
    header = [
        "Added by `cronlapse import --into` from "
        + ", ".join(file.path for file in fleet.files)
        + ".",
        *fleet.header,
        *(f"Renamed: {reason}" for reason in fleet.renamed),
        *(f"Not imported: {reason}" for reason in fleet.skipped),
    ]
    job_block = [f"# {escaped(line)}" for line in header]
    for job in jobs:
        job_block += [f"# {escaped(comment)}" for comment in job.comments]
        job_block.append(job_item(job.name, job))
    additions = [_Addition("jobs", job_block, [job_item(job.name, job)[2:] for job in jobs])]
    paused = [pause_item(jobs[index].name) for index in fleet.paused]
    if paused:
        additions.append(_Addition("timeline", paused, [item[2:] for item in paused]))
    merged = _merged(text, additions, path, jobs)
    until = existing.until if existing.until is not None else options.days * 1440
    pool = workers_needed(merged.jobs, until)
    wanted = pool.workers if options.workers is None else options.workers
    added = _new_workers(existing.workers, wanted)
    if added:
        note = pool_line(fleet.kinds, pool, options)
        workers = [f"# {escaped(note)}", *(f"- {worker}" for worker in added)]
        additions.insert(0, _Addition("workers", workers, added))
        merged = _merged(text, additions, path, jobs)
    return ImportedFleet(
        _texts(text, additions), len(jobs), tuple(fleet.skipped), merged, tuple(fleet.renamed)
    )


def _job_lines(scenario: Scenario) -> dict[str, int | str]:
    """The line of each job the scenario defines (or schedules in its timeline)."""
    lines: dict[str, int | str] = {}
    for entry in scenario.timeline:
        if isinstance(entry.action, ScheduleJob):
            job_id = entry.action.spec.job_id
            lines.setdefault(job_id, entry.pos.line if entry.pos is not None else "?")
    return lines


def _in_zone(job: ImportedJob, kind: str, scenario: Scenario) -> ImportedJob:
    """``job`` as it fires in the scenario: a crontab entry without ``CRON_TZ=`` fires in cron's
    own zone, taken as UTC, which the scenario's clock may not be in; its zone is then said."""
    zone = scenario.clock.zone.key if scenario.clock is not None else None
    if kind != "crontab" or "timezone" in job.keys or "cron" not in job.keys:
        return job
    if zone == CRON_ZONE:
        return job
    keys = dict(job.keys)
    position = list(keys).index("cron") + 1
    items = list(keys.items())
    items.insert(position, ("timezone", CRON_ZONE))
    return replace(job, keys=dict(items))


def _new_workers(existing: tuple[str, ...], wanted: int) -> list[str]:
    """Ids for the workers to add so that there are ``wanted``, none of them taken."""
    missing = wanted - len(existing)
    if missing <= 0:
        return []
    taken = set(existing)
    candidates = worker_ids(wanted + len(existing))
    return [worker for worker in candidates if worker not in taken][:missing]


def _merged(text: str, additions: list[_Addition], path: str, jobs: list[ImportedJob]) -> Scenario:
    merged = _texts(text, additions)
    try:
        return parse_scenario(merged, path)
    except ScenarioInvalid as invalid:
        raise ImportProblems(_placed(invalid, merged, path, jobs)) from None


def _placed(
    invalid: ScenarioInvalid, text: str, path: str, jobs: list[ImportedJob]
) -> list[Problem]:
    """The problems of the merged scenario, a new job's at the line it came from."""
    items = {job_item(job.name, job): job for job in jobs}
    job_at = {
        number: items[line.strip()]
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() in items
    }
    problems = []
    for problem in invalid.problems:
        job = None if problem.line is None else job_at.get(problem.line)
        if job is not None:
            key = problem.path.rpartition(".")[2]
            message = f"cannot be simulated in {path}: {key}: {problem.message}"
            problems.append(job.origin.problem(message))
        else:
            problems.append(at(path, None, None, f"with the jobs added: {problem}"))
    return problems


def _texts(text: str, additions: list[_Addition]) -> str:
    for addition in additions:
        text = _added(text, addition)
    return text


def _added(text: str, addition: _Addition) -> str:
    """``text`` with ``addition``'s items at the end of its top-level list: after the last
    item of a block list (at its indentation), inside the brackets of a flow list, or as a new
    key at the end when the scenario has none."""
    root = yaml.compose(text)
    node = None
    if isinstance(root, yaml.MappingNode):
        node = next((value for key, value in root.value if key.value == addition.key), None)
    if not text.endswith("\n"):
        text += "\n"
    if node is None:
        return text + f"{addition.key}:\n" + "".join(f"  {line}\n" for line in addition.block)
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        indent = " " * node.start_mark.column
        # after the last item's text: a block item ends where the next token starts, past
        # the blank lines after it, which stay between the list and the next key
        content_end = len(text[: node.value[-1].end_mark.index].rstrip())
        line_end = text.find("\n", content_end)
        cut = len(text) if line_end < 0 else line_end + 1
        lines = "".join(f"{indent}{line}\n" for line in addition.block)
        return text[:cut] + lines + text[cut:]
    if isinstance(node, yaml.SequenceNode) and node.value:
        close = node.end_mark.index - 1
        return text[:close] + ", " + ", ".join(addition.flow) + text[close:]
    # an empty list ([]) or no value: the items as a block under the key
    lines = "".join(f"\n  {line}" for line in addition.block)
    return text[: node.start_mark.index].rstrip(" ") + lines + text[node.end_mark.index :]
