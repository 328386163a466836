"""Safe loading: plain data only, positions kept, and hostile files refused with a clear message."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scenario_helpers import problems, scenario

from engine.scenario import ScenarioInvalid, load_scenario, yaml_source
from engine.scenario.errors import Position, Problems
from engine.scenario.yaml_source import Mapping, Node, Scalar, Sequence, parse_yaml

BILLION_LAUGHS = """\
scenario: lol
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


def tree(text: str) -> Mapping:
    problems_found = Problems("t.yaml")
    node = parse_yaml(text, problems_found)
    assert not problems_found, list(problems_found)
    assert isinstance(node, Mapping)
    return node


def test_the_billion_laughs_is_refused_without_expanding_anything() -> None:
    with pytest.raises(ScenarioInvalid) as caught:
        scenario(BILLION_LAUGHS)
    anchors = [str(e) for e in caught.value.problems if "anchors and aliases" in str(e)]
    assert anchors[0] == (
        "s.yaml:2:4: anchor &a: anchors and aliases are not allowed (they are how 'billion "
        "laughs' files explode); write the value out"
    )
    assert len(anchors) == 9  # one per anchor, none per alias of a refused anchor


def test_an_alias_of_an_unknown_anchor_is_refused_too() -> None:
    assert problems("scenario: x\nseed: *nowhere\n") == [
        "s.yaml:2:7: alias *nowhere: anchors and aliases are not allowed (they are how 'billion "
        "laughs' files explode); write the value out"
    ]


def test_a_file_over_the_size_cap_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"scenario: big\n" + b"#" * yaml_source.MAX_BYTES)
    with pytest.raises(ScenarioInvalid) as caught:
        load_scenario(str(path))
    assert [str(e) for e in caught.value.problems] == [
        f"{path}: the file is larger than 5 MB: too large for a scenario"
    ]


def test_too_many_nodes_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yaml_source, "MAX_NODES", 50)
    text = "scenario: x\nseed: [" + ", ".join(["1"] * 60) + "]\n"
    errors = problems(text)
    assert len(errors) == 1
    assert errors[0].endswith("more than 50 YAML nodes: too large for a scenario")


def test_nesting_deeper_than_the_cap_is_refused_not_a_recursion_error() -> None:
    depth = yaml_source.MAX_DEPTH + 10
    errors = problems("scenario: x\nseed: " + "[" * depth + "]" * depth + "\n")
    assert errors == [f"s.yaml:2:{yaml_source.MAX_DEPTH + 6}: nesting deeper than 64 levels"]


