"""YAML scenarios: a validated description of a fleet, played headless with expectations.

``load_scenario(path)`` gives a frozen :class:`Scenario` (or raises :class:`ScenarioInvalid`
listing every problem as ``file:line:column: key.path: message``); ``scenario.new_engine()``
and ``scenario.timeline`` replay it; :class:`ScenarioRunner` plays it in the documented tick
order and collects the :class:`Failure` of every answer or expectation that does not hold.
"""

from __future__ import annotations

import importlib

_HOMES = {
    "Expectation": "checks",
    "Mismatch": "checks",
    "StatusQuery": "checks",
    "Position": "errors",
    "ScenarioInvalid": "errors",
    "Scenario": "model",
    "TimelineEntry": "model",
    "Failure": "runner",
    "Rejection": "runner",
    "ScenarioRunner": "runner",
    "ScriptRun": "script",
    "check_script": "script",
    "run_script_file": "script",
    "load_scenario": "validate",
    "parse_scenario": "validate",
}
"""Each name's module: loaded on first use (PEP 562), so that a process reading one command
through the vocabulary (``cronlapse serve``) loads neither the runner nor seed 001's scripts."""

__all__ = [
    "Expectation",
    "Failure",
    "Mismatch",
    "Position",
    "Rejection",
    "Scenario",
    "ScenarioInvalid",
    "ScenarioRunner",
    "ScriptRun",
    "StatusQuery",
    "TimelineEntry",
    "check_script",
    "load_scenario",
    "parse_scenario",
    "run_script_file",
]


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'engine.scenario' has no attribute {name!r}")
    return getattr(importlib.import_module(f"engine.scenario.{home}"), name)
