"""How strong is the sample engine, configuration by configuration, against GNU Go?

Plays the sample engine (``python -m engines.mcts``) against GNU Go 3.8
(``gnugo --mode gtp --level 10 --chinese-rules``) on 9x9, komi 7.5, alternating
colours, through our own arena: one playoff competition per (configuration,
simulations per move, GNU Go level), each a control file written into the work
directory and played with ``python -m arena_cli run X.ctl`` as a user would.
Every game starts fresh engines, so each game gets its own engine seed.  Our
engine resigns when it is clearly lost.

Who scores a game that ends in two passes, ``--referee``:

* ``arena`` (the default): the arena's own area count (``scorer =
  'internal'``), every stone on the board alive, as on CGOS; GNU Go runs with
  ``--capture-all-dead`` so that it removes dead stones before it passes, and
  our engine passes only when that count wins.  Competitions are named
  ``CONFIG_SIMS_lLEVEL_tt``.
* ``gnugo``: GNU Go's ``final_score`` (Chinese counting, dead stones by its own
  judgement), as the rows before 2026-11-27 were played.  GNU Go 3.8 calls
  both sides' stones of a seki with two shared liberties dead: in 5 of 191
  games of the 9d7ebdc row it scored a seki our engine had counted as a win
  (W+0.5 to W+4.5 by the stones on the board) as B+13.5 to B+33.5.

Rows carry their ``referee``; a row of one referee never supersedes the other's.

Clocked rows, ``--time-control SPEC``: both players play under the arena's
clock (the control file's top-level ``time_control = SPEC``), spelt as in a
control file: ``Absolute(60)`` (one minute each per game), ``ByoYomi(main,
period, periods)``, ``Canadian(main, period, stones)``, ``Fischer(main,
increment)``, ``PerMove(seconds)``.  Our engine then runs with ``--playouts 0``
(its clock decides how long it thinks), so ``--sims`` is refused with it and
the row records ``sims`` 0 and ``"time_control": "Absolute(60)"`` (null in
unclocked rows).  Competitions are named ``CONFIG_clock-absolute60_lLEVEL_tt``
(``ByoYomi(60, 10, 3)``: ``clock-byoyomi60-10-3``; a decimal point is a ``p``:
``clock-permove0p5``).  The move timeout stays a generous backstop; the clock
governs.  Every row counts our engine's losses on time (``time_losses``, among
its ``forfeits``); sims/s is not measured for clocked rows (n/a).  The clocked
row of the issue: ``--configs heuristic-rave --time-control 'Absolute(60)'
--games 60 -j 1``.

Then, and with ``--report-only``, it reads every competition in the work
directory (the arena's journal and SGF records) and prints one row per
competition: games, wins, win rate ± standard error (sqrt(p(1-p)/n)), how many
games are distinct (GNU Go is deterministic, so a repeated engine seed would
repeat a whole game), void games and forfeits, and the engine's simulations per
second on this machine (median over three fixed 9x9 positions, measured in this
process); then one verdict line per target.  The rows also go to
``benchmarks/results/engine_strength.json`` (for another ``--workdir``: to
``engine_strength.json`` inside it), rebuilt from the competitions on disk and
tagged with the engine commit they were played with (``--engine-commit``, by
default the one each competition recorded in ``X.commit`` when it started, else
this checkout's; resuming a competition from another commit is refused); rows
the file already held for other commits are kept, and those of the same
configuration, simulations and level are marked ``superseded_by`` the newer
commit, by git's ancestry (``benchmarks/strength_history.py``).  A second batch
of an unchanged engine, played in another work directory, is pooled with the
first into one row with ``--report-only --pool-with FIRST_WORKDIR``: commits
joined by ``+``, games distinct across both batches (the row it extends is
marked superseded by the pooled one).

Resumable: running again with the same or a larger ``--games`` continues each
competition where it stopped (Ctrl-C or kill loses at most the games in
progress).  Competitions advance in turn, ``--batch`` games at a time, so an
interrupted run leaves every configuration with about as many games.

    python benchmarks/engine_strength.py --configs uct,rave --sims 1000 --games 100
    nohup python benchmarks/engine_strength.py --configs uct,rave --sims 1000 \\
        --games 100 > /tmp/strength.log 2>&1 &
    python benchmarks/engine_strength.py --report-only

``kill PID`` (SIGTERM) or Ctrl-C stops a run at once, and ``arena stop CTL``
on the competition running stops that one after the games in progress (the
others go on, and running again resumes it); ``-j 2`` plays two games
at a time (mind the cores: each game runs our engine and GNU Go).  Measure
sims/s while nothing else runs, or keep the figures the results file holds
for the same engine commit with ``--no-speed``.  The last line is ``RESULT [json rows]``.

Configurations: ``uct``, ``rave``, ``heuristic-rave``, ``heuristic-rave-graph``,
``heuristic-rave-workers1``, ``heuristic-rave-ladders``, ``heuristic-rave-strict``,
``heuristic-rave-lgrf``, ``heuristic-rave-nakade``, ``heuristic-rave-no-nakade``,
``heuristic-rave-pv30``, ``heuristic-rave-pv5``, ``heuristic-rave-expand1``,
``heuristic-rave-noresign``, ``heuristic-rave-mercy20``, ``heuristic-rave-expand8``,
``heuristic-rave-expand8-mercy20`` (see ``CONFIGS``), each at 1000 and 3000
simulations per move by default.  The 10,000-simulation row is the default in one
process, ``--configs heuristic-rave --sims 10000 -j 2`` (about 1.5 s a move with the
compiled core); ``heuristic-rave-workers1`` at 10,000 (``-j 1``: each game keeps two
cores busy; its leaves go out in batches under virtual loss) played within the
error of one process at the same commit (c40bc2c: 79.1% +- 3.3 against 84.0% +- 2.6),
kept to measure that.  The study of the two, and of how games
were lost: ``benchmarks/strength_games.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import Any, Final

import attrs

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.control.timecontrol import TIME_CONTROL_NAMES, parse_time_control  # noqa: E402
from arena.control.values import ConfigToken, Where  # noqa: E402
from arena.errors import ControlFileError  # noqa: E402
from arena.reports.export import counted_results  # noqa: E402
from arena.results import EndReason  # noqa: E402
from arena.store.files import CompetitionFiles, atomic_write, is_running  # noqa: E402
from arena.store.journal import VoidEntry, iter_journal  # noqa: E402
from benchmarks.strength_history import current_commit, git_older, merge_rows  # noqa: E402

PROG: Final = "engine_strength"
RESULTS: Final = ROOT / "benchmarks" / "results"
DEFAULT_WORKDIR: Final = RESULTS / "strength-runs"
RESULTS_FILE: Final = "engine_strength.json"
BOARD_SIZE: Final = 9
KOMI: Final = 7.5
MOVE_LIMIT: Final = 400
MOVE_TIMEOUT: Final = 900.0  # generous: a niced engine on a busy machine must never forfeit
MATCHUP_ID: Final = "vs-gnugo"
EXIT_INTERRUPTED: Final = 130  # the arena's status when Ctrl-C or SIGTERM stopped it
TARGET_SIMS: Final = 3000
TARGET_WIN_RATE: Final = 0.70  # MoGo's heuristic MC-RAVE had 69% (Gelly & Silver 2011)
GRAPH_CONFIG: Final = "heuristic-rave-graph"
TREE_CONFIG: Final = "heuristic-rave"

# The engine options of each configuration, besides --playouts.
_DEFAULT: Final = ("--rave", "mse", "--priors", "heuristic")  # the engine's default search
CONFIGS: Final[Mapping[str, tuple[str, ...]]] = {
    "uct": ("--selection", "uct", "--rave", "off", "--priors", "none"),
    "rave": ("--rave", "mse", "--priors", "none"),
    "heuristic-rave": _DEFAULT,
    "heuristic-rave-graph": (*_DEFAULT, "--structure", "graph"),
    # The default search with one playout worker: the engine process and the worker both
    # play out (two cores per game; batches of leaves under virtual loss, so it is not
    # the same search as in one process; at 10,000 simulations it played within the error
    # of one process at the same commit).
    "heuristic-rave-workers1": (*_DEFAULT, "--workers", "1"),
    # The default search with playouts that read ladders before running a chain out.
    "heuristic-rave-ladders": (*_DEFAULT, "--policy", "ladders"),
    # The default search refusing sacrifices, as before 2026-11-27 (but with the nakade
    # rule since 2026-11-28): every self-atari of two or more stones refused in the
    # playouts and counted as a loss in the priors.
    "heuristic-rave-strict": (*_DEFAULT, "--policy", "strict", "--prior-weights", "sacrifice=1.5"),
    # The default search with last good replies, forgetting, in the playouts (LGRF-1).
    "heuristic-rave-lgrf": (*_DEFAULT, "--policy", "lgrf"),
    # Playouts that play the vital point of three-point eye spaces: the default since
    # 2026-11-28 (``nakade`` names the default policy), measured under this name.
    "heuristic-rave-nakade": (*_DEFAULT, "--policy", "nakade"),
    # The default search before 2026-11-28: playouts without the nakade rule.
    "heuristic-rave-no-nakade": (*_DEFAULT, "--policy", "no-nakade"),
    # The default search with the priors' base confidence three times the default (10):
    # Gelly & Silver (2007) found MoGo's heuristic priors best at an equivalent
    # experience near 50, where the default gives a shape or a capture 10.
    "heuristic-rave-pv30": (*_DEFAULT, "--prior-visits", "30"),
    # ... and half the default: is 10 on the right side of the best?
    "heuristic-rave-pv5": (*_DEFAULT, "--prior-visits", "5"),
    # The default search expanding a node at its second visit rather than its third.
    "heuristic-rave-expand1": (*_DEFAULT, "--expand-threshold", "1"),
    # The default search never resigning: every loss of the 086945a row was a resignation,
    # some after the win rate fell from above 40% in one move.
    "heuristic-rave-noresign": (*_DEFAULT, "--resign-threshold", "0"),
    # The default search with its playouts stopped at a stone lead of 20 (a quarter of
    # the 9x9 board): 17% more simulations a second on the empty board, and the stopped
    # playouts' verdicts agree with the finished ones in 99.97% of playouts.
    "heuristic-rave-mercy20": (*_DEFAULT, "--mercy", "20"),
    # The default search expanding a node at its eighth visit (Pachi's default): fewer,
    # costlier-to-make nodes; 1.2x the simulations a second on the empty board.
    "heuristic-rave-expand8": (*_DEFAULT, "--expand-threshold", "8"),
    # Both: nodes expanded at their eighth visit and playouts stopped at a 20-stone lead.
    "heuristic-rave-expand8-mercy20": (*_DEFAULT, "--expand-threshold", "8", "--mercy", "20"),
    # The default search with playouts that also capture a chain in atari anywhere when
    # nothing answers the last move (MoGo's third rule; measured at e2f8b1f, where it
    # was the default policy).
    "heuristic-rave-captures": (*_DEFAULT, "--policy", "captures"),
    # The default search crediting every later play of a point to its player's AMAF
    # value, also after the opponent took the point first (the default before 2026-11-30).
    "heuristic-rave-amaf-any": (*_DEFAULT, "--rave-amaf", "any"),
}
DEFAULT_SIMS: Final = (1000, 3000)

# Positions for the speed measurement: the empty board and two middle games
# (GNU Go level 1 playing itself; 16 and 30 moves).
SPEED_GAME: Final = (
    "E5 C4 C5 D4 D5 E4 F4 F3 G3 F2 G2 B5 B6 G7 B4 C2 G5 D7 B3 E3 B2 B8 H6 H7 E7 E8 F7 F8 D6 C7"
)
SPEED_POSITIONS: Final = (0, 16, 30)

CODE_PATTERN: Final = re.compile(
    r"^(?P<config>[a-z0-9-]+)_(?:(?P<sims>[0-9]+)|clock-(?P<clock>[a-z]+[0-9p]+(?:-[0-9p]+)*))"
    r"_l(?P<level>[0-9]+)(?P<tt>_tt)?$"
)

# --time-control: a control file's time control constructor with plain numbers,
# positional or by name (``ByoYomi(60, 10, 3)``, ``Fischer(main=60, increment=2)``).
TIME_CONTROL_PATTERN: Final = re.compile(
    r"^\s*(?P<kind>[A-Za-z]+)\s*\((?P<args>\s*(?:[a-z]+\s*=\s*)?[0-9]+(?:\.[0-9]+)?\s*"
    r"(?:,\s*(?:[a-z]+\s*=\s*)?[0-9]+(?:\.[0-9]+)?\s*)*)\)\s*$"
)
TIME_CONTROL_ARGUMENT: Final = re.compile(
    r"^\s*(?:(?P<name>[a-z]+)\s*=\s*)?(?P<number>[0-9]+(?:\.[0-9]+)?)\s*$"
)

# Who scores games that end in two passes (see the module docstring).
REFEREES: Final = ("arena", "gnugo")
DEFAULT_REFEREE: Final = "arena"


class UsageError(Exception):
    """Bad arguments or a missing tool: one line for the user, exit status 2."""


# ---------------------------------------------------------------------------
# Arguments


def parse_configs(text: str) -> list[str]:
    """``uct,rave`` -> names, in the order given; an unknown name is a UsageError."""
    names = [word.strip() for word in text.split(",") if word.strip()]
    if not names:
        raise UsageError("--configs: give at least one configuration")
    for name in names:
        if name not in CONFIGS:
            raise UsageError(f"unknown config {name!r} (known: {', '.join(CONFIGS)})")
    return list(dict.fromkeys(names))


def parse_sims(text: str) -> list[int]:
    """``1000,3000`` -> positive integers, in the order given."""
    values: list[int] = []
    for word in (w.strip() for w in text.split(",")):
        if not word:
            continue
        if not word.isdigit() or int(word) < 1:
            raise UsageError(f"--sims: expected positive integers, not {word!r}")
        values.append(int(word))
    if not values:
        raise UsageError("--sims: give at least one number of simulations")
    return list(dict.fromkeys(values))


def parse_time_control_spec(text: str) -> str:
    """``Absolute(60)`` -> the canonical spelling (``ByoYomi(60, 10, 3)``), checked the
    way the arena checks a control file's ``time_control``; a bad one is a UsageError."""
    known = ", ".join(f"{name}(...)" for name in TIME_CONTROL_NAMES)
    match = TIME_CONTROL_PATTERN.match(text)
    if match is None or match["kind"] not in TIME_CONTROL_NAMES:
        raise UsageError(f"--time-control: expected one of {known} with numbers, not {text!r}")
    kind = match["kind"]
    args: list[int | float] = []
    kwargs: dict[str, int | float] = {}
    for word in match["args"].split(","):
        argument = TIME_CONTROL_ARGUMENT.match(word)
        assert argument is not None  # the pattern above matched
        number = argument["number"]
        value: int | float = float(number) if "." in number else int(number)
        if argument["name"] is None:
            if kwargs:
                raise UsageError(
                    f"--time-control: a value by position after one by name in {text!r}"
                )
            args.append(value)
        elif argument["name"] in kwargs:
            raise UsageError(f"--time-control: {argument['name']} given twice in {text!r}")
        else:
            kwargs[argument["name"]] = value
    names = TIME_CONTROL_NAMES[kind]
    try:
        parse_time_control(
            ConfigToken(kind, tuple(args), dict(kwargs), None),
            Where(Path("--time-control"), "time_control"),
        )
    except ControlFileError as exc:
        raise UsageError(f"--time-control: {' '.join(exc.message.split())} ({text!r})") from None
    given = dict(zip(names, args, strict=False)) | kwargs
    spec = f"{kind}({', '.join(_number_text(given[name]) for name in names)})"
    if time_control_from_slug(time_control_slug(spec)) != spec:  # e.g. 1e-05 seconds
        raise UsageError(f"--time-control: cannot name a competition after {text!r}")
    return spec


