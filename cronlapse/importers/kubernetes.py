"""Kubernetes CronJob manifests as scheduled jobs (``batch/v1``, and ``batch/v1beta1``, whose
CronJob spec is the same, with a note saying so).

A manifest may hold several documents (``---``) and ``List`` kinds; documents of other kinds (a
Deployment next to the CronJobs) are listed as not imported. Each CronJob's fields, as the
Kubernetes documentation defines them (kubernetes.io, "CronJob"), map as follows; a field with no
counterpart in cronlapse yet is reported by name, never dropped silently:

- ``spec.schedule`` (cron, a nickname such as ``@hourly``, or ``@every DURATION``) and
  ``spec.timeZone``, read as Kubernetes' parser reads them (robfig/cron v3's ``ParseStandard``):
  what it refuses is refused (``L``, ``W``, ``#``, a day-of-week 7, a nickname in capitals), and
  its rule for the two day fields is kept (:mod:`cronlapse.importers.robfig`);
- ``spec.suspend: true`` (or a YAML 1.1 boolean such as ``yes``, as the API server reads it): the
  job is paused from the start;
- ``spec.jobTemplate.spec.backoffLimit``: retries (Kubernetes' default is 6);
- ``spec.jobTemplate.spec.activeDeadlineSeconds``: the run's ``run_timeout``, in whole minutes
  (ticks): the whole Job's limit from its start, which "takes precedence over backoffLimit";
- ``spec.concurrencyPolicy``: ``overlap`` (Forbid as ``BufferLatest``, Replace);
  ``spec.startingDeadlineSeconds``: ``catch_up_window`` in minutes, beside the controller's own
  rules (``catch_up: latest``, ``max_missed: 100``), and under Forbid the held run's
  ``start_deadline``; ``parallelism`` and ``completions`` above 1: reported (one pod per run
  is modelled); the history limits only say how many finished Jobs are kept, and the pod's own
  ``activeDeadlineSeconds`` and ``restartPolicy`` are not modelled: noted.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

import yaml

from cronlapse.importers.files import ImportProblems, read_text
from cronlapse.importers.robfig import every_minutes, robfig_expression
from engine.model.problems import Problem
from engine.scenario.errors import Problems, ScenarioInvalid
from engine.scenario.yaml_source import Mapping, Node, Scalar, Sequence, parse_yaml_documents
from engine.schedules.calendar import NeverFires, ScheduleError, parse_schedule_expression
from engine.schedules.clock import ClockError, parse_zone

DEFAULT_BACKOFF_LIMIT = 6

_YAML_1_1_BOOLEANS = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "off", "Off", "OFF"), False),
}
"""What Kubernetes' YAML reader (go-yaml v2, YAML 1.1) takes for booleans beyond true and false,
unquoted; cronlapse's own reader keeps YAML 1.2's two."""

_BETA_VERSION = "batch/v1beta1"
_BETA_NOTE = (
    "apiVersion: batch/v1beta1: read as batch/v1, whose CronJob spec is the same "
    "(batch/v1beta1 was removed in Kubernetes 1.25)"
)
"""Charts written before Kubernetes 1.21 still use it; its CronJob fields are batch/v1's."""

_SPEC_KEYS = frozenset(
    {
        "schedule",
        "timeZone",
        "suspend",
        "concurrencyPolicy",
        "startingDeadlineSeconds",
        "successfulJobsHistoryLimit",
        "failedJobsHistoryLimit",
        "jobTemplate",
    }
)
_JOB_SPEC_KEYS = frozenset(
    {"backoffLimit", "activeDeadlineSeconds", "parallelism", "completions", "template"}
)


@dataclass(frozen=True, slots=True)
class CronJob:
    name: str
    namespace: str | None
    line: int
    cron: str | None
    """None for ``@every``: see ``every``."""
    timezone: str | None
    suspended: bool
    max_retries: int
    run_timeout_minutes: int | None
    """``activeDeadlineSeconds``, rounded up to the scenario's minute ticks."""
    images: tuple[str, ...]
    notes: tuple[str, ...]
    """What was read but is not modelled, each naming its field."""
    concurrency: str = "Allow"
    """``spec.concurrencyPolicy``: the scenario's ``overlap`` (Forbid, Replace) unless Allow."""
    starting_deadline_minutes: int | None = None
    """``spec.startingDeadlineSeconds`` in the scenario's minute ticks, rounded down: a run is
    late by whole minutes, and the controller skips one later than the deadline, so rounding
    up would start a run it skips (10 s: only a run on time starts)."""
    every: int | None = None
    """``@every DURATION``: its minutes, counted from the CronJob's creation."""
    text: str = ""
    """The CronJob as written (its document, comments included), or as YAML when it is an item
    of a ``List``: what ``cronlapse export`` writes back."""


