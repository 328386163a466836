"""``Engine.apply`` routes each command by its class: every command has a route, and anything
else is refused before it changes a thing."""

from __future__ import annotations

import typing

import pytest

from engine.core import Engine
from engine.model import commands


def test_every_command_of_the_vocabulary_has_a_handler() -> None:
    assert set(typing.get_args(commands.Command)) == set(Engine._COMMANDS)


def test_what_is_not_a_command_is_refused_and_changes_nothing() -> None:
    engine = Engine()
    with pytest.raises(TypeError, match="not a command"):
        engine.apply("SUBMIT j1 1 1 1 0")  # type: ignore[arg-type]
    assert len(engine.log) == 0 and not engine.query.jobs()


def test_a_command_reaches_its_part() -> None:
    engine = Engine()
    assert engine.apply(commands.RegisterWorker("w1")).accepted
    assert list(engine.query.workers()) == ["w1"]
    assert not engine.apply(commands.Complete("nope", 0, 1, True)).accepted