def _number_text(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(float(value))


def time_control_slug(spec: str) -> str:
    """``ByoYomi(60, 10, 3)`` -> ``byoyomi60-10-3`` (a canonical spec; ``.`` -> ``p``)."""
    kind, _, rest = spec.partition("(")
    numbers = [word.strip() for word in rest.rstrip(")").split(",")]
    return kind.lower() + "-".join(numbers).replace(".", "p")


def time_control_from_slug(slug: str) -> str | None:
    """The canonical spec of a :func:`time_control_slug`, None if it is not one."""
    for kind, names in TIME_CONTROL_NAMES.items():
        prefix = kind.lower()
        if not slug.startswith(prefix):
            continue
        numbers = slug[len(prefix) :].split("-")
        if len(numbers) != len(names):
            return None
        if not all(re.fullmatch(r"[0-9]+(?:p[0-9]+)?", number) for number in numbers):
            return None
        values = (float(number.replace("p", ".")) for number in numbers)
        return f"{kind}({', '.join(_number_text(value) for value in values)})"
    return None


def engine_args(config: str, sims: int) -> list[str]:
    """The sample engine's options for a configuration (no seed: fresh per process)."""
    return ["--playouts", str(sims), *CONFIGS[config]]


def check_engine_accepts(config: str) -> str | None:
    """None when the engine accepts this configuration's options, else its one-line complaint."""
    from engines.mcts.__main__ import options_from_args

    complaint = io.StringIO()
    try:
        with contextlib.redirect_stderr(complaint):
            options_from_args([*engine_args(config, 100), "--seed", "1"])
    except SystemExit:
        lines = [line for line in complaint.getvalue().splitlines() if line.strip()]
        return lines[-1] if lines else "the engine refused its options"
    return None


def find_gnugo() -> str | None:
    found = shutil.which("gnugo")
    if found is None and os.path.exists("/usr/games/gnugo"):
        os.environ["PATH"] = os.environ.get("PATH", "") + os.pathsep + "/usr/games"
        found = shutil.which("gnugo")
    return found


# ---------------------------------------------------------------------------
# Competitions on disk


def competition_code(
    config: str, sims: int, level: int, referee: str = "gnugo", time_control: str | None = None
) -> str:
    """The control file's stem, e.g. ``rave_1000_l10`` (``_tt`` added: the arena scores);
    clocked (a canonical ``time_control``, sims not used): ``rave_clock-absolute60_l10``."""
    middle = str(sims) if time_control is None else f"clock-{time_control_slug(time_control)}"
    return f"{config}_{middle}_l{level}" + ("_tt" if referee == "arena" else "")


def parse_competition_code(code: str) -> tuple[str, int, int, str, str | None] | None:
    """(config, sims, level, referee, time control) from a competition code, None if it is
    not ours; a clocked competition's sims are 0, an unclocked one's time control None."""
    match = CODE_PATTERN.match(code)
    if match is None:
        return None
    referee = "arena" if match["tt"] else "gnugo"
    if match["clock"] is None:
        return match["config"], int(match["sims"]), int(match["level"]), referee, None
    time_control = time_control_from_slug(match["clock"])
    if time_control is None:
        return None
    return match["config"], 0, int(match["level"]), referee, time_control


def player_codes(
    config: str, sims: int, level: int, time_control: str | None = None
) -> tuple[str, str]:
    """(our engine, GNU Go) player codes in the control file and the results."""
    ours = f"{config}-{sims}" if time_control is None else f"{config}-clock"
    return ours, f"gnugo-l{level}"


def control_file_text(
    config: str,
    sims: int,
    level: int,
    games: int,
    *,
    gnugo: str,
    referee: str = "gnugo",
    python: str = sys.executable,
    root: Path = ROOT,
    time_control: str | None = None,
) -> str:
    """A playoff control file, our engine v GNU Go, alternating; who scores: ``referee``;
    with a (canonical) ``time_control`` both play under it, our engine at ``--playouts 0``."""
    ours, theirs = player_codes(config, sims, level, time_control)
    playouts = sims if time_control is None else 0
    engine = [python, "-m", "engines.mcts", *engine_args(config, playouts)]
    opponent = [gnugo, "--mode", "gtp", "--level", str(level), "--chinese-rules"]
    if referee == "arena":
        opponent.append("--capture-all-dead")
    scorer = "internal" if referee == "arena" else "players"
    if time_control is None:
        description = f"{config} at {sims} simulations per move v GNU Go level {level}, 9x9"
        clock = ""
    else:
        description = f"{config} under {time_control} each v GNU Go level {level}, 9x9"
        clock = f"time_control = {time_control}\n"
    return f"""\
# Written by benchmarks/engine_strength.py on every run: edit the script, not this file.
competition_type = 'playoff'

description = {description!r}

players = {{
    {ours!r}: Player({engine!r},
        cwd={str(root)!r}, is_reliable_scorer=False, move_timeout={MOVE_TIMEOUT!r}),
    {theirs!r}: Player({opponent!r},
        is_reliable_scorer={referee == "gnugo"!r}, move_timeout={MOVE_TIMEOUT!r}),
}}

board_size = {BOARD_SIZE}
komi = {KOMI}
scorer = {scorer!r}
move_limit = {MOVE_LIMIT}
reuse_engines = False
record_games = True
{clock}
matchups = [
    Matchup({ours!r}, {theirs!r}, id={MATCHUP_ID!r}, alternating=True,
            number_of_games={games}),
]
"""


def write_if_changed(path: Path, text: str) -> None:
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except FileNotFoundError:
        pass
    atomic_write(path, text.encode("utf-8"), durable=False)


@attrs.frozen
class Row:
    """What one competition's files say, plus the engine's speed in that configuration."""

    config: str
    sims: int
    level: int
    games: int
    wins: int
    jigo: int
    no_result: int  # unknown score or move limit: counted, nobody won
    voids: int  # abandoned (software failure) and replayed
    forfeits: int  # our engine lost by forfeit or time
    opponent_forfeits: int
    distinct_games: int
    recorded_games: int  # counted games whose SGF record could be read
    distinct_seeds: int  # engine seeds seen in the journal's engine descriptions
    opponent: str
    updated: str | None
    sims_per_s: float | None = None
    engine_commit: str | None = None  # the engine code the games were played with
    referee: str = "gnugo"  # who scored games ending in two passes (REFEREES)
    time_control: str | None = None  # both players' clock (canonical spec); None: unclocked
    time_losses: int = 0  # of ``forfeits``: our engine lost on time (clock or move timeout)
    # what the distinct counts count, kept so that pooled rows count across competitions
    sequences: frozenset[tuple[Any, ...]] = attrs.field(default=frozenset(), repr=False)
    seeds: frozenset[str] = attrs.field(default=frozenset(), repr=False)

    @property
    def setting(self) -> tuple[str, int, int, str, str | None]:
        return (self.config, self.sims, self.level, self.referee, self.time_control)

    @property
    def win_rate(self) -> float:
        return win_rate(self.wins, self.games)[0]

    @property
    def stderr(self) -> float:
        return win_rate(self.wins, self.games)[1]

    def to_json(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "sims": self.sims,
            "games": self.games,
            "wins": self.wins,
            "opponent": self.opponent,
            "sims_per_s": None if self.sims_per_s is None else round(self.sims_per_s),
            "win_rate": round(self.win_rate, 4),
            "stderr": round(self.stderr, 4),
            "distinct_games": self.distinct_games,
            "recorded_games": self.recorded_games,
            "distinct_seeds": self.distinct_seeds,
            "jigo": self.jigo,
            "no_result": self.no_result,
            "voids": self.voids,
            "forfeits": self.forfeits,
            "opponent_forfeits": self.opponent_forfeits,
            "level": self.level,
            "engine_args": list(CONFIGS.get(self.config, ())),
            "engine_commit": self.engine_commit,
            "referee": self.referee,
            "time_control": self.time_control,
            "time_losses": self.time_losses,
            "updated": self.updated,
        }


def win_rate(wins: int, games: int) -> tuple[float, float]:
    """The win rate and its standard error sqrt(p(1-p)/n); (0, 0) with no games."""
    if games <= 0:
        return 0.0, 0.0
    p = wins / games
    return p, math.sqrt(p * (1 - p) / games)


def sgf_moves(data: bytes) -> tuple[tuple[str, tuple[int, int] | None], ...] | None:
    """The main line's moves of an SGF record, None if it cannot be read."""
    from sgfmill import sgf

    try:
        game = sgf.Sgf_game.from_bytes(data)
        moves = []
        for node in game.get_main_sequence()[1:]:
            colour, move = node.get_move()
            if colour is not None:
                moves.append((str(colour), move))
    except ValueError:
        return None
    return tuple(moves)


def opponent_name(engines: Mapping[str, str], code: str, level: int) -> str:
    """``GNU Go 3.8 level 10`` from the engine description the arena recorded."""
    lines = engines.get(code, "").splitlines()
    description = " ".join(lines[0].replace(":", " ").split()) if lines else ""
    return f"{description or 'GNU Go'} level {level}"


def engine_seed(description: str) -> str | None:
    """The ``seed N`` our engine reports in its description (gomill-describe_engine)."""
    for line in description.splitlines():
        words = line.split()
        if len(words) == 2 and words[0] == "seed":
            return words[1]
    return None


def read_competition(control: Path) -> Row | None:
    """Summarise one of our competitions from its journal and SGF files (None: not ours)."""
    parsed = parse_competition_code(control.stem)
    if parsed is None:
        return None
    config, sims, level, referee, time_control = parsed
    ours, theirs = player_codes(config, sims, level, time_control)
    files = CompetitionFiles.for_control_file(control)
    wins = jigo = no_result = forfeits = opponent_forfeits = time_losses = 0
    sequences = []
    results = list(counted_results(files))
    for result in results:
        if result.winning_player == ours:
            wins += 1
        elif result.is_jigo:
            jigo += 1
        elif result.winner is None:
            no_result += 1
        if result.end in (EndReason.FORFEIT, EndReason.TIME):
            if result.losing_player == ours:
                forfeits += 1
                time_losses += result.end is EndReason.TIME
            else:
                opponent_forfeits += 1
        try:
            moves = sgf_moves(files.sgf_path(result.game_id).read_bytes())
        except OSError:
            moves = None
        if moves is not None:
            sequences.append(moves)
    engines: dict[str, str] = {}
    seeds: set[str] = set()
    voids = 0
    for entry in iter_journal(files):
        if isinstance(entry, VoidEntry):
            voids += 1
            continue
        engines.update(entry.engines)
        seed = engine_seed(entry.engines.get(ours, ""))
        if seed is not None:
            seeds.add(seed)
    try:
        mtime = files.journal.stat().st_mtime
        updated: str | None = datetime.datetime.fromtimestamp(mtime, datetime.UTC).isoformat(
            timespec="seconds"
        )
    except FileNotFoundError:
        updated = None
    return Row(
        config=config,
        sims=sims,
        level=level,
        games=len(results),
        wins=wins,
        jigo=jigo,
        no_result=no_result,
        voids=voids,
        forfeits=forfeits,
        opponent_forfeits=opponent_forfeits,
        distinct_games=len(set(sequences)),
        recorded_games=len(sequences),
        distinct_seeds=len(seeds),
        opponent=opponent_name(engines, theirs, level),
        updated=updated,
        referee=referee,
        time_control=time_control,
        time_losses=time_losses,
        sequences=frozenset(sequences),
        seeds=frozenset(seeds),
    )


def pool(rows: Sequence[Row]) -> Row:
    """One row for the games of several competitions of one setting (``--pool-with``).

    Only for batches played by engine code that plays the same trees: the
    commits are joined with ``+``.  Games and results add up; the distinct
    games and seeds are counted across the batches, so a batch that repeated
    another's games shows.
    """
    first = rows[0]
    for other in rows[1:]:
        if other.setting != first.setting or other.opponent != first.opponent:
            raise UsageError(
                f"cannot pool {describe(first)} with {describe(other)}: another setting or opponent"
            )
    sequences = frozenset().union(*(row.sequences for row in rows))
    seeds = frozenset().union(*(row.seeds for row in rows))
    updates = [row.updated for row in rows if row.updated is not None]
    return attrs.evolve(
        first,
        games=sum(row.games for row in rows),
        wins=sum(row.wins for row in rows),
        jigo=sum(row.jigo for row in rows),
        no_result=sum(row.no_result for row in rows),
        voids=sum(row.voids for row in rows),
        forfeits=sum(row.forfeits for row in rows),
        time_losses=sum(row.time_losses for row in rows),
        opponent_forfeits=sum(row.opponent_forfeits for row in rows),
        distinct_games=len(sequences),
        recorded_games=sum(row.recorded_games for row in rows),
        distinct_seeds=len(seeds),
        updated=max(updates) if updates else None,
        engine_commit="+".join(row.engine_commit or "?" for row in rows),
        sequences=sequences,
        seeds=seeds,
    )


def pool_with(rows: Sequence[Row], workdirs: Sequence[Path]) -> list[Row]:
    """``rows`` each pooled with the competitions of its setting in ``workdirs`` (earlier
    batches, listed first); the others of those work directories are left out."""
    batches: dict[tuple[str, int, int, str, str | None], list[Row]] = {}
    for workdir in workdirs:
        if not workdir.is_dir():
            raise UsageError(f"--pool-with: {workdir} is not a directory")
        for row in read_workdir(workdir):
            if row.engine_commit is None:
                raise UsageError(
                    f"--pool-with: {workdir}: {row.config} at {row.sims} sims has"
                    " no engine commit recorded (its .commit file)"
                )
            batches.setdefault(row.setting, []).append(row)
    return [pool([*batches[row.setting], row]) if row.setting in batches else row for row in rows]


def commit_record(control: Path) -> Path:
    """Where a competition keeps the engine commit its games are played with."""
    return control.with_suffix(".commit")


def recorded_commit(control: Path) -> str | None:
    """The engine commit a competition's games were played with (None: not recorded)."""
    try:
        commit = commit_record(control).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return commit or None


def claim_commit(control: Path, code: str, played: int) -> None:
    """Keep one engine commit per competition: record this checkout's, or refuse another.

    A competition started by an earlier checkout (its games on disk, its commit
    recorded) would otherwise be resumed, and reported, as this one's.
    """
    commit = current_commit(ROOT)
    recorded = recorded_commit(control)
    if recorded is not None and commit is not None and recorded != commit and played:
        raise UsageError(
            f"{code}: its {played} games were played by engine commit {recorded}, and this"
            f" checkout is {commit}; give another --workdir (or resume from {recorded})"
        )
    if recorded is None and commit is not None and not played:
        commit_record(control).write_text(commit + "\n", encoding="utf-8")


def read_workdir(workdir: Path) -> list[Row]:
    """Every competition of ours in ``workdir`` with at least one counted game, in table order.

    Each row carries the engine commit its competition recorded (None if none).
    """
    rows = []
    for control in sorted(workdir.glob("*.ctl")):
        row = read_competition(control)
        if row is not None and row.games > 0:
            rows.append(attrs.evolve(row, engine_commit=recorded_commit(control)))
    order = {name: i for i, name in enumerate(CONFIGS)}
    rows.sort(
        key=lambda r: (
            order.get(r.config, len(order)),
            r.config,
            r.sims,
            r.level,
            r.referee,
            r.time_control or "",
        )
    )
    return rows


def counted_games(control: Path) -> int:
    return sum(1 for _ in counted_results(CompetitionFiles.for_control_file(control)))


# ---------------------------------------------------------------------------
# Simulations per second


def speed_positions() -> list[Any]:
    """FastBoards: the empty board and the middle games of ``SPEED_GAME``."""
    from engines.mcts.fastboard import FastBoard
    from gtp.vertex import parse_vertex

    boards = []
    for length in SPEED_POSITIONS:
        board = FastBoard(BOARD_SIZE)
        for word in SPEED_GAME.split()[:length]:
            point = parse_vertex(word, BOARD_SIZE)
            assert point is not None
            board.play(board.geo.index(point))
        boards.append(board)
    return boards


def measure_sims_per_s(config: str, sims: int, boards: Sequence[Any]) -> float | None:
    """Median simulations/s of ``simulate(sims)`` from each board (fresh tree each); None if
    the engine does not accept this configuration's options."""
    if config not in CONFIGS or check_engine_accepts(config) is not None:
        return None
    from engines.mcts.__main__ import options_from_args
    from engines.mcts.search import Search

    options = options_from_args([*engine_args(config, sims), "--seed", "1"])
    rates = []
    for board in boards:
        search = Search(options.search, seed=1)
        search.set_position(board, KOMI)
        start = time.perf_counter()
        ran = search.simulate(sims)
        rates.append(ran / (time.perf_counter() - start))
    return statistics.median(rates)


def previous_speeds(path: Path) -> dict[tuple[str, int, str | None], float]:
    """sims_per_s of the rows already in the results file (for ``--no-speed``), by config,
    simulations and engine commit: another commit's figure is not this code's speed."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    speeds: dict[tuple[str, int, str | None], float] = {}
    if isinstance(data, list):
        for item in data:
            if isinstance(item, dict) and isinstance(item.get("sims_per_s"), (int, float)):
                commit = item.get("engine_commit")
                key = (
                    str(item.get("config")),
                    int(item.get("sims", 0)),
                    str(commit) if commit is not None else None,
                )
                speeds[key] = item["sims_per_s"]
    return speeds


# ---------------------------------------------------------------------------
# Report


def percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def format_table(rows: Sequence[Row]) -> str:
    header = (
        f"{'config':22s}{'referee':>8s}{'sims':>6s}{'level':>6s}{'games':>7s}{'wins':>6s}"
        f"{'win rate':>18s}{'distinct':>10s}{'void/forf':>11s}{'sims/s':>8s}"
    )
    clocked = any(row.time_control is not None for row in rows)
    if clocked:  # only then: the unclocked table stays as it was
        header += "  time control (time losses)"
    lines = [header, "-" * len(header)]
    for row in rows:
        rate = f"{percent(row.win_rate)} ± {percent(row.stderr)}"
        distinct = f"{row.distinct_games}"
        if row.recorded_games != row.games:
            distinct += f"/{row.recorded_games}"
        speed = "?" if row.sims_per_s is None else f"{row.sims_per_s:.0f}"
        sims = f"{row.sims:6d}"
        if row.time_control is not None:
            speed, sims = "n/a", f"{'-':>6s}"
        line = (
            f"{row.config:22s}{row.referee:>8s}{sims}{row.level:6d}{row.games:7d}"
            f"{row.wins:6d}"
            f"{rate:>18s}{distinct:>10s}{f'{row.voids}/{row.forfeits}':>11s}{speed:>8s}"
        )
        if clocked:
            if row.time_control is None:
                line += "  -"
            else:
                line += f"  {row.time_control} ({row.time_losses})"
        lines.append(line)
    if not rows:
        lines.append("(no games played yet)")
    return "\n".join(lines)


def describe(row: Row) -> str:
    return f"{row.config} {percent(row.win_rate)} ± {percent(row.stderr)} over {row.games} games"


def verdicts(rows: Sequence[Row], level: int) -> list[str]:
    """One line per target, from the rows against GNU Go ``level``; never a judgement
    stronger than the numbers: 'met', 'not met' or 'not measured yet'."""
    rows = [row for row in rows if row.level == level and row.time_control is None]
    lines = []
    target = f"best config at {TARGET_SIMS} sims >= {TARGET_WIN_RATE:.0%} v GNU Go level {level}"
    at_target = [row for row in rows if row.sims == TARGET_SIMS]
    if not at_target:
        lines.append(f"{target}: not measured yet (no games at {TARGET_SIMS} sims)")
    else:
        best = max(at_target, key=lambda r: (r.win_rate, r.games))
        met = "met" if best.win_rate >= TARGET_WIN_RATE else "not met"
        if abs(best.win_rate - TARGET_WIN_RATE) <= best.stderr:
            met += f" (but {TARGET_WIN_RATE:.0%} is within one standard error)"
        lines.append(f"{target}: {describe(best)}: {met}")
    by_key = {(row.config, row.sims): row for row in rows}
    comparisons = []
    for sims in sorted({row.sims for row in rows}):
        graph, tree = by_key.get((GRAPH_CONFIG, sims)), by_key.get((TREE_CONFIG, sims))
        if graph is None or tree is None:
            continue
        difference = graph.win_rate - tree.win_rate
        error = math.hypot(graph.stderr, tree.stderr)
        answer = "yes" if difference >= 0 else "no"
        comparisons.append(
            f"{sims} sims: graph {percent(graph.win_rate)} ± {percent(graph.stderr)}"
            f" ({graph.games}) v tree {percent(tree.win_rate)} ± {percent(tree.stderr)}"
            f" ({tree.games}), difference {100 * difference:+.1f} ± {100 * error:.1f} points:"
            f" {answer}"
        )
    target = f"graph >= tree at equal sims ({GRAPH_CONFIG} v {TREE_CONFIG})"
    if comparisons:
        lines.append(f"{target}: " + "; ".join(comparisons))
    else:
        lines.append(f"{target}: not measured yet (no sims with games for both)")
    return lines


def json_rows(rows: Iterable[Row]) -> list[dict[str, Any]]:
    return [row.to_json() for row in rows if row.games > 0]


# ---------------------------------------------------------------------------
# Running the arena


class Interrupted(Exception):
    """Ctrl-C or SIGTERM while the arena ran; it was told to stop."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run_arena(control: Path, *, parallel: int, max_games: int | None, label: str) -> int:
    """``python -m arena_cli run control`` with its per-game lines prefixed; its exit status."""
    command = [sys.executable, "-m", "arena_cli", "run", str(control), "-j", str(parallel)]
    if max_games is not None:
        command += ["-g", str(max_games)]
    # Its stdout is a pipe, so the arena prints one plain line per game (no dashboard).
    with subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, text=True, encoding="utf-8", errors="replace"
    ) as process:
        try:
            assert process.stdout is not None
            for line in process.stdout:
                print(f"[{label}] {line.rstrip()}", flush=True)
            return process.wait()
        except KeyboardInterrupt:
            # The arena stops at once on SIGINT/SIGTERM; its unfinished games are replayed later.
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=60)
            if process.poll() is None:
                process.kill()
                process.wait()
            raise Interrupted from None


