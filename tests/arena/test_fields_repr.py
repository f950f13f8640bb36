"""``arena.fields_repr`` writes what attrs's generated ``__repr__`` writes."""

from __future__ import annotations

import attrs

from arena import fields_repr
from arena.competitions.snapshots import MatchupCounts, PlayerCounts
from arena.events import RunState, RunStateChanged


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