def test_text_that_is_not_utf8_is_refused_with_its_position(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("scenario: x\ndescription: caf\xe9\n".encode("latin-1"))
    with pytest.raises(ScenarioInvalid) as caught:
        load_scenario(str(path))
    assert str(caught.value) == f"{path}:2:17: not UTF-8 text: byte 0xe9 cannot be decoded"


def test_a_control_character_is_refused_with_its_position(tmp_path: Path) -> None:
    """PyYAML's reader refuses it while the loader is made, before any parsing starts."""
    path = tmp_path / "control.yaml"
    path.write_text('scenario: x\ndescription: "a\bb"\n')
    with pytest.raises(ScenarioInvalid) as caught:
        load_scenario(str(path))
    assert str(caught.value) == f"{path}:2:16: character #x0008 is not allowed in YAML"


def test_a_missing_file_is_an_error_not_a_traceback() -> None:
    with pytest.raises(ScenarioInvalid) as caught:
        load_scenario("/nonexistent/scenario.yaml")
    assert str(caught.value) == "/nonexistent/scenario.yaml: cannot read: No such file or directory"


def test_a_syntax_error_names_its_line_and_column() -> None:
    assert problems("scenario: x\njobs: [a, b\nseed: 1\n") == [
        "s.yaml:3:5: YAML syntax error: expected ',' or ']', but got ':' "
        "(while parsing a flow sequence at line 2)"
    ]


def test_an_empty_file_says_what_it_should_hold() -> None:
    assert problems("# nothing\n") == [
        "s.yaml:1:1: the file is empty: expected a mapping with 'scenario:'"
    ]


def test_a_document_that_is_not_a_mapping() -> None:
    assert problems("- a\n- b\n") == ["s.yaml:1:1: expected a mapping with 'scenario', got a list"]


def test_scalars_follow_yaml_1_2_core_rules() -> None:
    node = tree(
        "on: yes\nno: off\ntime: 2:30\nstamp: 2026-03-28T00:00:00\noctal: 010\n"
        "big: 1_000_000\nrate: 0.5\nflag: true\nnothing: ~\n"
    )
    values = {key.text: value.value for key, value in node.entries if isinstance(value, Scalar)}
    assert values == {
        "on": "yes",
        "no": "off",
        "time": "2:30",
        "stamp": "2026-03-28T00:00:00",
        "octal": 10,
        "big": 1_000_000,
        "rate": 0.5,
        "flag": True,
        "nothing": None,
    }


def test_positions_are_one_based_and_kept_on_every_node() -> None:
    node = tree("scenario: x\njobs:\n  - {id: a}\n")
    jobs = node.get("jobs")
    assert isinstance(jobs, Sequence)
    job = jobs.items[0]
    assert isinstance(job, Mapping)
    assert (node.pos.line, node.pos.column) == (1, 1)
    assert (job.pos.line, job.pos.column) == (3, 5)
    value = job.get("id")
    assert value is not None and (value.pos.line, value.pos.column) == (3, 10)


def test_an_explicit_core_tag_is_plain_data() -> None:
    loaded = scenario("scenario: !!str 42\nseed: !!int '7'\n")
    assert (loaded.name, loaded.seed) == ("42", 7)


def test_an_unreadable_number_is_an_error_not_a_crash() -> None:
    assert problems("scenario: x\nseed: !!int seven\n") == [
        "s.yaml:2:7: seed: 'seven' is not a valid int"
    ]


_YAML_PIECES = st.sampled_from(
    [
        *("\n", "  ", "- ", ": ", "a", "b", "é", "1", "-2.5", "true", "on", "null", "~"),
        *("'q'", '"d\\u00e9"', "[", "]", "{", "}", ", ", "#c", "&x ", "*x", "!!str ", "|\n  "),
        *(">\n  ", "key: ", "- {id: a, every: 5}", "---\n", "\t", "? ", "!t "),
    ]
)


def _parsed(text: str) -> tuple[list[Node] | None, list[str]]:
    problems_found = Problems("t.yaml")
    try:
        nodes = yaml_source.parse_yaml_documents(text, problems_found)
    except ScenarioInvalid as invalid:
        return None, [str(error) for error in invalid.problems]
    return [_without_empty_positions(node) for node in nodes], [
        str(error) for error in problems_found
    ]


def _without_empty_positions(node: Node) -> Node:
    """The node with the position of each empty key and value left out: the two parsers place
    a key or a value that is not written (``? a``, ``[? ]``, a document of only a comment) on
    either side of the gap."""
    if isinstance(node, Scalar):
        empty = node.text == "" and node.plain and node.value in (None, "")
        return replace(node, pos=Position(0, 0)) if empty else node
    if isinstance(node, Mapping):
        entries = tuple(
            (_without_empty_positions(key), _without_empty_positions(value))
            for key, value in node.entries
        )
        return replace(node, entries=entries)
    return replace(node, items=tuple(_without_empty_positions(item) for item in node.items))


@settings(max_examples=300)
@given(text=st.lists(_YAML_PIECES, max_size=30).map("".join))
@example(text="[? ]")
@example(text="[?\n]")
def test_libyamls_parser_reads_every_text_as_pyyamls_does(text: str) -> None:
    """Files are parsed by libyaml (six times faster) and, when it refuses one, by PyYAML's own
    parser, whose message is shown. Where PyYAML reads a file, libyaml must read it the same,
    positions included; libyaml also reads a few files PyYAML wrongly refuses (a tab after a
    value, a plain scalar over lines in a flow list), as YAML allows."""
    assert len(yaml_source._LOADERS) == 2, "PyYAML without libyaml: nothing to compare"
    fast = _parsed(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(yaml_source, "_LOADERS", (yaml_source._PythonLoader,))
        reference = _parsed(text)
    if reference[0] is not None or fast[0] is None:
        assert fast == reference


def test_yaml_infinities_and_nan_are_numbers_each_field_judges() -> None:
    """``.inf``, ``-.inf`` and ``.nan`` are YAML 1.2 floats; they were reported as "not a valid
    float" whatever the field, where each field should say what it expects."""
    found = problems(
        "scenario: .nan\nclock: {until: 5}\nworkers: [w]\n"
        "jobs: [{id: a, duration: .inf, failure_rate: .NaN, payload: -.inf}]\n"
    )
    assert found == [
        "s.yaml:1:11: scenario: expected a scenario name, got the number .nan",
        "s.yaml:4:26: jobs[0].duration: expected a whole number from 1 to 1000000000000, "
        "got the number .inf",
        "s.yaml:4:46: jobs[0].failure_rate: expected a number from 0.0 to 1.0, got the number nan",
        "s.yaml:4:61: jobs[0].payload: expected a string, got the number -.inf",
    ]
