"""``java_order_key`` sorts strings like Java's ``String.compareTo``: by UTF-16 code units.

Also Java's ``length()`` (UTF-16 code units) and ``isBlank()`` (``Character.isWhitespace``), which
the seed 000 facade uses for its id constraints.
"""

from __future__ import annotations

import functools
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.model.ordering import java_is_blank, java_length, java_order_key


def code_units(text: str) -> list[int]:
    """The UTF-16 code units of ``text``, lone surrogates included."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def java_compare_to(a: str, b: str) -> int:
    """Java's ``String.compareTo``, literally: first differing code unit, else length difference."""
    x, y = code_units(a), code_units(b)
    for p, q in zip(x, y, strict=False):
        if p != q:
            return p - q
    return len(x) - len(y)


def sign(n: int) -> int:
    return (n > 0) - (n < 0)


def key_compare(a: str, b: str) -> int:
    ka, kb = java_order_key(a), java_order_key(b)
    return (ka > kb) - (ka < kb)


TRICKY = [
    "",
    "a",
    "A",
    "ab",
    " ",
    "\x00",
    "\u00e9",
    "\ud7ff",
    "\ud800",
    "\udbff",
    "\udc00",
    "\udfff",
    "\ue000",
    "\uffff",
    "\U00010000",
    "\U0001f600",
    "\U0010ffff",
]
SINGLE = [c for c in TRICKY if len(c) == 1]
characters = st.characters(exclude_categories=()) | st.sampled_from(SINGLE)
texts = st.text(alphabet=characters, max_size=8) | st.sampled_from(TRICKY)


@settings(max_examples=1000)
@given(a=texts, b=texts)
def test_key_order_is_java_compare_to(a: str, b: str) -> None:
    assert key_compare(a, b) == sign(java_compare_to(a, b))
    assert (java_order_key(a) == java_order_key(b)) == (code_units(a) == code_units(b))


@settings(max_examples=300)
@given(items=st.lists(texts, max_size=20))
def test_sorting_by_key_is_sorting_by_code_units(items: list[str]) -> None:
    by_key = [code_units(s) for s in sorted(items, key=java_order_key)]
    assert by_key == sorted(code_units(s) for s in items)
    by_compare = sorted(items, key=functools.cmp_to_key(java_compare_to))
    assert [code_units(s) for s in by_compare] == by_key


@settings(max_examples=300)
@given(a=texts, b=texts, c=texts)
def test_a_common_prefix_does_not_change_the_order(a: str, b: str, c: str) -> None:
    assert key_compare(c + a, c + b) == key_compare(a, b)


def test_known_java_orders() -> None:
    # Java: surrogate pairs (D800..DBFF first) sort before BMP characters from E000 up.
    assert java_order_key("\U0001f600") < java_order_key("\uffff")
    assert java_order_key("\U00010000") < java_order_key("\ue000")
    assert java_order_key("\U0010ffff") < java_order_key("\ue000")
    # ...though Python's code-point order says the opposite.
    assert "\U0001f600" > "\uffff"
    assert java_order_key("\ud7ff") < java_order_key("\U00010000")
    assert java_order_key("B") < java_order_key("a")
    assert java_order_key("Z") < java_order_key("a")
    assert java_order_key("a") < java_order_key("ab")
    assert java_order_key("") < java_order_key("\x00")
    assert java_order_key("worker-10") < java_order_key("worker-9")
    assert java_order_key(" a") < java_order_key("a") < java_order_key("a ")
    sample = ["\uffff", "b", "\U0001f600", "B", "\ue000", "\U00010000", "", "ab", "a"]
    assert sorted(sample, key=java_order_key) == [
        "",
        "B",
        "a",
        "ab",
        "b",
        "\U00010000",
        "\U0001f600",
        "\ue000",
        "\uffff",
    ]


def test_lone_surrogates_have_keys() -> None:
    assert code_units("\ud800") == [0xD800]
    assert java_order_key("\ud800") < java_order_key("\ud800\udc00")
    assert java_order_key("\udfff") > java_order_key("\U0010ffff")
    # A surrogate pair spelled as two lone surrogates is the same Java string.
    assert java_order_key("\ud83d\ude00") == java_order_key("\U0001f600")


def java_is_whitespace(char: str) -> bool:
    """Java's ``Character.isWhitespace``, from its documentation."""
    if char in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f":
        return True
    category = unicodedata.category(char)
    return category in ("Zs", "Zl", "Zp") and char not in "\u00a0\u2007\u202f"


WHITESPACE_OR_NOT = list(
    " \t\n\x0b\x0c\r\x1c\x1f\x85\xa0\u1680\u2007\u200b\u2028\u2029\u202f\u3000"
)


@settings(max_examples=500)
@given(text=texts | st.text(alphabet=st.sampled_from(WHITESPACE_OR_NOT), max_size=4))
def test_java_length_and_blank(text: str) -> None:
    assert java_length(text) == len(code_units(text))
    assert java_is_blank(text) == all(java_is_whitespace(char) for char in text)


def test_known_java_lengths_and_blanks() -> None:
    assert java_length("") == 0
    assert java_length("abc") == 3
    assert java_length("\U0001f600") == 2
    assert java_length("\U0001f600" * 50) == 100
    assert java_length("\ud800") == 1
    assert java_is_blank("") is True
    assert java_is_blank(" \t\n\r\x0b\x0c") is True
    assert java_is_blank("\x1c\x1d\x1e\x1f") is True
    assert java_is_blank("\u2000\u3000\u2028\u2029") is True
    assert java_is_blank("\xa0") is False  # str.isspace() says True
    assert java_is_blank("\x85") is False  # str.isspace() says True
    assert java_is_blank("\u2007") is False
    assert java_is_blank("\u202f") is False
    assert java_is_blank("\u200b") is False
    assert java_is_blank(" a ") is False
