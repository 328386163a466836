"""The advised fleet written as a scenario file: the parsed tree, edited, in plain YAML.

Values go out as JSON (:func:`engine.scenario.yaml_text.flow`), which YAML reads back as the same
values; each top-level key on its lines, each list item (a job) on one line, so the file reads and
diffs as the imported ones do. Comments of the original file's head (an import's account of where
the fleet came from) are kept, then a line per change. ``expect:`` is left out: what the fleet
was expected to do before the changes is not what it does after.

This is the scenario writer; a fleet whose jobs all came from crontabs, CronJob manifests and
timers goes back to those files through the exporter (:mod:`cronlapse.cli.advise`).
"""

from __future__ import annotations

import re

from cronlapse.analyses.advise.advice import Advice
from engine.scenario.yaml_source import Mapping, Node, Scalar, Sequence
from engine.scenario.yaml_text import escaped, flow

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
LEFT_OUT = ("expect",)


def scenario_text(advice: Advice) -> str:
    """The advised fleet as a scenario file."""
    head = []
    for line in advice.fleet.text.splitlines():
        if not line.startswith("#"):
            break
        head.append(line)
    taken = len(advice.taken)
    head.append(f"# Advised by `cronlapse advise` ({taken} change{'' if taken == 1 else 's'}):")
    for proposal in advice.taken:
        head += [f"#   {escaped(change)}" for change in proposal.changes]
    tree = advice.advised.tree
    assert isinstance(tree, Mapping)
    body = []
    for name, value in tree.entries:
        if name.text in LEFT_OUT:
            continue
        if isinstance(value, Sequence) and not all(isinstance(i, Scalar) for i in value.items):
            body.append(f"{_key(name)}:")
            body += [f"  - {_flow(item)}" for item in value.items]
        else:
            body.append(f"{_key(name)}: {_flow(value)}")
    return "\n".join([*head, *body]) + "\n"


def _flow(node: Node) -> str:
    if isinstance(node, Scalar):
        return flow(node.value)
    if isinstance(node, Sequence):
        return "[" + ", ".join(_flow(item) for item in node.items) + "]"
    return "{" + ", ".join(f"{_key(key)}: {_flow(value)}" for key, value in node.entries) + "}"


def _key(name: Scalar) -> str:
    return name.text if _PLAIN_KEY.match(name.text) else flow(name.text)
