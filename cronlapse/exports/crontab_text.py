"""A fleet written as crontabs (crontab(5)): what ``cronlapse import`` reads back as the same jobs.

A job imported from a crontab goes back to its file, in its place: the lines above its entry
(comments, environment lines, entries not imported such as ``@reboot``) and the entry as written
when neither its schedule nor its command changed; a new entry line (same user field) when one
did. Other jobs go to one crontab of their own, each entry under a comment naming the job. An
entry fires in the zone of the last ``CRON_TZ=`` above it (cronie), so one is written wherever a
job's zone is not the one in force.

A crontab holds a schedule and a command, nothing else: a job's retries, limits and overlap rule
are not written, and an exporter's notes say so for jobs that have them.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from cronlapse.exports.fleet_jobs import FleetJob, NotExportable, schedule_parts

CANONICAL_FILE = "fleet.crontab"
"""Where jobs that came from no crontab go."""
CRON_ZONE = "UTC"
"""The zone an entry without ``CRON_TZ=`` is imported in: cron's own, taken as UTC."""
_CRON_TZ = re.compile(r"\s*CRON_TZ\s*=\s*(.*?)\s*$")
_SCHEDULE = re.compile(r"(\s*)(@[A-Za-z]+|\S+\s+\S+\s+\S+\s+\S+\s+\S+)(?=\s)")


def crontab_path(path: str) -> str:
    """Where a crontab imported from ``path`` is written: its name, with the directory that
    makes it a system crontab (``etc/crontab``, ``cron.d/NAME``) so that it reads back so."""
    file = PurePath(path)
    if file.parent.name in ("etc", "cron.d"):
        return f"{file.parent.name}/{file.name}"
    return file.name


def rescheduled(entry: str, cron: str) -> str | None:
    """``entry`` with its schedule replaced by ``cron``, the rest as written (the spacing of its
    five fields too, where it had five); None if it does not start with a schedule."""
    found = _SCHEDULE.match(entry)
    if found is None:
        return None
    fields = cron.split()
    written = re.split(r"(\s+)", found.group(2))
    if len(written) == 9:  # five fields and the four runs of blanks between them
        written[::2] = fields
        schedule = "".join(written)
    else:
        schedule = " ".join(fields)
    return found.group(1) + schedule + entry[found.end(2) :]


def _kept_entry(job: FleetJob, entry: str, crons: tuple[str, ...]) -> str | None:
    """The imported ``entry`` as written, or with only its schedule changed; None when it must
    be written anew (a new command, several expressions)."""
    changed = job.changed("schedule", "payload")
    if not changed:
        return entry
    if changed == {"schedule"} and len(crons) == 1:
        return rescheduled(entry, crons[0])
    return None


class CrontabWriter:
    """One crontab file's text, job after job, keeping track of the ``CRON_TZ`` in force."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.zone: str | None = None

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def add(self, job: FleetJob) -> None:
        """Add ``job``'s lines; :class:`NotExportable` if its schedule is not cron's."""
        parts = schedule_parts(job.spec.schedule)
        if parts.first is not None or parts.every is not None or parts.repeat is not None:
            raise NotExportable("a crontab has only cron schedules: not at, every, first, repeat")
        source = job.source_of("crontab")
        if source is not None:
            *above, entry = source["text"].split("\n")
            self._written(above)
            kept = _kept_entry(job, entry, parts.crons)
            if kept is None:
                self._entries(job, parts.crons, parts.zone, source.get("user"))
            else:
                self._in_zone(parts.zone)
                self.lines.append(kept)
        else:
            self.lines.append(f"# {job.job_id}")
            self._entries(job, parts.crons, parts.zone, None)
        if source is not None and "after" in source:
            self._written(source["after"].split("\n")[:-1])  # each line ends in a break

    def _written(self, lines: list[str]) -> None:
        for line in lines:
            zone = _CRON_TZ.match(line)
            if zone is not None:
                self.zone = zone.group(1).strip("'\"") or None
            self.lines.append(line)

    def _in_zone(self, zone: str | None) -> None:
        """Put ``zone`` in force for the next entry, with a ``CRON_TZ=`` line if it is not: an
        entry kept as written needs one too when a changed job above moved to another zone."""
        if zone is not None and zone != (self.zone or CRON_ZONE):
            self._written([f"CRON_TZ={zone}"])

    def _entries(
        self, job: FleetJob, crons: tuple[str, ...], zone: str | None, user: str | None
    ) -> None:
        """The job's entry (one per cron expression), after a ``CRON_TZ=`` if its zone is not
        the one in force; the command is the payload (an imported entry's command), else the
        job's id."""
        self._in_zone(zone)
        command = job.spec.payload if job.spec.payload is not None else job.job_id
        for cron in crons:
            fields = [cron, *([user] if user else []), command]
            self.lines.append(" ".join(fields))
