"""The state machines' fingerprint by stamps (tests/engine/state_fingerprint.py) is the whole
fingerprint, taken again and again as an engine with debug-mode keyframes goes on."""

from __future__ import annotations

from engine.core import Engine
from engine.model.commands import Advance, CancelOccurrence, Command, RegisterWorker, ScheduleJob
from engine.model.records import JobSpec
from engine.schedules.kinds import Every, Once
from tests.engine.state_fingerprint import StampedFingerprints, state_fingerprint


def test_a_fingerprint_by_stamps_equals_the_whole_one_after_every_command() -> None:
    commands: list[Command] = [RegisterWorker("w1"), RegisterWorker("w2")]
    commands += [ScheduleJob(JobSpec(f"j{index}", Every(0, index + 1))) for index in range(4)]
    commands += [ScheduleJob(JobSpec("once", Once(3)))]
    commands += [Advance(tick) for tick in range(1, 30)]
    commands += [CancelOccurrence("j3", 32), ScheduleJob(JobSpec("j0", Once(1))), Advance(40)]
    for archive in (False, True):
        engine = Engine(archive=archive)
        keyframes = engine.record_keyframes(check=True)
        stamped = StampedFingerprints()
        for count, command in enumerate(commands, 1):
            assert stamped.of(engine) == state_fingerprint(engine), (archive, count)
            engine.apply(command)
            keyframes.take(count)
        assert stamped.of(engine) == state_fingerprint(engine)
