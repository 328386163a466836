"""Java's ``String.compareTo`` order, which seed 000 demands for job and worker ids.

Java compares strings by UTF-16 code units; Python compares by code points. The two disagree for
characters outside the Basic Multilingual Plane: "\\U0001F600" (surrogates 0xD83D 0xDE00) sorts
*before* "\\uFFFF" in Java but after it in Python. Encoding to big-endian UTF-16 turns code-unit
order into byte order, and a shorter prefix still sorts first, so the encoded bytes are a sort key
with exactly Java's semantics. ``surrogatepass`` keeps lone surrogates (legal in both languages).
"""

from __future__ import annotations


def java_order_key(text: str) -> bytes:
    """A key that sorts strings the way Java's ``String.compareTo`` does."""
    return text.encode("utf-16-be", "surrogatepass")
