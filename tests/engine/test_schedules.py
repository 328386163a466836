"""Once, Every and the helpers every schedule kind shares."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from engine.model.rng import TrackedRandom
from engine.schedules.kinds import Every, Once, last_at_or_before, next_fire_times


@given(
    first=st.integers(0, 50),
    interval=st.integers(1, 9),
    low=st.integers(0, 80),
    span=st.integers(-3, 80),
)
def test_last_at_or_before_is_the_latest_fire_tick_in_the_window(first, interval, low, span):
    schedule = Every(first, interval)
    tick = low + span
    window = [t for t in range(low, tick + 1) if schedule.contains(t)]
    assert last_at_or_before(schedule, tick, low) == (window[-1] if window else None)


def test_last_at_or_before_on_a_one_time_schedule():
    assert last_at_or_before(Once(7), 10, 0) == 7
    assert last_at_or_before(Once(7), 6, 0) is None
    assert last_at_or_before(Once(7), 10, 8) is None


def test_next_fire_times_stop_when_the_schedule_ends():
    assert next_fire_times(Every(3, 5), 4, 3) == [8, 13, 18]
    assert next_fire_times(Once(4), 0, 3) == [4]


def test_the_tracked_generator_draws_exactly_as_random_and_knows_when_it_did():
    plain, tracked = random.Random(9), TrackedRandom(9)
    assert not tracked.drawn
    assert [plain.randint(0, 99) for _ in range(20)] == [tracked.randint(0, 99) for _ in range(20)]
    before, saved = plain.getstate(), tracked.getstate()
    assert plain.random() == tracked.random()
    assert tracked.drawn
    tracked.setstate(saved)
    assert not tracked.drawn
    plain.setstate(before)
    assert tracked.random() == plain.random()


@given(draws=st.lists(st.sampled_from(["random", "bits", "randint", "choice"]), max_size=30))
def test_skipping_the_words_drawn_continues_the_generator_where_it_was(draws):
    """What an exported stretch of a service's journal relies on (``seed_skip``)."""
    tracked = TrackedRandom(5)
    for draw in draws:
        if draw == "random":
            tracked.random()
        elif draw == "bits":
            tracked.getrandbits(47)
        elif draw == "randint":
            tracked.randint(0, 1000)
        else:
            tracked.choice("abcdefg")
    saved = tracked.getstate()
    skipped = TrackedRandom(5)
    skipped.skip(tracked.words)
    assert skipped.words == tracked.words
    assert skipped.random() == tracked.random()
    tracked.setstate(saved)
    assert tracked.words == skipped.words - 2


@given(
    schedule=st.one_of(
        st.builds(Once, st.integers(0, 60)),
        st.builds(Every, st.integers(0, 60), st.integers(1, 15)),
    ),
    low=st.integers(0, 80),
    span=st.integers(-1, 80),
)
def test_fire_ticks_are_the_walk_of_first_at_or_after(schedule, low, span):
    high = low + span
    walked, tick = [], schedule.first_at_or_after(low)
    while tick is not None and tick <= high:
        walked.append(tick)
        tick = schedule.first_at_or_after(tick + 1)
    assert list(schedule.fire_ticks(low, high)) == walked
