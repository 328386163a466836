"""From ``--vary`` options to the tasks a sweep plays: variants, seeds, and an early check of
every key, so a typo stops the sweep before anything runs, not in each of its rows.

Variants are the product of the options' values, in the order given: the first option varies
slowest, and each option's values keep their order. That order is also what "cheapest" means to
``--target``: list values cheapest first (``workers=10..50/10``).

Replica ``r`` of a variant plays with seed ``base + r``, where ``base`` is the variant's ``seed``
if the sweep varies it, else the scenario's own (0 when it has none): replica 0 is the scenario
as written.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from cronlapse.analyses.sweep.apply import closest_path, paths_in, set_value
from cronlapse.analyses.sweep.evaluate import Task, adopt, document
from cronlapse.analyses.sweep.keys import SEED, Field, Value, Variation, VaryError
from engine.model.problems import Code
from engine.scenario.errors import Problems, ScenarioInvalid
from engine.scenario.validate import Document, scenario_from_tree
from engine.scenario.yaml_source import Mapping, Node, Scalar

MAX_TASKS = 100_000
"""Runs one sweep may ask for (variants times replicas)."""


@dataclass(frozen=True, slots=True)
class Variant:
    index: int
    settings: tuple[tuple[str, Value], ...]
    """(key as written, value), one per ``--vary`` option."""

    def label(self) -> str:
        return " ".join(f"{key}={value}" for key, value in self.settings)


def variants(variations: list[Variation]) -> list[Variant]:
    """Every combination of the options' values, the first option varying slowest."""
    keys = [variation.key.text for variation in variations]
    combos = itertools.product(*(variation.values for variation in variations))
    return [
        Variant(index, tuple(zip(keys, combo, strict=True))) for index, combo in enumerate(combos)
    ]


def plan_tasks(
    source: str,
    text: str,
    variations: list[Variation],
    replicas: int,
    metrics: tuple[str, ...],
    until: int | None = None,
    *,
    loaded: Document | None = None,
) -> tuple[list[Variant], list[Task]]:
    """The variants and one task per variant and replica; raises :class:`VaryError` for a key
    the scenario cannot take and :class:`ScenarioInvalid` for a scenario that does not load.
    ``loaded``: the document the scenario was loaded from (the opener's), if any."""
    tree = check_keys(source, text, variations, loaded)
    found = variants(variations)
    if len(found) * replicas > MAX_TASKS:
        raise VaryError(
            f"{len(found):,} variants x {replicas} replicas: at most {MAX_TASKS:,} runs per sweep"
        )
    keys = {variation.key.text: variation.key for variation in variations}
    seed_varied = any(variation.key.special == SEED for variation in variations)
    own_seed = _seed_of(tree)
    tasks = []
    for variant in found:
        settings = tuple((keys[key], value) for key, value in variant.settings)
        base = dict(variant.settings)[SEED] if seed_varied else own_seed
        for replica in range(replicas):
            seed = int(base) + replica  # type: ignore[arg-type]
            tasks.append(Task(variant.index, replica, source, text, settings, seed, metrics, until))
    return found, tasks


def check_keys(
    source: str, text: str, variations: list[Variation], loaded: Document | None = None
) -> Node:
    """The parsed scenario, after checking that it loads and that each key, given its first
    value, names a place the scenario has or may have. Loaded with the memo of the tree the
    variants edit (:func:`document`): played in this process, they read the jobs loaded here.
    A document ``loaded`` already (the opener's) is not loaded again: the variants edit it."""
    if loaded is None:
        tree, memo = document(source, text)
        scenario_from_tree(tree, Problems(source), memo)
    else:
        adopt(source, text, loaded)
        tree, memo = loaded
    for variation in variations:
        key = variation.key
        if key.special is not None:
            continue
        edited = set_value(tree, key, variation.values[0])
        try:
            scenario_from_tree(edited, Problems(source), memo)
        except ScenarioInvalid as invalid:
            _refuse_unknown_key(invalid, tree, variation)
    return tree


def _refuse_unknown_key(invalid: ScenarioInvalid, tree: Node, variation: Variation) -> None:
    """Raise if the loader refused the key itself; a refused value is its variant's business."""
    names = {step.name for step in variation.key.steps if isinstance(step, Field)}
    for problem in invalid.problems:
        if problem.code is Code.UNKNOWN_KEY and problem.subject in names:
            suggestion = closest_path(variation.key.text, list(paths_in(tree)))
            raise VaryError(f"--vary {variation.key}: {problem.message}{suggestion}") from None


def _seed_of(tree: Node) -> int:
    if isinstance(tree, Mapping):
        seed = tree.get(SEED)
        if isinstance(seed, Scalar) and type(seed.value) is int:
            return seed.value
    return 0
