"""A request body is refused at the edge, with its field's path, when it holds what no store can
keep (NUL, a lone surrogate) or an integer too long to read; anything else parses as it is."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cronlapse.service.json_nodes import MAX_INTEGER_DIGITS, BodyError, parse_body

CHARACTERS = st.one_of(
    st.characters(),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=()),
    st.just("\x00"),
)
TEXT = st.text(CHARACTERS, max_size=6)
INTEGERS = st.one_of(
    st.integers(),
    st.integers(MAX_INTEGER_DIGITS - 1, MAX_INTEGER_DIGITS + 1).map(lambda n: 10**n),
    st.integers(MAX_INTEGER_DIGITS - 1, MAX_INTEGER_DIGITS + 1).map(lambda n: -(10**n)),
)
VALUES = st.recursive(
    st.none() | st.booleans() | INTEGERS | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


def storable(value: object) -> bool:
    """What a store can hold: text in UTF-8 without NUL, integers Python can write out."""
    if isinstance(value, str):
        return "\x00" not in value and not any("\ud800" <= char <= "\udfff" for char in value)
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return abs(value) < 10**MAX_INTEGER_DIGITS
    if isinstance(value, list):
        return all(storable(item) for item in value)
    assert isinstance(value, dict)
    return all(storable(key) and storable(item) for key, item in value.items())


def as_json(value: object) -> bytes:
    """``value`` as a client sends it: JSON in ASCII, a lone surrogate as ``\\udXXX``, an
    integer in all its digits (past Python's limit, which ``json.dumps`` keeps otherwise)."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return json.dumps(value).encode("ascii")
    finally:
        sys.set_int_max_str_digits(limit)


@given(VALUES)
def test_a_body_parses_as_sent_if_storable_else_is_refused_with_a_path_an_answer_can_show(
    value: object,
) -> None:
    try:
        parsed = parse_body(as_json(value))
    except BodyError as refused:
        assert not storable(value)
        (refused.path + refused.message).encode("utf-8")  # the 422 can be written
        return
    assert storable(value)
    assert parsed == value


@pytest.mark.parametrize(
    ("body", "path", "message"),
    [
        (b'{"id": "\\ud800"}', "id", "a lone surrogate (U+D800)"),
        (b'{"\\udfff": 1}', "\\udfff", "a lone surrogate (U+DFFF)"),
        (b'{"a": [1, {"b": -1' + b"0" * MAX_INTEGER_DIGITS + b"}]}", "a[1].b", "at most 4300"),
        (b'{"\\ud800": 1, "\\ud800": 2}', "\\ud800", "given twice"),
    ],
    ids=["a lone surrogate", "in a key", "a long integer", "a key twice"],
)
def test_the_refusal_names_the_field(body: bytes, path: str, message: str) -> None:
    with pytest.raises(BodyError) as refused:
        parse_body(body)
    assert refused.value.path == path
    assert message in refused.value.message


def test_a_surrogate_pair_is_one_character_and_accepted() -> None:
    assert parse_body(b'{"payload": "\\ud83d\\ude00"}') == {"payload": "\U0001f600"}
