"""What ``--vary KEY=VALUES`` says: a path into the scenario and the values to put there.

A key is a path of mapping keys joined by dots, with ``[N]`` for the Nth item of a list and
``[id=etl]`` for the item of a list whose ``id`` is ``etl``: ``policy.order``,
``defaults.max_retries``, ``jobs[id=etl].priority``, ``generate[0].count``. Two keys mean
something other than a place in the file: ``workers`` is the number of workers (the scenario's
first N, then more), and ``seed`` is the scenario's seed.

Values are a comma-separated list, each read as YAML reads a plain scalar (``fifo,priority``,
``1,2.5,true``), or a range ``FROM..TO`` or ``FROM..TO/STEP`` that includes both ends when the
step lands on them (``10..50/10`` is 10, 20, 30, 40, 50).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import yaml

from engine.model.digits import is_digits

MAX_VALUES = 10_000
"""Values one key may take: a typo such as ``1..1000000`` should not start a million runs."""

WORKERS = "workers"
SEED = "seed"

Value = str | int | float | bool | None

_NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
_SEGMENT = re.compile(rf"({_NAME})((?:\[[^\]]*\])*)")
_SELECTOR = re.compile(r"\[([^\]]*)\]")
_RANGE = re.compile(r"(-?[0-9.]+)\.\.(-?[0-9.]+)(?:/([0-9.]+))?")


class VaryError(ValueError):
    """A ``--vary`` option that cannot be used; the message names it and what was expected."""


@dataclass(frozen=True, slots=True)
class Field:
    """A mapping key."""

    name: str


@dataclass(frozen=True, slots=True)
class Item:
    """The Nth item of a list (0-based)."""

    index: int


@dataclass(frozen=True, slots=True)
class Match:
    """The item of a list whose ``field`` is ``value`` (``[id=etl]``)."""

    field: str
    value: str


Step = Field | Item | Match


@dataclass(frozen=True, slots=True)
class KeyPath:
    text: str
    steps: tuple[Step, ...]

    @property
    def special(self) -> str | None:
        """``workers`` or ``seed`` when the key means that rather than a place in the file."""
        if len(self.steps) == 1 and isinstance(self.steps[0], Field):
            name = self.steps[0].name
            if name in (WORKERS, SEED):
                return name
        return None

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Variation:
    """One ``--vary`` option: the key and its values, in the order given."""

    key: KeyPath
    values: tuple[Value, ...]


SEED_KEY = KeyPath(SEED, (Field(SEED),))


def parse_key(text: str) -> KeyPath:
    """The path ``text`` names; raises :class:`VaryError` saying what is wrong."""
    steps: list[Step] = []
    for part in text.split("."):
        matched = _SEGMENT.fullmatch(part)
        if matched is None:
            raise VaryError(
                f"key {text!r}: {part!r} is not a key name (letters, digits, _ and -), "
                "optionally followed by [N] or [field=value]"
            )
        steps.append(Field(matched.group(1)))
        for selector in _SELECTOR.findall(matched.group(2)):
            steps.append(_selector(text, selector))
    return KeyPath(text, tuple(steps))


def _selector(key: str, selector: str) -> Step:
    if is_digits(selector):
        return Item(int(selector))
    name, equals, value = selector.partition("=")
    if equals and re.fullmatch(_NAME, name) and value:
        return Match(name, value)
    raise VaryError(f"key {key!r}: [{selector}] is neither a list index such as [0] nor [id=NAME]")


def parse_values(key: str, text: str) -> tuple[Value, ...]:
    """The values of ``KEY=VALUES``: a range or a comma-separated list."""
    ranged = _RANGE.fullmatch(text)
    if ranged is not None:
        return _range(key, *ranged.groups())
    values = []
    for token in text.split(","):
        token = token.strip()
        if not token:
            raise VaryError(f"{key}: an empty value in {text!r} (expected a,b,c or FROM..TO/STEP)")
        values.append(_scalar(token))
    return tuple(values)


def _scalar(token: str) -> Value:
    try:
        value = yaml.safe_load(token)
    except yaml.YAMLError:
        return token
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return token


def _range(key: str, low_text: str, high_text: str, step_text: str | None) -> tuple[Value, ...]:
    try:
        low, high = Decimal(low_text), Decimal(high_text)
        step = Decimal(step_text) if step_text is not None else Decimal(1)
    except InvalidOperation:
        raise VaryError(f"{key}: {low_text}..{high_text} is not a range of numbers") from None
    if step <= 0:
        raise VaryError(f"{key}: the step of a range must be more than 0, not {step_text}")
    if high < low:
        raise VaryError(f"{key}: the range {low_text}..{high_text} runs backwards")
    count = int((high - low) / step) + 1
    if count > MAX_VALUES:
        raise VaryError(f"{key}: {count:,} values; at most {MAX_VALUES:,} per key")
    whole = all(number == number.to_integral_value() for number in (low, step))
    numbers = (low + step * n for n in range(count))
    return tuple(int(n) if whole else float(n) for n in numbers)


def parse_variation(option: str) -> Variation:
    """``KEY=VALUES`` as given to ``--vary``."""
    split = _top_level_equals(option)
    key_text, values_text = option[:split], option[split + 1 :]
    if split < 0 or not key_text.strip():
        raise VaryError(f"--vary {option!r}: expected KEY=VALUES, e.g. workers=10..50/10")
    key = parse_key(key_text.strip())
    values = parse_values(key.text, values_text.strip())
    if key.special is not None:
        _check_counts(key.text, values, 1 if key.special == WORKERS else 0)
    return Variation(key, values)


def _top_level_equals(option: str) -> int:
    """Where KEY ends: the first ``=`` outside brackets (``jobs[id=etl].priority=5``), or -1."""
    depth = 0
    for index, char in enumerate(option):
        if char == "[":
            depth += 1
        elif char == "]":
            depth = max(0, depth - 1)
        elif char == "=" and depth == 0:
            return index
    return -1


def _check_counts(key: str, values: tuple[Value, ...], least: int) -> None:
    for value in values:
        if type(value) is not int or value < least:
            raise VaryError(f"{key}: {value!r} is not a whole number of at least {least}")
