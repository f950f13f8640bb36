"""Small real competitions for the HTML report's tests and the screenshots in docs/.

Each function writes a control file (the sample engine at a few playout
counts and the random player, on a small board) and returns its path; the
caller runs it with the real ``arena`` command.  ``games`` sets the size:
the tests play a handful, the screenshots a few dozen.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# No --seed: each game is a new one, so the results vary as they would in a real run.
MCTS = [sys.executable, "-m", "engines.mcts", "--ownership-playouts", "20"]
RANDOM = [sys.executable, "-m", "engines.random"]
UCT = ["--rave", "off", "--priors", "none"]  # plain UCT


def players_block(players: dict[str, list[str] | None]) -> str:
    """``players = {...}``: code -> the sample engine's options (None: the random player)."""
    lines = ["players = {"]
    for code, options in players.items():
        if options is None:
            lines.append(f"    {code!r}: Player({RANDOM!r}, move_timeout=30),")
        else:
            command = [*MCTS, *options]
            lines.append(f"    {code!r}: Player({command!r}, allow_claim=True, move_timeout=60),")
    lines.append("}")
    return "\n".join(lines) + "\n"


COMMON = "board_size = 7\nkomi = 7.5\nscorer = 'internal'\nmove_limit = 150\n"


def playoff_control(directory: Path, games: int, *, html_report: bool = True) -> Path:
    """Two matchups: the sample engine at 16 and 8 playouts, and plain UCT at 48 against it."""
    path = directory / "duel.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        "description = 'The sample engine (MC-RAVE) at 16 and at 8 playouts a move, and plain"
        " UCT at 48 playouts against it at 8; 7x7.'\n"
        + players_block(
            {
                "mcts-16": ["--playouts", "16"],
                "mcts-8": ["--playouts", "8"],
                "uct-48": ["--playouts", "48", *UCT],
            }
        )
        + COMMON
        + f"html_report = {html_report}\n"
        "matchups = [\n"
        f"    Matchup('mcts-16', 'mcts-8', alternating=True, number_of_games={games}),\n"
        f"    Matchup('uct-48', 'mcts-8', alternating=True, number_of_games={games}),\n"
        "]\n"
    )
    return path


LEAGUE: dict[str, list[str] | None] = {
    "mcts-32": ["--playouts", "32"],
    "mcts-12": ["--playouts", "12"],
    "uct-32": ["--playouts", "32", *UCT],
    "mcts-4": ["--playouts", "4"],
    "random": None,
}


def allplayall_control(directory: Path, rounds: int, competitors: int = 3) -> Path:
    """An all-play-all of the sample engine at a few settings, and the random player (last)."""
    chosen = dict([*list(LEAGUE.items())[: competitors - 1], ("random", None)])
    path = directory / "league.ctl"
    path.write_text(
        "competition_type = 'allplayall'\n"
        "description = 'The sample engine at a few playout counts, with and without MC-RAVE,"
        " and the random player; 7x7.'\n"
        + players_block(chosen)
        + COMMON
        + f"competitors = {list(chosen)!r}\nrounds = {rounds}\n"
    )
    return path


def tuner_control(directory: Path, games: int) -> Path:
    """The Monte Carlo tuner over plain UCT's playouts and exploration constant."""
    path = directory / "tune.ctl"
    path.write_text(
        "competition_type = 'mc_tuner'\n"
        "description = 'Playouts and exploration constant of plain UCT against UCT at 32"
        " playouts; 7x7.'\n"
        f"UCT = {[*MCTS, *UCT]!r}\n"
        "def make_candidate(playouts, exploration):\n"
        "    return Player(UCT + ['--playouts', str(playouts), '--exploration',"
        " '%.2f' % exploration], allow_claim=True, move_timeout=60)\n"
        + players_block({"uct-32": ["--playouts", "32", *UCT]})
        + COMMON
        + "parameters = [\n"
        "    Parameter('playouts', scale=EXPLICIT([8, 32, 128]), split=3,"
        " format='playouts: %d'),\n"
        "    Parameter('exploration', scale=LINEAR(0.1, 1.5), split=3, format='c: %.2f'),\n"
        "]\n"
        "opponent = 'uct-32'\ncandidate_colour = 'b'\n"
        f"number_of_games = {games}\n"
        "exploration_coefficient = 0.8\ninitial_visits = 2\ninitial_wins = 1\n"
        "reuse_engines = True\n"
    )
    return path


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# Plays at once and thinks a share of what its clock allows (benchmarks/clocked_engine.py).
CLOCKED = [
    sys.executable,
    str(Path(__file__).resolve().parents[1] / "benchmarks" / "clocked_engine.py"),
]


def clocked_control(directory: Path, games: int) -> Path:
    """Engines that think by the clock under byo-yomi: most of their moves are in overtime.

    ``a`` and ``b`` think 30% of what their clock allows each move; ``late``
    overruns its clock at its third move of every game.
    """
    path = directory / "clocked.ctl"
    path.write_text(
        "competition_type = 'playoff'\n"
        "description = 'Engines thinking by a byo-yomi clock (0.4 s, then 2 periods of 0.2 s).'\n"
        "players = {\n"
        f"    'a': Player({[*CLOCKED, '--share', '0.3']!r}),\n"
        f"    'b': Player({[*CLOCKED, '--share', '0.3']!r}),\n"
        f"    'late': Player({[*CLOCKED, '--share', '0.3', '--sleep', '3:1']!r}),\n"
        "}\n"
        "board_size = 7\nkomi = 7.5\nscorer = 'internal'\n"
        "time_control = ByoYomi(main=0.4, period=0.2, periods=2)\n"
        "matchups = [\n"
        f"    Matchup('a', 'b', alternating=True, number_of_games={games}),\n"
        f"    Matchup('a', 'late', alternating=True, number_of_games=2),\n"
        "]\n"
    )
    return path


def _shrunk_example(name: str, playouts: int, settings: str) -> str:
    """An example control file with the sample engine at ``playouts`` a move and ``settings``
    (assignments) appended, which replace the example's own."""
    text = (EXAMPLES / name).read_text()
    for old, new in (
        ("'--playouts', '200'", f"'--playouts', '{playouts}'"),
        ("'--ownership-playouts', '50'", "'--ownership-playouts', '20'"),
    ):
        if old not in text:
            raise AssertionError(f"examples/{name} no longer has {old}: update {__name__}")
        text = text.replace(old, new)
    return text + "\n# Shrunk for the HTML report's tests and screenshots:\n" + settings


def ce_tuner_control(
    directory: Path, generations: int, samples: int, batch: int = 1, playouts: int = 12
) -> Path:
    """examples/ce_tuner.ctl with fewer, weaker games."""
    path = directory / "ce.ctl"
    path.write_text(
        _shrunk_example(
            "ce_tuner.ctl",
            playouts,
            f"number_of_generations = {generations}\nsamples_per_generation = {samples}\n"
            f"batch_size = {batch}\nelite_proportion = 0.3\n",
        )
    )
    return path


def spsa_tuner_control(directory: Path, iterations: int, playouts: int = 12) -> Path:
    """examples/spsa_tuner.ctl with fewer, weaker games."""
    path = directory / "spsa.ctl"
    path.write_text(
        _shrunk_example("spsa_tuner.ctl", playouts, f"number_of_iterations = {iterations}\n")
    )
    return path


def arena(*words: str) -> subprocess.CompletedProcess[str]:
    """The real ``arena`` command, run as the module so this checkout's code is what runs."""
    return subprocess.run(
        [sys.executable, "-m", "arena_cli", *words], capture_output=True, text=True, check=False
    )
