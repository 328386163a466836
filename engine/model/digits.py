"""Reading typed numbers: only ASCII digits are digits here, and no more of them than ``int``
reads.

``str.isdigit`` is also true of ``²``, ``①`` and other characters that ``int`` refuses, so a check
with it lets ``int`` raise on input it was meant to screen. And ``int`` refuses a string of more
than ``sys.get_int_max_str_digits()`` digits (4,300 unless configured), so a check that counts
no digits lets a long number through to a ValueError. Every reader of typed numbers checks with
:func:`is_digits` instead.
"""

from __future__ import annotations

import sys

MAX_DIGITS: int | None = sys.get_int_max_str_digits() or None
"""The most digits ``int`` reads from a string (None: no limit)."""


def is_digits(text: str) -> bool:
    """Whether ``text`` is one or more of the ASCII digits 0-9, few enough for ``int`` to read."""
    return text.isascii() and text.isdigit() and (MAX_DIGITS is None or len(text) <= MAX_DIGITS)
