"""``generate:``: many similar jobs from one seeded template, so a 2,000-job fleet fits on a page.

A group names a count, an id pattern, fixed keys (``job``), keys picked per job from a list of
options (``choose``) and whole numbers drawn per job from a range (``spread``). Each generated job
is a mapping built from the template's own nodes, read by the same job reader as ``jobs:``
entries, so a wrong option is reported once, at the option, however many jobs picked it.
"""

from __future__ import annotations

import random
import re

from engine.model.values import value
from engine.scenario.errors import Position, path_key
from engine.scenario.jobs import JOB_KEYS
from engine.scenario.schema import Reader
from engine.scenario.yaml_source import Mapping, Node, Scalar

GENERATE_KEYS = ("count", "id", "seed", "job", "choose", "spread")
TEMPLATE_KEYS = tuple(key for key in JOB_KEYS if key not in ("id", "depends_on"))
"""Generated jobs have no dependencies: an id pattern cannot say which job waits for which."""
SPREAD_KEYS = (
    "at",
    "every",
    "first",
    "priority",
    "duration",
    "timeout",
    "max_retries",
    "max_attempts",
)
MAX_COUNT = 100_000

_PLACEHOLDER = re.compile(r"\{n(?::0?(\d{1,2})d?)?\}")


@value
class GeneratedJob:
    """A job mapping made from a template, and the path its problems are reported under."""

    node: Mapping
    path: str


def read_generators(reader: Reader, node: Node, scenario_seed: int | None) -> list[GeneratedJob]:
    """Every group's jobs, group after group, each group's in order of ``n`` (1, 2, ...)."""
    jobs: list[GeneratedJob] = []
    for path, group in reader.items(node, "generate", "a list of generator groups"):
        jobs.extend(_read_group(reader, group, path, scenario_seed))
    return jobs


def _read_group(
    reader: Reader, node: Node, path: str, scenario_seed: int | None
) -> list[GeneratedJob]:
    fields = reader.mapping(node, path, GENERATE_KEYS, required=("count", "id"))
    if fields is None or "count" not in fields or "id" not in fields:
        return []
    count = reader.integer(fields["count"], path_key(path, "count"), 1, MAX_COUNT)
    pattern = _pattern(reader, fields["id"], path_key(path, "id"))
    seed = scenario_seed
    if "seed" in fields:
        seed = reader.integer(fields["seed"], path_key(path, "seed"))
    fixed = _entries(reader, fields.get("job"), path_key(path, "job"), TEMPLATE_KEYS)
    choose = _entries(reader, fields.get("choose"), path_key(path, "choose"), TEMPLATE_KEYS)
    spread = _entries(reader, fields.get("spread"), path_key(path, "spread"), SPREAD_KEYS)
    options = _options(reader, choose, path_key(path, "choose"))
    ranges = _ranges(reader, spread, path_key(path, "spread"))
    _refuse_overlaps(reader, path, fixed, choose, spread)
    if count is None or pattern is None or seed is None or options is None or ranges is None:
        return []
    rng = random.Random(seed)
    id_node = fields["id"]
    jobs = []
    for n in range(1, count + 1):
        entries: list[tuple[Scalar, Node]] = [(_key("id", id_node.pos), _text(pattern, n, id_node))]
        entries += fixed
        entries += [(key, rng.choice(values)) for key, values in options]
        entries += [(key, _number(rng.randint(low, high), key.pos)) for key, low, high in ranges]
        jobs.append(GeneratedJob(Mapping(tuple(entries), node.pos), path))
    return jobs


def _pattern(reader: Reader, node: Node, path: str) -> str | None:
    """An id pattern with one ``{n}`` (or ``{n:04}``, zero-padded); nothing else is formatted."""
    text = reader.string(node, path, "an id pattern such as 'job-{n:04}'")
    if text is None:
        return None
    if len(_PLACEHOLDER.findall(text)) != 1 or "{" in _PLACEHOLDER.sub("", text):
        reader.error(node, path, f"expected one {{n}} or {{n:04}} in the id pattern, got {text!r}")
        return None
    if "," in text:
        reader.error(node, path, f"{text!r} is not a valid id: use no ','")
        return None
    return text


def _text(pattern: str, n: int, node: Node) -> Scalar:
    def number(match: re.Match[str]) -> str:
        width = int(match[1] or 0)
        return str(n).zfill(width)

    text = _PLACEHOLDER.sub(number, pattern)
    return Scalar(text, node.pos, text)


def _key(name: str, pos: Position) -> Scalar:
    return Scalar(name, pos, name)


def _number(value: int, pos: Position) -> Scalar:
    return Scalar(value, pos, str(value))


def _entries(
    reader: Reader, node: Node | None, path: str, keys: tuple[str, ...]
) -> list[tuple[Scalar, Node]]:
    """The entries of an optional sub-mapping whose keys are all in ``keys``."""
    if node is None:
        return []
    fields = reader.mapping(node, path, keys)
    if fields is None:
        return []
    assert isinstance(node, Mapping)
    return [(key, value) for key, value in node.entries if key.text in fields]


def _options(
    reader: Reader, entries: list[tuple[Scalar, Node]], path: str
) -> list[tuple[Scalar, tuple[Node, ...]]] | None:
    options = []
    for key, node in entries:
        values = reader.sequence(node, path_key(path, key.text), "a list of options")
        if values is not None and not values:
            reader.error(node, path_key(path, key.text), "expected at least one option")
            values = None
        if values is None:
            return None
        options.append((key, values))
    return options


def _ranges(
    reader: Reader, entries: list[tuple[Scalar, Node]], path: str
) -> list[tuple[Scalar, int, int]] | None:
    ranges = []
    ok = True
    for key, node in entries:
        key_path = path_key(path, key.text)
        items = reader.sequence(node, key_path, "[min, max]")
        if items is None or len(items) != 2:
            if items is not None:
                reader.expected(node, key_path, "[min, max]")
            ok = False
            continue
        low = reader.integer(items[0], f"{key_path}[0]", -(10**15), 10**15)
        high = reader.integer(items[1], f"{key_path}[1]", -(10**15), 10**15)
        if low is None or high is None:
            ok = False
        elif high < low:
            reader.error(items[1], f"{key_path}[1]", f"expected a maximum >= {low}, got {high}")
            ok = False
        else:
            ranges.append((key, low, high))
    return ranges if ok else None


def _refuse_overlaps(reader: Reader, path: str, *groups: list[tuple[Scalar, Node]]) -> None:
    """A key given in two of job/choose/spread would silently lose one of them."""
    seen: dict[str, str] = {}
    for name, entries in zip(("job", "choose", "spread"), groups, strict=True):
        for key, _ in entries:
            if key.text in seen:
                reader.error(
                    key,
                    path_key(path_key(path, name), key.text),
                    f"{key.text!r} is also given under {seen[key.text]}: give it in one place",
                )
            seen.setdefault(key.text, name)
