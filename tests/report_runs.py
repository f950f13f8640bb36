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


def arena(*words: str) -> subprocess.CompletedProcess[str]:
    """The real ``arena`` command, run as the module so this checkout's code is what runs."""
    return subprocess.run(
        [sys.executable, "-m", "arena_cli", *words], capture_output=True, text=True, check=False
    )