@dataclass(slots=True)
class Manifest:
    path: str
    cronjobs: list[CronJob] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    text: str = ""


@dataclass(frozen=True, slots=True)
class Document:
    """One document of a manifest's text: its lines (1-based, ``first`` to ``last``) between
    the ``---`` around it, comments included."""

    first: int
    last: int
    text: str


def documents(text: str) -> list[Document]:
    """The documents of ``text`` that hold more than blank lines, in order."""
    found, start = [], 1
    lines = text.splitlines()
    for number, line in enumerate([*lines, "---"], start=1):
        if _SEPARATOR.match(line):
            body = "\n".join(lines[start - 1 : number - 1])
            if body.strip():
                found.append(Document(start, number - 1, body))
            start = number + 1
    return found


def read_manifest(path: str) -> Manifest:
    return parse_manifest(read_text(path, "Kubernetes manifest"), path)


def parse_manifest(text: str, path: str = "<manifest>") -> Manifest:
    """The CronJobs of a manifest's text (see the module docstring)."""
    problems = Problems(path)
    try:
        documents = parse_yaml_documents(text, problems)
    except ScenarioInvalid as error:
        raise ImportProblems(error.problems) from None
    reader = _Reader(path)
    manifest = Manifest(path)
    for document in documents:
        reader.document(document, manifest)
    found = [*problems, *reader.problems]
    if found:
        raise ImportProblems(found)
    manifest.cronjobs = [
        replace(cronjob, text=_written(text, cronjob)) for cronjob in manifest.cronjobs
    ]
    manifest.text = text
    return manifest


_SEPARATOR = re.compile(r"---(?:\s|$)")


def _written(text: str, cronjob: CronJob) -> str:
    """The text of ``cronjob``'s document (the lines between the ``---`` around it, comments
    included); for an item of a ``List``, or a document those lines do not hold alone, the
    CronJob's node written again as YAML; empty if even that fails (the exporter then writes
    the job in its canonical form)."""
    lines = text.splitlines()
    start = next((n for n in range(cronjob.line - 1, 0, -1) if _SEPARATOR.match(lines[n - 1])), 0)
    end = next(
        (n for n in range(cronjob.line, len(lines)) if _SEPARATOR.match(lines[n])), len(lines)
    )
    document = "\n".join(lines[start:end])
    try:
        loaded = yaml.safe_load(document)
        if isinstance(loaded, dict) and _is(loaded, cronjob.name):
            return document
        return _node_text(text, cronjob.line)
    except yaml.YAMLError:
        return _node_text(text, cronjob.line)


def _is(loaded: dict[object, object], name: str) -> bool:
    metadata = loaded.get("metadata")
    named = isinstance(metadata, dict) and metadata.get("name") == name
    return loaded.get("kind") == "CronJob" and named


