"""The competition types: for each, how its control-file settings are read and what plays it.

The one table of types (no registration at import time): the control-file
loader looks a type up here by its ``competition_type`` name, and the run
loop and the reports build the competition object with :func:`make_competition`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import attrs

from arena.competitions.allplayall import AllPlayAll
from arena.competitions.base import Competition
from arena.competitions.ce_tuner import CeTuner
from arena.competitions.mc_tuner import McTuner
from arena.competitions.playoff import Playoff
from arena.competitions.spsa_tuner import SpsaTuner
from arena.control.allplayall import parse_allplayall
from arena.control.ce_tuner import parse_ce_tuner
from arena.control.config import CompetitionConfig
from arena.control.namespace import ControlFile
from arena.control.playoff import parse_playoff
from arena.control.spsa_tuner import parse_spsa_tuner
from arena.control.tuner import parse_mc_tuner
from arena.tuning.tuner_scales import PREDEFINED_SCALES


@attrs.frozen
class CompetitionType:
    """One competition type: its control-file names, its settings parser, its class."""

    name: str
    namespace: Mapping[str, str]  # name in the control file -> token kind (Matchup(...))
    parse: Callable[[ControlFile], object]  # -> CompetitionConfig.specific
    create: Callable[[CompetitionConfig], Competition]
    objects: Mapping[str, object] = attrs.field(factory=dict)  # names given as they are
    players_required: bool = True  # False: the type has no use for a players dictionary


COMPETITION_TYPES: Mapping[str, CompetitionType] = {
    kind.name: kind
    for kind in (
        CompetitionType("playoff", {"Matchup": "Matchup", "SPRT": "SPRT"}, parse_playoff, Playoff),
        CompetitionType("allplayall", {}, parse_allplayall, AllPlayAll),
        CompetitionType(
            "mc_tuner",
            {"Parameter": "Parameter"},
            parse_mc_tuner,
            McTuner,
            objects=PREDEFINED_SCALES,
        ),
        CompetitionType("ce_tuner", {"Parameter": "Parameter"}, parse_ce_tuner, CeTuner),
        CompetitionType(
            "spsa_tuner",
            {"Parameter": "Parameter"},
            parse_spsa_tuner,
            SpsaTuner,
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
