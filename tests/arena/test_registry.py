"""The registry's table: every type's parser and class load, and are what they say."""

from __future__ import annotations

import inspect
from collections.abc import Mapping

import pytest

from arena.competitions.registry import COMPETITION_TYPES, load_reference
from arena.tuning.tuner_scales import PREDEFINED_SCALES


@pytest.mark.parametrize("name", sorted(COMPETITION_TYPES))
def test_each_type_names_a_parser_and_a_competition_class(name: str) -> None:
    kind = COMPETITION_TYPES[name]
    assert kind.name == name
    parse = load_reference(kind.settings)
    assert callable(parse) and not inspect.isclass(parse)
    competition = load_reference(kind.competition)
    assert inspect.isclass(competition)
    assert callable(getattr(competition, "snapshot", None))  # a Competition (a Protocol)
    assert isinstance(kind.objects, Mapping)


def test_the_monte_carlo_tuner_s_control_file_is_given_the_predefined_scales() -> None:
    assert COMPETITION_TYPES["mc_tuner"].objects is PREDEFINED_SCALES
    assert COMPETITION_TYPES["playoff"].objects == {}


def test_a_reference_names_a_module_and_an_attribute() -> None:
    assert load_reference("arena.competitions.registry:load_reference") is load_reference
    with pytest.raises(ModuleNotFoundError):
        load_reference("arena.competitions.nothing_here:Thing")
    with pytest.raises(AttributeError):
        load_reference("arena.competitions.registry:nothing_here")
