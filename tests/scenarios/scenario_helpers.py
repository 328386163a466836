"""Helpers shared by the scenario tests."""

from __future__ import annotations

import textwrap

import pytest

from engine.scenario import Scenario, ScenarioInvalid, parse_scenario


def scenario(text: str) -> Scenario:
    """A scenario from (indented) YAML text, named ``s.yaml`` in messages."""
    return parse_scenario(textwrap.dedent(text), "s.yaml")


def problems(text: str) -> list[str]:
    """Every error of an invalid scenario, as printed."""
    with pytest.raises(ScenarioInvalid) as caught:
        scenario(text)
    return [str(error) for error in caught.value.problems]
