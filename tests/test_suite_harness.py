"""The suite's own machinery: how it runs Hypothesis and how it waits.

A loaded machine (two cores shared with other work) makes every step slower by a factor nobody
can bound, so nothing in the suite may depend on how long something takes.
"""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=2)
@given(st.just(None))
def test_a_slow_example_is_not_a_failure(_: None) -> None:
    """Hypothesis's default deadline (200 ms an example) fails an example for its speed alone;
    the suite's profile (tests/conftest.py) has none."""
    time.sleep(0.25)  # the scenario: an example slower than that deadline
