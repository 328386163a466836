"""Java's ``String.compareTo`` order, which seed 000 demands for job and worker ids.

Java compares strings by UTF-16 code units; Python compares by code points. The two disagree for
characters outside the Basic Multilingual Plane: "\\U0001F600" (surrogates 0xD83D 0xDE00) sorts
*before* "\\uFFFF" in Java but after it in Python. Encoding to big-endian UTF-16 turns code-unit
order into byte order, and a shorter prefix still sorts first, so the encoded bytes are a sort key
with exactly Java's semantics. ``surrogatepass`` keeps lone surrogates (legal in both languages).
"""

from __future__ import annotations

import codecs
import unicodedata

_UTF_16_BE = codecs.utf_16_be_encode
"""The codec's function itself: ``str.encode`` looks the codec and its error handler up by name
on every call, which costs four times the encoding of a short id."""


def java_order_key(text: str) -> bytes:
    """A key that sorts strings the way Java's ``String.compareTo`` does."""
    return _UTF_16_BE(text, "surrogatepass")[0]


_JAVA_CONTROL_WHITESPACE = frozenset("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f")
JAVA_ASCII_WHITESPACE = " \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"
"""The ASCII characters ``Character.isWhitespace`` accepts (ids are nearly always ASCII)."""
_NON_BREAKING_SPACES = frozenset("\xa0\u2007\u202f")


def java_is_whitespace(char: str) -> bool:
    """Java's ``Character.isWhitespace``: space separators except the non-breaking ones, plus
    some control characters. Python's ``str.isspace`` differs (it accepts U+00A0 and U+0085)."""
    if char in _JAVA_CONTROL_WHITESPACE:
        return True
    return unicodedata.category(char) in ("Zs", "Zl", "Zp") and char not in _NON_BREAKING_SPACES


def java_is_blank(text: str) -> bool:
    """Java's ``String.isBlank``: empty, or whitespace only."""
    if text.isascii():
        return not text.strip(JAVA_ASCII_WHITESPACE)
    return all(java_is_whitespace(char) for char in text)


def java_length(text: str) -> int:
    """Java's ``String.length()``: UTF-16 code units, so a character outside the BMP counts 2."""
    if text.isascii():
        return len(text)
    return len(java_order_key(text)) // 2
