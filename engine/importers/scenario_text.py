"""Writing an imported fleet as a scenario file: plain YAML a person can read and edit.

The text is written by hand rather than dumped, so that each job keeps, as comments above it, the
line it came from and the comment that described it there. Every string goes out JSON-quoted,
which YAML reads back exactly, with the characters YAML would refuse or read as a line break
escaped; a comment escapes them too, so no text from the imported files can end it early.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_NOT_ID = re.compile(r"[^A-Za-z0-9._-]+")
_NOT_PLAIN = re.compile("[^\t\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""What may not go out as it is: line breaks (``\\n``, ``\\x85``, ``\\u2028`` ...) and the
characters YAML refuses (controls, lone surrogates)."""


@dataclass(frozen=True, slots=True)
class ImportedJob:
    name: str
    """What the job is called where it came from (becomes its id, made unique)."""
    keys: dict[str, object]
    """The scenario job's keys besides ``id``, in the order to write them."""
    comments: tuple[str, ...]
    """Lines to write above the job."""


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
    lines = [f"# {_escaped(line)}" if line else "#" for line in header]
    lines += [
        f"scenario: {_quote(title)}",
        f"clock: {{epoch: {_quote(horizon.epoch)}, timezone: {_quote(horizon.timezone)}, "
        f"tick: 60, until: {horizon.days * 1440}}}",
        "workers: [" + ", ".join(f"w{n}" for n in range(1, workers + 1)) + "]",
        "jobs:" if jobs else "jobs: []",
    ]
    ids = unique_ids(job.name for job in jobs)
    for job_id, job in zip(ids, jobs, strict=True):
        lines += [f"  # {_escaped(comment)}" for comment in job.comments]
        keys = ", ".join(f"{key}: {_quote(value)}" for key, value in job.keys.items())
        lines.append(f"  - {{id: {_quote(job_id)}, {keys}}}")
    if paused:
        lines.append("timeline:")
        lines += [f"  - {{at: 0, pause: {{job: {_quote(ids[index])}}}}}" for index in paused]
    return "\n".join(lines) + "\n"


def unique_ids(names: Iterable[str]) -> list[str]:
    """Ids from names: characters an id may hold, at most 60 of them, ``-2``, ``-3``... added
    to repeats."""
    seen: dict[str, int] = {}
    ids = []
    for name in names:
        base = _NOT_ID.sub("-", name).strip("-.")[:60] or "job"
        count = seen.get(base, 0) + 1
        seen[base] = count
        ids.append(base if count == 1 else f"{base}-{count}")
    return ids


def _quote(value: object) -> str:
    if not isinstance(value, str):
        return str(value)
    return _escaped(json.dumps(value, ensure_ascii=False))


def _escaped(text: str) -> str:
    """``text`` with each character that may not go out as it is written as its ``\\u``
    escape: in a double-quoted string YAML reads it back as that character."""
    return _NOT_PLAIN.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
