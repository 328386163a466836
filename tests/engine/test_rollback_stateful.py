"""Rollback is exact: a hypothesis state machine that rewinds the engine and compares it with a
fresh replay.

It drives every command of ``EngineMachine`` (workers down/up/drain, jobs scheduled once, every N
ticks or on a calendar, modify, cancel, delete, pause, resume, complete, advance, dispatch) under
random policies; the engine leaves a restore point after every command, as the history does after
every tick, and sometimes forgets the last one, as the history does when a command changes its
tick. Between commands it rolls back to a random earlier restore point, returns to the head
(the furthest state reached), or replays the head's own next command (the same future, which
keeps the head valid; any other command starts a new future and drops it). After each rollback
and each return to the head, the engine's whole state (``state_fingerprint``: every field of every
record, the event log, the ready queue, the worker pool, the due and timer heaps, the by-state
index, the counters, the random generator) must equal that of a fresh engine that ran the same
commands. The journal's debug mode is on throughout.

Keyframes (:mod:`engine.rewind.keyframes`): at the furthest state the machine sometimes takes one,
and then sometimes forgets the undo information before the previous one, as the history does; it
jumps to any keyframe, backwards or forwards, from wherever it is (after rollbacks and replays of
the head's own commands too). Each keyframe is labelled with the number of commands before it.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule
from state_fingerprint import assert_same_state
from test_engine_stateful import EngineMachine

from engine.model.commands import Command, Result
from engine.model.records import JobSpec

pytestmark = pytest.mark.integration


class RollbackMachine(EngineMachine):
    SCHEDULES = ("once", "every", "calendar")

    def __init__(self) -> None:
        super().__init__()
        self.head: tuple[list[Command], list[Result]] | None = None
        """While the engine keeps a head: the commands and results that reached it."""

    def run(self, command: Command) -> Result:
        self.label_keyframes(len(self.commands))
        if self.head is not None:
            ahead = self.head[0]
            done = len(self.commands)
            if done >= len(ahead) or ahead[done] != command:
                self.engine.drop_head()
                self.head = None
        return super().run(command)

    def draw_spec(self, data: st.DataObject) -> JobSpec:
        """As the engine machine's, but failing at random more often: draws from the random
        generator are what a restore point's generator state must get right."""
        spec = super().draw_spec(data)
        if data.draw(st.booleans(), label="fails at random"):
            spec = dataclasses.replace(spec, failure_rate=0.5, max_attempts=3)
        return spec

    def assert_same_as_a_fresh_replay(self) -> None:
        fresh = self.new_engine()
        results = [fresh.apply(command) for command in self.commands]
        assert results == self.results
        assert_same_state(self.engine, fresh)
        assert self.engine.has_head == (self.head is not None)

    def label_keyframes(self, done: int) -> None:
        """The journal makes a keyframe of the furthest state when it leaves it: label it."""
        for keyframe in self.engine.journal.keyframes:
            if keyframe.label is None:
                keyframe.label = done

    def keep_the_head(self) -> None:
        if self.head is None:
            self.head = (list(self.commands), list(self.results))

    def back_to(self, index: int) -> None:
        done, mark = self.marks[index]
        self.label_keyframes(len(self.commands))
        self.keep_the_head()
        self.engine.rollback(mark)
        self.label_keyframes(len(self.commands))
        if not self.engine.has_head:
            # The journal keeps no head when the state it left is the one it returned to.
            assert self.head is not None
            head = self.new_engine()
            for command in self.head[0]:
                head.apply(command)
            assert_same_state(self.engine, head)
            self.head = None
        del self.commands[done:], self.results[done:], self.marks[index + 1 :]
        self.assert_same_as_a_fresh_replay()

    def to_the_head(self) -> None:
        assert self.head is not None
        commands, results = self.head
        mark = self.engine.restore_head()
        self.commands, self.results = list(commands), list(results)
        self.marks = [(len(commands), mark)]
        self.head = None
        self.assert_same_as_a_fresh_replay()

    def replay_from_the_head(self, commands: int) -> None:
        """Run the head's own next commands again: the same future keeps the head."""
        assert self.head is not None
        ahead, results = self.head
        for command, result in list(zip(ahead, results, strict=True))[len(self.commands) :][
            :commands
        ]:
            assert self.run(command) == result
            assert self.engine.has_head

    @precondition(lambda self: len(self.marks) > 1)
    @rule(data=st.data())
    def roll_back(self, data: st.DataObject) -> None:
        self.back_to(data.draw(st.integers(0, len(self.marks) - 1), label="back to mark"))

    @precondition(lambda self: len(self.marks) > 1)
    @rule(back=st.integers(0, 4), replay=st.integers(0, 4), to_head=st.booleans())
    def step_back_replay_and_return(self, back: int, replay: int, to_head: bool) -> None:
        """What a user of the history does most: a few steps back, some forward again (a replay
        of the same future), then a jump to the furthest state."""
        self.back_to(max(0, len(self.marks) - 1 - back))
        if self.head is None:  # it rolled back to the state it left
            return
        self.replay_from_the_head(replay)
        if to_head and self.head is not None:
            self.to_the_head()

    @precondition(lambda self: len(self.marks) > 1)
    @rule()
    def forget_the_last_mark(self) -> None:
        """As the history does when a command changes the tick of its last mark: later marks
        then name an older one as ``previous``, which must not lend them its random state."""
        self.marks.pop()

    @precondition(lambda self: self.head is None)
    @rule(forget=st.booleans())
    def take_a_keyframe(self, forget: bool) -> None:
        """As the history does every span at its furthest state."""
        journal = self.engine.journal
        self.label_keyframes(len(self.commands))
        keyframe = journal.keyframe(len(self.commands), self.marks[-1][1])
        self.marks.append((len(self.commands), keyframe.mark))
        if forget:
            oldest = journal.forget_window_before_span()
            self.marks = [pair for pair in self.marks if pair[1].generation >= oldest]
        self.assert_same_as_a_fresh_replay()

    @rule(data=st.data())
    def jump_to_a_keyframe(self, data: st.DataObject) -> None:
        journal = self.engine.journal
        self.label_keyframes(len(self.commands))
        index = data.draw(st.integers(0, len(journal.keyframes) - 1), label="keyframe")
        self.keep_the_head()
        assert self.head is not None
        commands, results = self.head
        mark = journal.jump(index)
        self.label_keyframes(len(commands))
        done = journal.keyframes[index].label
        self.commands, self.results = list(commands[:done]), list(results[:done])
        self.marks = [(done, mark)]
        if index == len(journal.keyframes) - 1:
            self.head = None
        self.assert_same_as_a_fresh_replay()

    @precondition(lambda self: self.head is not None)
    @rule()
    def return_to_the_head(self) -> None:
        self.to_the_head()

    @precondition(lambda self: self.head is not None and len(self.head[0]) > len(self.commands))
    @rule(commands=st.integers(1, 5))
    def replay_the_heads_next_commands(self, commands: int) -> None:
        self.replay_from_the_head(commands)


# Every rollback compares the state with a fresh replay of all the commands so far, and the
# invariants read the whole log after every step: an example costs about the square of its
# steps, so 100 examples of 40 steps cost about 0.4 of 150 of 50.
RollbackMachine.TestCase.settings = settings(
    max_examples=100,
    stateful_step_count=40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestRollbackMachine = RollbackMachine.TestCase
