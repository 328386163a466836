"""YAML scenarios: a validated description of a fleet, played headless with expectations.

``load_scenario(path)`` gives a frozen :class:`Scenario` (or raises :class:`ScenarioInvalid`
listing every problem as ``file:line:column: key.path: message``); ``scenario.new_engine()``
and ``scenario.timeline`` replay it; :class:`ScenarioRunner` plays it in the documented tick
order and collects the :class:`Failure` of every answer or expectation that does not hold.
"""

from engine.scenario.checks import Expectation, Mismatch, StatusQuery
from engine.scenario.errors import Position, ScenarioInvalid
from engine.scenario.model import Scenario, TimelineEntry
from engine.scenario.runner import Failure, Rejection, ScenarioRunner
from engine.scenario.script import ScriptRun, check_script, run_script_file
from engine.scenario.validate import load_scenario, parse_scenario

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
