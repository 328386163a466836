"""A keyframe of the live state, restored, then the same commands replayed, gives the same run.

Rewinding by replay (:mod:`engine.rewind.live_state`, :mod:`engine.play.history`) rests on this:
``Engine.restore(keyframe)`` at step ``t`` of a program, then the program's commands from ``t``
on, must give the same results, the same events and the same state as the first play, however
often it is done, with the archive or without it. The programs are the command fuzzer's
(tests/engine/test_command_fuzz.py): every command, every policy, stale reports and timers.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import Engine
from engine.model.commands import Advance, Command, RegisterWorker, ScheduleJob
from engine.model.policies import CompletionMode, DispatchMode, Policy
from engine.model.records import JobSpec
from engine.schedules.kinds import Every
from tests.engine.state_fingerprint import assert_same_state, state_fingerprint
from tests.engine.test_command_fuzz import WORKER_IDS, command_of, policies, programs, specs

pytestmark = pytest.mark.integration


def archive_length(engine: Engine) -> int | None:
    archive = engine._store.archive
    return None if archive is None else len(archive)


def play(engine: Engine, commands: list[Command]) -> list:
    return [engine.apply(command) for command in commands]


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    policy=policies,
    seed=st.integers(0, 2**16),
    archive=st.booleans(),
    workers=st.sampled_from((1, 1, 0)),
    jobs=st.lists(specs, max_size=3),
    program=programs,
    cut=st.floats(0, 1),
)
def test_a_restored_keyframe_replays_the_same_run(
    policy: Policy,
    seed: int,
    archive: bool,
    workers: int,
    jobs: list[dict],
    program: list[tuple],
    cut: float,
) -> None:
    engine = Engine(policy, seed=seed, archive=archive)
    for worker_id in WORKER_IDS[:workers]:
        engine.apply(RegisterWorker(worker_id))
    steps = [("schedule", fields) for fields in jobs] + program
    at = int(cut * len(steps))
    commands: list[Command] = []
    for step in steps[:at]:
        commands.append(command_of(step, engine))
        engine.apply(commands[-1])
    keyframe = engine.keyframe()
    then, log_then = state_fingerprint(engine), len(engine.log)
    archived_then = archive_length(engine)
    rest: list[Command] = []
    results = []
    for step in steps[at:]:
        rest.append(command_of(step, engine))
        results.append(engine.apply(rest[-1]))
    events, end = list(engine.log)[log_then:], state_fingerprint(engine)
    archived_end = archive_length(engine)
    for _ in range(2):  # a keyframe restores any number of times
        engine.restore(keyframe)
        assert state_fingerprint(engine) == then
        assert archive_length(engine) == archived_then
        assert play(engine, rest) == results
        assert list(engine.log)[log_then:] == events
        assert state_fingerprint(engine) == end
        assert archive_length(engine) == archived_end


def test_a_restore_across_an_archived_stretch_gives_the_runs_back_exactly() -> None:
    """Runs archived after the keyframe leave the archive; runs archived before stay, and the
    state is that of a fresh engine played to the keyframe."""
    policy = Policy(dispatch=DispatchMode.AUTO, completion=CompletionMode.SIMULATED)

    def fresh(until: int) -> Engine:
        engine = Engine(policy, seed=3, archive=True)
        engine.apply(RegisterWorker("w1"))
        engine.apply(ScheduleJob(JobSpec("job", Every(0, 2), duration=1)))
        engine.apply(Advance(until))
        return engine

    engine = fresh(20)
    keyframe = engine.keyframe()
    engine.apply(Advance(200))
    assert archive_length(engine) > archive_length(fresh(20))  # type: ignore[operator]
    engine.restore(keyframe)
    assert archive_length(engine) == archive_length(fresh(20))
    assert_same_state(engine, fresh(20))
    engine.apply(Advance(200))
    assert_same_state(engine, fresh(200))