@attrs.define
class Plan:
    control: Path
    label: str
    done: int
    active: bool = True


def run_competitions(args: argparse.Namespace, workdir: Path, gnugo: str) -> None:
    plans: list[Plan] = []
    for config in args.configs:
        for sims in args.sims:
            code = competition_code(config, sims, args.level, args.referee, args.time_control)
            control = workdir / f"{code}.ctl"
            files = CompetitionFiles.for_control_file(control)
            if is_running(files):
                print(f"{code}: already running elsewhere; left alone", flush=True)
                continue
            text = control_file_text(
                config,
                sims,
                args.level,
                args.games,
                gnugo=gnugo,
                referee=args.referee,
                time_control=args.time_control,
            )
            played = counted_games(control) if control.exists() else 0
            claim_commit(control, code, played)
            write_if_changed(control, text)
            plans.append(Plan(control, code, played))
    while True:
        todo = [plan for plan in plans if plan.active and plan.done < args.games]
        if not todo:
            return
        for plan in todo:
            batch = args.games - plan.done
            if args.batch > 0:
                batch = min(batch, args.batch)
            print(f"{plan.label}: {plan.done}/{args.games} games; playing {batch}", flush=True)
            status = run_arena(plan.control, parallel=args.jobs, max_games=batch, label=plan.label)
            done = counted_games(plan.control)
            if status == EXIT_INTERRUPTED:  # the arena itself was interrupted: so are we
                raise Interrupted
            if status != 0:
                print(
                    f"{plan.label}: the arena stopped with status {status}; skipping it", flush=True
                )
                plan.active = False
            elif done == plan.done:
                print(f"{plan.label}: no game counted in this batch; skipping it", flush=True)
                plan.active = False
            elif done - plan.done < batch:
                # `arena stop` or Ctrl-X: the arena finished the games in progress and
                # exited 0 short of its batch; starting it again would undo the stop.
                print(
                    f"{plan.label}: the arena stopped after {done - plan.done} of {batch}"
                    " games; run this again to resume",
                    flush=True,
                )
                plan.active = False
            plan.done = done


