"""A fleet written as Kubernetes CronJob manifests (``batch/v1``): what ``cronlapse import``
reads back as the same jobs.

A job imported from a CronJob goes back as its document, as written (comments, labels, the pod
template, every field the import did not model), when nothing the import read from it changed;
when something did, the document with those fields set (``spec.schedule``, ``spec.timeZone``,
``spec.suspend``, ``spec.concurrencyPolicy``, ``spec.startingDeadlineSeconds``, the Job's
``backoffLimit`` and ``activeDeadlineSeconds``), written again as YAML, which loses its comments.
Other jobs are written as a CronJob of their own, the payload as its container's command.

What Kubernetes' parser would not read as the job's schedule is not written: an ``L``, ``W`` or
``#`` in a day field, a day field with a step from ``*`` beside the other day field (cron ANDs
the two; robfig/cron ORs them), several expressions in one job.
"""

from __future__ import annotations

from typing import Any

import yaml

from cronlapse.exports.fleet_jobs import FleetJob, NotExportable, ScheduleParts, schedule_parts
from engine.model.job_rules import Overlap
from engine.model.records import JobSpec

CANONICAL_FILE = "fleet-cronjobs.yaml"
"""Where jobs that came from no manifest go."""
_POLICIES = {Overlap.BUFFER_LATEST: "Forbid", Overlap.FORBID: "Forbid", Overlap.REPLACE: "Replace"}
"""The overlap rules a CronJob says (``Forbid`` is read back as ``BufferLatest``, the
controller's own rule)."""
FIELDS = (
    "schedule",
    "max_attempts",
    "run_timeout",
    "overlap",
    "catch_up_window",
    "start_deadline",
    "payload",
    "paused",
)
"""The job's fields a CronJob holds."""


def cronjob_document(job: FleetJob) -> str:
    """``job`` as one YAML document (without ``---``); :class:`NotExportable` if its schedule
    or overlap rule is not a CronJob's."""
    schedule = _schedule(schedule_parts(job.spec.schedule))
    source = job.source_of("k8s")
    if source is not None and not source.get("text"):
        source = None  # a document the import could not keep: written anew
    if source is None:
        document = _canonical(job.spec)
        _set(document, job, schedule, set(FIELDS))
        return yaml.safe_dump(document, sort_keys=False).rstrip("\n")
    changed = job.changed(*FIELDS)
    if not changed:
        return source["text"]
    document = yaml.safe_load(source["text"])
    _set(document, job, schedule, changed)
    return yaml.safe_dump(document, sort_keys=False).rstrip("\n")


def _schedule(parts: ScheduleParts) -> tuple[str, str | None]:
    """``spec.schedule`` and ``spec.timeZone``."""
    if parts.repeat is not None or len(parts.crons) > 1:
        raise NotExportable("a CronJob has one schedule: not several, nor a repeat after each run")
    if parts.every is not None and parts.first == parts.every:
        return f"@every {parts.every}m", None
    if parts.first is not None or parts.every is not None:
        raise NotExportable("a CronJob has a cron schedule or @every from its creation")
    cron = parts.crons[0]
    fields = cron.split()
    day, weekday = fields[2], fields[4]
    if any(mark in day + weekday for mark in "LW#"):
        raise NotExportable(f"{cron!r}: Kubernetes' parser has no L, W or #")
    stepped = [field for field in (day, weekday) if field.startswith("*") and field != "*"]
    if stepped and "*" not in (day, weekday):
        raise NotExportable(
            f"{cron!r}: cron fires where both day fields match, Kubernetes' parser where "
            "either does"
        )
    return cron, parts.zone


def _canonical(spec: JobSpec) -> dict[str, Any]:
    command = spec.payload if spec.payload is not None else spec.job_id
    container = {"name": "job", "image": "busybox", "command": ["sh", "-c", command]}
    pod = {"restartPolicy": "Never", "containers": [container]}
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": spec.job_id},
        "spec": {
            "schedule": "",
            "jobTemplate": {"spec": {"template": {"spec": pod}}},
        },
    }


def _set(
    document: dict[str, Any], job: FleetJob, schedule: tuple[str, str | None], changed: set[str]
) -> None:
    """Set in ``document`` the fields of ``job`` that ``changed`` (all for a new CronJob)."""
    spec = document.setdefault("spec", {})
    template = spec.setdefault("jobTemplate", {}).setdefault("spec", {})
    job_spec = job.spec
    if "schedule" in changed:
        spec["schedule"], zone = schedule
        if zone != (spec.get("timeZone") or "UTC"):  # absent: the controller's zone, UTC
            _put(spec, "timeZone", zone)
    if "paused" in changed:
        _put(spec, "suspend", True if job.paused else None)
    if "overlap" in changed:
        overlap = job_spec.overlap
        policy = None if overlap is None else _POLICIES.get(overlap.policy)
        if overlap is not None and (policy is None or overlap.limit != 1):
            raise NotExportable(f"overlap {overlap.policy.value} (max_active {overlap.limit})")
        _put(spec, "concurrencyPolicy", policy)
    if {"catch_up_window", "start_deadline"} & changed:
        window = job_spec.catch_up_window or job_spec.start_deadline
        _put(spec, "startingDeadlineSeconds", None if window is None else window * 60)
    if "max_attempts" in changed:
        template["backoffLimit"] = job_spec.max_attempts - 1
    if "run_timeout" in changed:
        timeout = job_spec.run_timeout
        _put(template, "activeDeadlineSeconds", None if timeout is None else timeout * 60)
    if "payload" in changed and job.source_of("k8s") is not None:
        _set_images(template, job_spec.payload)


def _set_images(template: dict[str, Any], payload: str | None) -> None:
    """The containers' images from the payload an import made of them (one per word)."""
    pod = template.get("template", {}).get("spec", {})
    containers = pod.get("containers") or []
    images = (payload or "").split()
    if len(images) != len(containers):
        raise NotExportable(f"payload {payload!r}: one image per container ({len(containers)})")
    for container, image in zip(containers, images, strict=True):
        container["image"] = image


def _put(mapping: dict[str, Any], key: str, value: object) -> None:
    """Set ``key``, or remove it for None (Kubernetes' default)."""
    if value is None:
        mapping.pop(key, None)
    else:
        mapping[key] = value


def manifest(documents: list[str]) -> str:
    """Documents as one manifest."""
    return "\n---\n".join(documents) + "\n"
