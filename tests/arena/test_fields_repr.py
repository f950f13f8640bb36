"""``arena.fields_repr``, ``fields_eq`` and ``fields_hash`` do what attrs's generated methods do."""

from __future__ import annotations

import attrs
import pytest

from arena import fields_eq, fields_hash, fields_repr
from arena.competitions.snapshots import MatchupCounts, PlayerCounts
from arena.events import RunState, RunStateChanged
from arena.run.ringmaster import RunOptions


def _hex(value: int) -> str:
    return hex(value)


@attrs.frozen
class Generated:
    number: int
    text: str = "x"
    hidden: bytes = attrs.field(default=b"", repr=False)
    shown: int = attrs.field(default=255, repr=_hex)
    later: list[object] = attrs.field(factory=list, init=False)


@attrs.frozen
class Written:
    __repr__ = fields_repr

    number: int
    text: str = "x"
    hidden: bytes = attrs.field(default=b"", repr=False)
    shown: int = attrs.field(default=255, repr=_hex)
    later: list[object] = attrs.field(factory=list, init=False)


@attrs.define
class GeneratedNode:
    children: list[object] = attrs.field(factory=list)


@attrs.define
class WrittenNode:
    __repr__ = fields_repr

    children: list[object] = attrs.field(factory=list)


def test_the_same_text_as_attrs() -> None:
    for args in [(1,), (2, "it's"), (3, "y", b"secret", 16)]:
        expected = repr(Generated(*args)).replace("Generated", "Written")
        assert repr(Written(*args)) == expected


def test_nested_classes_and_a_loop() -> None:
    generated, written = GeneratedNode(), WrittenNode()
    generated.children.append(generated)
    written.children.append(written)
    assert repr(written) == repr(generated).replace("GeneratedNode", "WrittenNode")
    assert repr(written) == "WrittenNode(children=[...])"


def test_the_arena_s_records_use_it() -> None:
    counts = PlayerCounts(wins=1.0)
    assert MatchupCounts.__repr__ is fields_repr
    assert repr(counts).startswith("PlayerCounts(wins=1.0, black_games=0")
    event = RunStateChanged(RunState.RUNNING, "go")
    assert repr(event).startswith("RunStateChanged(")


@attrs.frozen
class GeneratedValue:
    number: int
    text: str = "x"
    ignored: float = attrs.field(default=0.0, eq=False)


@attrs.frozen
class WrittenValue:
    __eq__ = fields_eq
    __hash__ = fields_hash

    number: int
    text: str = "x"
    ignored: float = attrs.field(default=0.0, eq=False)


@attrs.frozen
class WrittenOther:
    __eq__ = fields_eq
    __hash__ = fields_hash

    number: int
    text: str = "x"
    ignored: float = attrs.field(default=0.0, eq=False)


@attrs.define
class WrittenMutable:
    __eq__ = fields_eq

    items: list[int] = attrs.field(factory=list)


@pytest.mark.parametrize(
    ("left", "right"),
    [((1,), (1,)), ((1, "a"), (1, "b")), ((1, "a", 0.5), (1, "a", 9.0)), ((1,), (2,))],
)
def test_equal_exactly_when_attrs_says_so(
    left: tuple[object, ...], right: tuple[object, ...]
) -> None:
    expected = GeneratedValue(*left) == GeneratedValue(*right)  # type: ignore[arg-type]
    written_left, written_right = WrittenValue(*left), WrittenValue(*right)  # type: ignore[arg-type]
    assert (written_left == written_right) is expected
    assert (written_left != written_right) is not expected
    if expected:
        assert hash(written_left) == hash(written_right)


def test_other_classes_and_types_are_not_equal() -> None:
    assert WrittenValue(1) != WrittenOther(1)
    assert WrittenValue(1) != (1, "x")
    assert WrittenValue(1).__eq__(1) is NotImplemented
    # a frozen record is a dict key by value; a mutable one stays unhashable, as with attrs
    assert {WrittenValue(1, "a", 2.0): "found"}[WrittenValue(1, "a")] == "found"
    assert WrittenMutable([1]) == WrittenMutable([1]) != WrittenMutable([2])
    with pytest.raises(TypeError, match="unhashable"):
        hash(WrittenMutable())


def test_the_arena_s_records_compare_by_value() -> None:
    assert RunOptions.__eq__ is fields_eq
    assert RunOptions(parallel=2) == RunOptions(parallel=2) != RunOptions(parallel=3)
    assert len({RunOptions(), RunOptions()}) == 1
    assert RunStateChanged(RunState.RUNNING, "go") == RunStateChanged(RunState.RUNNING, "go")