# ---------------------------------------------------------------------------
# Main


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Sample engine v GNU Go through the arena, per configuration (resumable)."
    )
    parser.add_argument(
        "--configs",
        default=",".join(CONFIGS),
        help=f"comma-separated, from: {', '.join(CONFIGS)} (default: all)",
    )
    parser.add_argument(
        "--sims",
        default=None,
        help="simulations per move, comma-separated (default: 1000,3000; not with --time-control)",
    )
    parser.add_argument(
        "--time-control",
        default=None,
        metavar="SPEC",
        help="play under the arena's clock, both players, e.g. 'Absolute(60)' (one"
        " minute each per game); also ByoYomi(main, period, periods), Canadian(main,"
        " period, stones), Fischer(main, increment), PerMove(seconds); our engine"
        " runs with --playouts 0 (time decides) and the row records sims 0 and"
        " its time_control",
    )
    parser.add_argument(
        "--games", type=int, default=None, help="games per competition in all (played ones count)"
    )
    parser.add_argument("-j", "--jobs", type=int, default=1, help="games at once (default 1)")
    parser.add_argument(
        "--batch",
        type=int,
        default=10,
        help="games per competition before moving to the next (0: all)",
    )
    parser.add_argument("--level", type=int, default=10, help="GNU Go level (default 10)")
    parser.add_argument(
        "--referee",
        choices=REFEREES,
        default=DEFAULT_REFEREE,
        help="who scores games ending in two passes: the arena's count of the"
        " stones on the board, GNU Go capturing all dead stones (default), or"
        " GNU Go's final_score (the rows before 2026-11-27)",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=DEFAULT_WORKDIR,
        help="where the competitions live (default benchmarks/results/strength-runs)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="results JSON (default benchmarks/results/engine_strength.json,"
        " or WORKDIR/engine_strength.json for another --workdir)",
    )
    parser.add_argument("--report-only", action="store_true", help="play nothing; report")
    parser.add_argument(
        "--engine-commit",
        default=None,
        metavar="HASH",
        help="the engine commit the games in --workdir were played with"
        " (default: the one each competition recorded when it started, else"
        " this checkout's HEAD); the results file keeps rows of other"
        " commits and marks those superseded",
    )
    parser.add_argument(
        "--pool-with",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="with --report-only: pool each competition in --workdir with the"
        " one of the same setting in DIR (an earlier batch played by engine"
        " code with the same trees) into one row, its commits joined by '+'"
        " (repeatable)",
    )
    parser.add_argument(
        "--no-speed",
        action="store_true",
        help="skip measuring sims/s; keep the results file's values for the"
        " same config, sims and engine commit",
    )
    return parser


def validate(args: argparse.Namespace) -> None:
    args.configs = parse_configs(args.configs)
    if args.time_control is not None:
        if args.sims is not None:
            raise UsageError("--sims goes without --time-control (the clock decides)")
        args.time_control = parse_time_control_spec(args.time_control)
        args.sims = [0]
    else:
        args.sims = parse_sims(",".join(map(str, DEFAULT_SIMS)) if args.sims is None else args.sims)
    if args.jobs < 1:
        raise UsageError(f"-j: expected a positive integer, not {args.jobs}")
    if args.batch < 0:
        raise UsageError(f"--batch: expected 0 or more, not {args.batch}")
    if not 0 <= args.level <= 10:
        raise UsageError(f"--level: GNU Go levels are 0 to 10, not {args.level}")
    if args.report_only:
        return
    if args.pool_with:
        raise UsageError("--pool-with goes with --report-only (it plays nothing)")
    if args.games is None:
        raise UsageError("give --games N (games per competition) or --report-only")
    if args.games < 1:
        raise UsageError(f"--games: expected a positive integer, not {args.games}")
    for config in args.configs:
        complaint = check_engine_accepts(config)
        if complaint is not None:
            raise UsageError(f"config {config!r}: the engine refuses its options ({complaint})")


def earlier_rows(path: Path) -> list[dict[str, Any]]:
    """The rows the results file holds now (none if it is missing or unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []


def merge_results(
    earlier: Sequence[dict[str, Any]],
    current: Sequence[dict[str, Any]],
    older: Callable[[str | None, str | None], bool],
) -> list[dict[str, Any]]:
    """``merge_rows`` within each time control: its setting leaves the clock out (a clocked
    row's sims are 0), and a row under one clock never supersedes one under another."""

    def clock(row: Mapping[str, Any]) -> str | None:
        value = row.get("time_control")
        return None if value is None else str(value)

    clocks = list(dict.fromkeys(clock(row) for row in [*earlier, *current]))
    if clocks in ([], [None]):  # no clocked rows: exactly as before
        return merge_rows(earlier, current, older)
    merged: list[dict[str, Any]] = []
    for each in clocks:
        merged += merge_rows(
            [row for row in earlier if clock(row) == each],
            [row for row in current if clock(row) == each],
            older,
        )
    return merged


def report(args: argparse.Namespace, workdir: Path, output: Path) -> None:
    head = current_commit(ROOT)
    rows = [
        attrs.evolve(r, engine_commit=args.engine_commit or r.engine_commit or head)
        for r in read_workdir(workdir)
    ]
    if args.pool_with:
        rows = pool_with(rows, [path.resolve() for path in args.pool_with])
    if args.no_speed:
        speeds = previous_speeds(output)
        rows = [
            attrs.evolve(
                r,
                sims_per_s=None
                if r.time_control is not None
                else speeds.get((r.config, r.sims, r.engine_commit)),
            )
            for r in rows
        ]
    elif any(r.time_control is None for r in rows):
        print("measuring simulations/s ...", flush=True)
        boards = speed_positions()
        measured: dict[tuple[str, int], float | None] = {}
        for row in rows:
            key = (row.config, row.sims)
            if key not in measured and row.time_control is None:  # clocked: n/a
                measured[key] = measure_sims_per_s(row.config, row.sims, boards)
        rows = [attrs.evolve(r, sims_per_s=measured.get((r.config, r.sims))) for r in rows]
    print()
    print(
        f"sample engine v GNU Go, 9x9, komi {KOMI}, area scoring (referee: who scores games"
        f" ending in two passes); competitions in {workdir}"
    )
    print(format_table(rows))
    print()
    for line in verdicts(rows, args.level):
        print(line)
    if not rows:  # keep the results of another checkout or machine
        print(f"\nno games in {workdir}: {output} left as it was")
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        merged = merge_results(earlier_rows(output), json_rows(rows), git_older(ROOT))
        data = json.dumps(merged, indent=2) + "\n"
        atomic_write(output, data.encode(), durable=False)
        kept = len(merged) - len(rows)
        print(f"\nwrote {output} ({len(rows)} rows measured here, {kept} earlier rows kept)")
    print("RESULT " + json.dumps(json_rows(rows)))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        validate(args)
        workdir = args.workdir.resolve()
        if args.output is not None:
            output = args.output
        elif workdir == DEFAULT_WORKDIR:
            output = RESULTS / RESULTS_FILE
        else:
            output = workdir / RESULTS_FILE
        if not args.report_only:
            gnugo = find_gnugo()
            if gnugo is None:
                raise UsageError("GNU Go not found (apt-get install gnugo; or put it on PATH)")
            workdir.mkdir(parents=True, exist_ok=True)
            previous = signal.signal(signal.SIGTERM, _terminate)
            try:
                run_competitions(args, workdir, gnugo)
            finally:
                signal.signal(signal.SIGTERM, previous)
        elif not workdir.is_dir() and workdir != DEFAULT_WORKDIR:
            raise UsageError(f"--workdir: {workdir} is not a directory")
        report(args, workdir, output)
    except UsageError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    except (Interrupted, KeyboardInterrupt):
        print(
            f"{PROG}: interrupted; run again to continue (games in progress are replayed)",
            file=sys.stderr,
        )
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
