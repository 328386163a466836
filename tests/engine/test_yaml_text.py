"""What cronlapse writes as YAML reads back as the value it wrote."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.scenario.errors import Problems
from engine.scenario.yaml_source import Mapping, Node, Scalar, parse_yaml
from engine.scenario.yaml_text import escaped, flow

TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=12)
DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


def _plain(node: Node) -> object:
    if isinstance(node, Scalar):
        return node.value
    if isinstance(node, Mapping):
        return {key.value: _plain(value) for key, value in node.entries}
    return [_plain(item) for item in node.items]


def _read(text: str) -> object:
    problems = Problems("written.yaml")
    value = _plain(parse_yaml(f"value: {text}\n", problems))
    assert not problems, list(problems)
    return value


@given(DATA)
def test_any_json_data_reads_back_as_itself(value: object) -> None:
    assert _read(flow(value)) == {"value": value}


def test_line_breaks_and_refused_characters_go_out_escaped() -> None:
    assert flow("a\x85b\u2028c\x7f") == '"a\\u0085b\\u2028c\\u007f"'
    assert escaped("tab\tstays; \x01 and \n do not") == "tab\tstays; \\u0001 and \\u000a do not"
