"""Reading typed numbers: only ASCII digits are digits here.

``str.isdigit`` is also true of ``²``, ``①`` and other characters that ``int`` refuses, so a check
with it lets ``int`` raise on input it was meant to screen. Every reader of typed numbers checks
with :func:`is_digits` instead.
"""

from __future__ import annotations


def is_digits(text: str) -> bool:
    """Whether ``text`` is one or more of the ASCII digits 0-9 (which ``int`` always reads)."""
    return text.isascii() and text.isdigit()
