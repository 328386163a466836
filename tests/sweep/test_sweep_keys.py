"""``--vary KEY=VALUES``: keys as paths, values as lists and ranges, and the errors for both."""

from __future__ import annotations

import pytest

from cronlapse.analyses.sweep.keys import Field, Item, Match, VaryError, parse_key, parse_variation


def test_a_key_is_a_path_of_fields_items_and_matches() -> None:
    assert parse_key("jobs[id=etl].priority").steps == (
        Field("jobs"),
        Match("id", "etl"),
        Field("priority"),
    )
    assert parse_key("generate[0].count").steps == (Field("generate"), Item(0), Field("count"))


def test_workers_and_seed_are_special_but_paths_through_them_are_not() -> None:
    assert parse_key("workers").special == "workers"
    assert parse_key("seed").special == "seed"
    assert parse_key("workers[0]").special is None


@pytest.mark.parametrize(
    ("option", "values"),
    [
        ("workers=10..50/10", (10, 20, 30, 40, 50)),
        ("workers=1..3", (1, 2, 3)),
        ("workers=10..45/10", (10, 20, 30, 40)),
        ("defaults.failure_rate=0..0.1/0.05", (0.0, 0.05, 0.1)),
        ("policy.order=fifo,priority", ("fifo", "priority")),
        ("jobs[id=a].priority=1, high,2.5", (1, "high", 2.5)),
        ("defaults.max_retries=0", (0,)),
    ],
)
def test_values_are_lists_or_ranges_that_include_their_ends(option: str, values: tuple) -> None:
    assert parse_variation(option).values == values


def test_the_key_ends_at_the_first_equals_sign_outside_brackets() -> None:
    variation = parse_variation("jobs[id=etl].priority=high")
    assert variation.key.text == "jobs[id=etl].priority"
    assert variation.values == ("high",)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("workers", "expected KEY=VALUES"),
        ("=1,2", "expected KEY=VALUES"),
        ("policy..order=fifo", "'' is not a key name"),
        ("jobs[x y].priority=1", "[x y] is neither a list index"),
        ("workers=5..1", "runs backwards"),
        ("workers=1..5/0", "the step of a range must be more than 0"),
        ("workers=1..1000000", "at most 10,000 per key"),
        ("workers=0,2", "workers: 0 is not a whole number of at least 1"),
        ("workers=two", "workers: 'two' is not a whole number"),
        ("seed=-1", "seed: -1 is not a whole number of at least 0"),
        ("policy.order=fifo,,aging", "an empty value"),
    ],
)
def test_a_bad_option_says_what_was_expected(option: str, message: str) -> None:
    with pytest.raises(VaryError, match=None) as raised:
        parse_variation(option)
    assert message in str(raised.value)
