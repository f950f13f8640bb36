"""The competition types: for each, how its control-file settings are read and what plays it.

The one table of types (no registration at import time): the control-file
loader looks a type up here by its ``competition_type`` name, and the run
loop and the reports build the competition object with :func:`make_competition`.

A type names its settings parser and its class as ``"module:name"`` strings, imported
on first use: a run imports only its own type's modules (a playoff neither the tuners'
classes nor their maths: ~25 ms of CPU less at every start).  ``tests/test_layers.py``
counts such a string as an import, and ``tests/arena/test_registry.py`` loads each one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import cast

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.competitions.base import Competition
from arena.control.config import CompetitionConfig
from arena.control.namespace import ControlFile


def load_reference(reference: str) -> object:
    """The object a ``"package.module:name"`` string names (its module imported once)."""
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


@attrs.frozen
class CompetitionType:
    """One competition type: its control-file names, its settings parser, its class."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    name: str
    namespace: Mapping[str, str]  # name in the control file -> token kind (Matchup(...))
    settings: str  # "module:function": ControlFile -> CompetitionConfig.specific
    competition: str  # "module:Class": CompetitionConfig -> Competition
    objects_from: str = ""  # "module:NAME" of a mapping: names the control file is given
    players_required: bool = True  # False: the type has no use for a players dictionary

    @property
    def objects(self) -> Mapping[str, object]:
        """Names given to the control file as they are (the tuners' predefined scales)."""
        if not self.objects_from:
            return {}
        return cast(Mapping[str, object], load_reference(self.objects_from))

    def parse(self, control: ControlFile) -> object:
        """The type's own settings (``CompetitionConfig.specific``) from a control file."""
        return cast(Callable[[ControlFile], object], load_reference(self.settings))(control)

    def create(self, config: CompetitionConfig) -> Competition:
        competition_class = load_reference(self.competition)
        return cast(Callable[[CompetitionConfig], Competition], competition_class)(config)


COMPETITION_TYPES: Mapping[str, CompetitionType] = {
    kind.name: kind
    for kind in (
        CompetitionType(
            "playoff",
            {"Matchup": "Matchup", "SPRT": "SPRT"},
            "arena.control.playoff:parse_playoff",
            "arena.competitions.playoff:Playoff",
        ),
        CompetitionType(
            "allplayall",
            {},
            "arena.control.allplayall:parse_allplayall",
            "arena.competitions.allplayall:AllPlayAll",
        ),
        CompetitionType(
            "mc_tuner",
            {"Parameter": "Parameter"},
            "arena.control.tuner:parse_mc_tuner",
            "arena.competitions.mc_tuner:McTuner",
            objects_from="arena.tuning.tuner_scales:PREDEFINED_SCALES",
        ),
        CompetitionType(
            "ce_tuner",
            {"Parameter": "Parameter"},
            "arena.control.ce_tuner:parse_ce_tuner",
            "arena.competitions.ce_tuner:CeTuner",
        ),
        CompetitionType(
            "spsa_tuner",
            {"Parameter": "Parameter"},
            "arena.control.spsa_tuner:parse_spsa_tuner",
            "arena.competitions.spsa_tuner:SpsaTuner",
            players_required=False,
        ),
    )
}


def make_competition(config: CompetitionConfig) -> Competition:
    """The competition object for a validated control file."""
    kind = COMPETITION_TYPES.get(config.competition_type)
    if kind is None:
        raise ValueError(f"no competition class for {config.competition_type!r}")
    return kind.create(config)
