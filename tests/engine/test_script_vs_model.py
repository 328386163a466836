"""Random small scripts (see script_strategies.py): the engine's script facade against the
reference model. Failures shrink to a script to paste into ``test_script_protocol.py``.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from protocol_model import model_run
from script_strategies import dependency_graphs, scripts

from engine import run_script
from engine.facades.script import execute_script


def _error_numbers(errors: list[str]) -> list[int]:
    numbers = []
    for error in errors:
        match = re.match(r"line (\d+): ", error)
        assert match, f"error entry does not start with 'line N: ': {error!r}"
        numbers.append(int(match.group(1)))
    return numbers


@pytest.mark.integration
@settings(max_examples=150)
@given(scripts())
def test_engine_agrees_with_model(script: list[str]) -> None:
    expected_output, expected_errors = model_run(script)
    result = execute_script(script)
    assert result.output == expected_output
    numbers = _error_numbers(result.errors)
    assert set(numbers) == set(expected_errors)
    assert numbers == sorted(numbers)  # reported in input order
    assert result.exit_code == (1 if expected_errors else 0)


@settings(max_examples=100)
@given(scripts())
def test_same_script_same_result(script: list[str]) -> None:
    first = execute_script(script)
    second = execute_script(script)
    assert (first.output, first.errors, first.exit_code) == (
        second.output,
        second.errors,
        second.exit_code,
    )
    assert run_script(script) == first.output


@settings(max_examples=100)
@given(dependency_graphs())
def test_cascades_agree_with_model(script: list[str]) -> None:
    expected_output, expected_errors = model_run(script)
    assert expected_errors == []
    result = execute_script(script)
    assert result.output == expected_output
    assert result.errors == []