def _node_text(text: str, line: int) -> str:
    """The mapping that starts at ``line`` (1-based), a document or a List's item, as YAML."""
    try:
        for root in yaml.compose_all(text):
            items = [root]
            if isinstance(root, yaml.MappingNode):
                items += [
                    item
                    for key, value in root.value
                    if key.value == "items" and isinstance(value, yaml.SequenceNode)
                    for item in value.value
                ]
            for node in items:
                if isinstance(node, yaml.MappingNode) and node.start_mark.line + 1 == line:
                    loaded = yaml.safe_load(yaml.serialize(node))
                    return yaml.safe_dump(loaded, sort_keys=False).rstrip("\n")
    except yaml.YAMLError:
        return ""
    return ""


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[Problem] = []

    def error(self, node: Node, message: str, field: str | None = None) -> None:
        """A problem at ``node``, about ``field`` (its path from the object, ``spec.schedule``)
        when there is one: a manifest repeats the same keys in every CronJob, so the line alone
        leaves the reader to work out which field was refused."""
        pos = node.pos
        self.problems.append(Problem(self.path, pos.line, pos.column, field or "", message))

    def document(self, node: Node, manifest: Manifest) -> None:
        if _null(node):
            return  # an empty document (a comment, or a template that rendered nothing)
        if not isinstance(node, Mapping):
            self.error(node, "expected a Kubernetes object (a mapping with 'kind')")
            return
        kind = _text(node.get("kind"))
        if kind is None:
            self.error(node, "expected CronJob, or a List of them", "kind")
        elif kind == "List" or kind.endswith("List"):
            items = node.get("items")
            if not isinstance(items, Sequence):
                self.error(items or node, "expected a list of objects", "items")
                return
            for item in items.items:
                self.document(item, manifest)
        elif kind == "CronJob":
            cronjob = self.cronjob(node)
            if cronjob is not None:
                manifest.cronjobs.append(cronjob)
        else:
            name = _text(_path(node, "metadata", "name")) or "unnamed"
            manifest.skipped.append(f"{self.path}:{node.pos}: {kind} {name}: not a CronJob")

    def cronjob(self, node: Mapping) -> CronJob | None:
        version = _text(node.get("apiVersion"))
        notes = []
        if version == _BETA_VERSION:
            notes.append(_BETA_NOTE)
        elif version != "batch/v1":
            self.error(
                node.get("apiVersion") or node,
                f"expected batch/v1 (or {_BETA_VERSION}, read the same), got {version!r}",
                "apiVersion",
            )
        name_node = _path(node, "metadata", "name")
        name = _text(name_node)
        spec = node.get("spec")
        if name is None:
            where = name_node or node.get("metadata") or node
            self.error(where, "expected the CronJob's name, a string", "metadata.name")
        namespace = self.namespace(_path(node, "metadata", "namespace"))
        if not isinstance(spec, Mapping):
            self.error(spec or node, "expected a mapping with spec.schedule", "spec")
        if name is None or not isinstance(spec, Mapping):
            return None
        schedule_node = spec.get("schedule")
        cron, every = self.schedule(schedule_node, spec)
        timezone = self.timezone(spec.get("timeZone"))
        if every is not None:
            notes.append(
                f"spec.schedule: {_text(schedule_node)}: every {every} minutes from the "
                "CronJob's creation, taken as the scenario's start"
            )
        policy = self.policy(spec.get("concurrencyPolicy"))
        starting = self.count(spec, "spec.startingDeadlineSeconds", None, 10**12)
        for limit in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
            if spec.get(limit) is not None:
                notes.append(f"spec.{limit}: how many finished Jobs are kept; no effect on runs")
        job_template = self.mapping(
            spec.get("jobTemplate"), "spec.jobTemplate", "the Job template, with its spec"
        )
        template = self.mapping(
            _get(job_template, "spec"), "spec.jobTemplate.spec", "the Job's spec"
        )
        notes += [f"spec.{key}: not modelled" for key in sorted(_keys(spec) - _SPEC_KEYS)]
        unread = sorted(_keys(template) - _JOB_SPEC_KEYS)
        notes += [f"spec.jobTemplate.spec.{key}: not modelled" for key in unread]
        job = "spec.jobTemplate.spec"
        retries = self.count(template, f"{job}.backoffLimit", DEFAULT_BACKOFF_LIMIT, 1000)
        deadline = self.count(template, f"{job}.activeDeadlineSeconds", None, 10**12)
        for key in ("parallelism", "completions"):
            if (self.count(template, f"{job}.{key}", 1, 10**6) or 1) > 1:
                notes.append(f"{job}.{key}: one pod per run is modelled")
        notes += _pod_notes(_path(template, "template", "spec"))
        suspended = self.suspended(spec.get("suspend"))
        if cron is None and every is None:
            return None
        return CronJob(
            name=name,
            namespace=namespace,
            line=node.pos.line,
            cron=cron,
            timezone=timezone,
            suspended=suspended,
            max_retries=retries if retries is not None else DEFAULT_BACKOFF_LIMIT,
            run_timeout_minutes=None if deadline is None else max(1, math.ceil(deadline / 60)),
            images=_images(template),
            notes=tuple(notes),
            concurrency=policy or "Allow",
            starting_deadline_minutes=None if starting is None else starting // 60,
            every=every,
        )

    def suspended(self, node: Node | None) -> bool:
        """``spec.suspend``: false when absent or null. The API server's YAML reader is YAML
        1.1's, so an unquoted ``yes``, ``on``, ``y`` (``no``, ``off``, ``n``) is a boolean
        there, and here too; a quoted ``'yes'`` is a string, which it refuses."""
        if node is None or _null(node):
            return False
        value = _value(node)
        if isinstance(node, Scalar) and node.plain and isinstance(value, str):
            value = _YAML_1_1_BOOLEANS.get(value, value)
        if not isinstance(value, bool):
            self.error(node, "expected true or false", "spec.suspend")
            return False
        return value

    def schedule(self, node: Node | None, spec: Mapping) -> tuple[str | None, int | None]:
        """The cron expression, or the minutes of an ``@every``, as Kubernetes' parser reads
        ``spec.schedule`` (robfig/cron v3's ``ParseStandard``); (None, None) when refused."""
        text = _text(node)
        if node is None or text is None:
            self.error(
                node or spec, "expected a cron expression such as '0 3 * * *'", "spec.schedule"
            )
            return None, None
        if text.startswith(("TZ=", "CRON_TZ=")):
            self.error(
                node,
                "a time zone in the schedule is not supported: use spec.timeZone",
                "spec.schedule",
            )
            return None, None
        try:
            if text.startswith("@every "):
                return None, every_minutes(text)
            return parse_schedule_expression(robfig_expression(text)), None
        except NeverFires as never:
            return never.expression, None  # never scheduled: the fleet lists it as not imported
        except ScheduleError as error:
            self.error(node, f"spec.schedule: {error}")
            return None, None

    def timezone(self, node: Node | None) -> str | None:
        """``spec.timeZone``: None when absent or null (the controller's zone, UTC); a value
        that is no zone name, a number too, is refused rather than taken for UTC."""
        text = self.optional_text(
            node, "spec.timeZone", "an IANA name such as 'Europe/Berlin' or 'UTC'"
        )
        if text is None:
            return None
        try:
            parse_zone(text, "spec.timeZone")
        except ClockError as error:
            self.error(node, str(error))
            return None
        return text

    def policy(self, node: Node | None) -> str | None:
        """``spec.concurrencyPolicy``: None when absent or null (Allow); anything but the three
        words, a number too, is refused rather than taken for Allow."""
        if node is None or _null(node):
            return None
        policy = _text(node)
        if policy not in ("Allow", "Forbid", "Replace"):
            self.error(
                node,
                f"expected Allow, Forbid or Replace, got {_shown(node)}",
                "spec.concurrencyPolicy",
            )
            return None
        return policy

    def mapping(self, node: Node | None, field: str, what: str) -> Mapping | None:
        """The mapping at ``field``: None when absent or null (Kubernetes' defaults apply); any
        other value is refused, where it was read as an empty template, every setting in it
        dropped without a word."""
        if isinstance(node, Mapping):
            return node
        if node is not None and not _null(node):
            self.error(node, f"expected a mapping ({what}), got {_shown(node)}", field)
        return None

    def namespace(self, node: Node | None) -> str | None:
        """``metadata.namespace``: None when absent or null; a value that is no name is refused
        rather than left out of the job's comment."""
        return self.optional_text(node, "metadata.namespace", "the CronJob's namespace, a string")

    def optional_text(self, node: Node | None, field: str, expected: str) -> str | None:
        """A string field's text: None when absent or null (as Kubernetes reads it, not
        given), and when it is not a string, which is refused with what was ``expected``."""
        if node is None or _null(node):
            return None
        text = _text(node)
        if text is None:
            self.error(node, f"expected {expected}, got {_shown(node)}", field)
        return text

    def count(self, parent: Node | None, field: str, default: int | None, most: int) -> int | None:
        """The whole number of ``field`` (``spec.jobTemplate.spec.backoffLimit``), a key of
        ``parent``; ``default`` when absent or refused."""
        node = _get(parent, field.rpartition(".")[2])
        if node is None:
            return default
        value = _value(node)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= most:
            self.error(node, f"expected a whole number from 0 to {most:,}", field)
            return default
        return value


