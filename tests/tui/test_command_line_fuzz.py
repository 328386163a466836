"""Any command line is parsed to its command or refused with a message, never a crash.

Words are drawn from what a user types (each verb's own keys, values YAML reads as numbers,
lists, mappings or dates, and stray quotes, brackets and control characters), so that most lines
reach the readers behind the verbs rather than stopping at the first word."""

from __future__ import annotations

import shlex

from hypothesis import given, settings
from hypothesis import strategies as st
from tui_helpers import CLOCK, small_session

from engine.scenario.vocabulary import OPTIONS, VERBS
from tui.model.commandline import CommandError, Parsed, parse
from tui.model.navigator import Navigator

ENGINE = Navigator(small_session().history).engine
VALUES = st.one_of(
    st.sampled_from(
        [
            "0",
            "-1",
            "5",
            "2**63",
            "1e309",
            "nan",
            "none",
            "null",
            "true",
            "[]",
            "{}",
            "[1, x]",
            "{kind: fixed, base: 3}",
            "{on: [failed]}",
            "etl",
            "w1",
            "12:00",
            "25:61",
            "mon@09:00",
            "last@23:59",
            "2026-01-01T00:00",
            "+2h",
            "+",
            "0 3 * * *",
            "@daily",
            "Europe/Paris",
            "Mars/Base",
            "a,b",
            ",",
            "[",
            "{",
            ":",
            "'",
            "\\",
            "\x00",
            "\x08",
            "\u2028",
            "é",
        ]
    ),
    st.text(max_size=8),
)


@st.composite
def command_words(draw: st.DrawFn) -> list[str]:
    """A verb, values for some of its arguments, then ``KEY=VALUE`` words, mostly its own keys."""
    verb = VERBS[draw(st.sampled_from(sorted(VERBS)))]
    positional = draw(st.lists(VALUES, max_size=len(verb.params)))
    keys = st.sampled_from(verb.keys) if verb.keys else st.sampled_from(sorted(OPTIONS))
    keys = st.one_of(keys, keys, st.sampled_from(sorted(OPTIONS)))
    keyed = draw(st.dictionaries(keys, VALUES, max_size=4))
    return [verb.name, *positional, *(f"{key}={value}" for key, value in keyed.items())]


@settings(max_examples=300)
@given(command_words())
def test_any_words_after_a_verb_parse_or_are_refused_with_a_message(words: list[str]) -> None:
    try:
        parsed = parse(shlex.join(words), ENGINE, CLOCK)
    except CommandError as error:
        assert str(error)
    else:
        assert isinstance(parsed, Parsed) and parsed.command is not None


@given(st.text(max_size=30))
def test_any_text_parses_or_is_refused_with_a_message(text: str) -> None:
    try:
        parse(text, ENGINE, CLOCK)
    except CommandError as error:
        assert str(error)