def _pod_notes(pod: Node | None) -> list[str]:
    """The pod template's settings that change how a Job runs, which cronlapse does not model:
    reported by name rather than dropped."""
    path = "spec.jobTemplate.spec.template.spec"
    notes = []
    if _get(pod, "activeDeadlineSeconds") is not None:
        notes.append(
            f"{path}.activeDeadlineSeconds: each pod's own time limit (the kubelet fails a pod "
            "that runs longer, and the Job retries it within backoffLimit): not modelled"
        )
    restart = _get(pod, "restartPolicy")
    if restart is not None:
        notes.append(
            f"{path}.restartPolicy: {_text(restart) or _shown(restart)}: Never starts a new pod "
            "for each retry, OnFailure restarts the container in its pod; here each retry is an "
            "attempt: not modelled"
        )
    return notes


def _keys(node: Node | None) -> set[str]:
    """The keys of a mapping, for reporting the ones not read (sorted when reported)."""
    return {key.text for key, _ in node.entries} if isinstance(node, Mapping) else set()


def _get(node: Node | None, key: str) -> Node | None:
    return node.get(key) if isinstance(node, Mapping) else None


def _path(node: Node | None, *keys: str) -> Node | None:
    for key in keys:
        node = _get(node, key)
    return node


def _value(node: Node | None) -> object:
    return node.value if isinstance(node, Scalar) else None


def _text(node: Node | None) -> str | None:
    value = _value(node)
    return value if isinstance(value, str) else None


def _null(node: Node) -> bool:
    """Whether a field is null (``timeZone:``), which Kubernetes reads as not given."""
    return isinstance(node, Scalar) and node.value is None


def _shown(node: Node) -> str:
    """A refused value as the message shows it: ``'Sometimes'``, ``5``, or what it is."""
    if isinstance(node, Scalar):
        return repr(node.value)
    return "a list" if isinstance(node, Sequence) else "a mapping"


def _images(template: Node | None) -> tuple[str, ...]:
    containers = _path(template, "template", "spec", "containers")
    if not isinstance(containers, Sequence):
        return ()
    images = (_text(_get(container, "image")) for container in containers.items)
    return tuple(image for image in images if image)
