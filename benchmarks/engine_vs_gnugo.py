"""How strong is the sample engine?  Games against GNU Go or ``engines.random``.

Plays N games of ``arena-mcts`` (as ``python -m engines.mcts``) against an
opponent, alternating colours, every game with a different engine seed, each
engine a subprocess driven through ``gtp.client``, every move checked by
``gtp.board`` (simple ko, no suicide) before the opponent sees it.  A game ends
by resignation, two passes or the move cap.  A passed-out game is scored by
GNU Go's ``final_score`` when GNU Go plays (it removes dead stones), otherwise
by area counting with every stone alive.  Prints one line per game, then the
win rate with its standard error and whether any two games repeated; the
summary also goes to ``benchmarks/results/``.

    python benchmarks/engine_vs_gnugo.py --games 40 --playouts 1000 --level 10
    python benchmarks/engine_vs_gnugo.py --opponent random --games 40 --playouts 300

The game driver (:func:`play_game`) is shared with ``engine_legality.py``.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import attrs
import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gtp.board import Board, IllegalMove, format_score  # noqa: E402
from gtp.client import GtpClient  # noqa: E402
from gtp.errors import CommandFailed, GtpError, VertexError  # noqa: E402
from gtp.launch import open_engine  # noqa: E402
from gtp.vertex import Colour, parse_move_answer  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
ENGINE = [sys.executable, "-m", "engines.mcts"]
RANDOM = [sys.executable, "-m", "engines.random"]


@attrs.frozen
class GameRecord:
    """One finished game, from the arena's point of view."""

    number: int
    black: str
    white: str
    moves: tuple[str, ...]
    winner: Colour | None  # None: jigo or no result
    result: str  # e.g. "W+R", "B+3.5", "W+F" (forfeit), "Void"
    fault: str = ""  # an illegal or rejected move, a crash: empty when the game was clean

    def to_json(self) -> dict[str, object]:
        return {
            "game": self.number,
            "black": self.black,
            "white": self.white,
            "result": self.result,
            "moves": len(self.moves),
            "fault": self.fault,
        }


async def play_game(
    number: int,
    players: dict[Colour, GtpClient],
    names: dict[Colour, str],
    *,
    size: int = 9,
    komi: float = 7.5,
    move_timeout: float = 300.0,
    scorer: GtpClient | None = None,
) -> GameRecord:
    """Play one game; faults (illegal or rejected moves, engine errors) end it as a forfeit."""
    for client in players.values():
        await client.command("boardsize", str(size))
        await client.command("clear_board")
        await client.command("komi", f"{komi:g}")
    referee = Board(size)
    moves: list[str] = []
    colour = Colour.BLACK
    passes = 0

    def record(winner: Colour | None, result: str, fault: str = "") -> GameRecord:
        return GameRecord(
            number, names[Colour.BLACK], names[Colour.WHITE], tuple(moves), winner, result, fault
        )

    for _ in range(3 * size * size):
        mover = players[colour]
        try:
            answer = await mover.command("genmove", colour.gtp_name, timeout=move_timeout)
        except GtpError as exc:
            return record(colour.opponent, f"{colour.opponent.letter}+F", f"genmove: {exc}")
        try:
            move = parse_move_answer(answer, size)
        except VertexError:
            return record(colour.opponent, f"{colour.opponent.letter}+F", f"ill-formed {answer!r}")
        if move.is_resign:
            moves.append("resign")
            return record(colour.opponent, f"{colour.opponent.letter}+R")
        try:
            referee.play(colour, move.point)
        except IllegalMove as exc:
            fault = f"illegal {colour.letter} {answer} ({exc.reason})"
            return record(colour.opponent, f"{colour.opponent.letter}+F", fault)
        spelled = move.to_gtp(size)
        moves.append(f"{colour.letter} {spelled}")
        try:
            await players[colour.opponent].command("play", colour.gtp_name, spelled)
        except CommandFailed as exc:
            return record(None, "Void", f"{names[colour.opponent]} rejected {spelled}: {exc}")
        passes = passes + 1 if move.is_pass else 0
        if passes == 2:
            break
        colour = colour.opponent
    else:
        return record(None, "Void", "move cap reached")
    if scorer is not None:
        text = (await scorer.command("final_score", timeout=move_timeout)).strip()
        winner = None if text == "0" else Colour.parse(text[0])
        return record(winner, text)
    score = referee.area_score(komi)
    winner = None if score == 0 else (Colour.WHITE if score > 0 else Colour.BLACK)
    return record(winner, format_score(score))


def engine_won(record: GameRecord, name: str = "arena-mcts") -> bool:
    if record.winner is None:
        return False
    return (record.black if record.winner is Colour.BLACK else record.white) == name


def win_rate(wins: float, games: int) -> tuple[float, float]:
    """The win rate and its standard error (binomial)."""
    if games == 0:
        return 0.0, 0.0
    p = wins / games
    return p, math.sqrt(p * (1 - p) / games)


def gnugo_command(level: int) -> list[str]:
    binary = shutil.which("gnugo") or "/usr/games/gnugo"
    return [binary, "--mode", "gtp", "--level", str(level), "--chinese-rules"]


async def run_match(args: argparse.Namespace) -> dict[str, object]:
    engine_args = ["--playouts", str(args.playouts), *args.engine_args.split()]
    if args.opponent == "gnugo":
        opponent_command = gnugo_command(args.level)
        opponent_name = f"gnugo-{args.level}"
    else:
        opponent_command = [*RANDOM, "--seed", "0"]
        opponent_name = "random"
    records: list[GameRecord] = []
    started = time.monotonic()
    for number in range(args.games):
        seed = args.seed + number
        ours = [*ENGINE, *engine_args, "--seed", str(seed)]
        command = opponent_command
        if args.opponent == "random":
            command = [*RANDOM, "--seed", str(seed)]
        engine_colour = Colour.BLACK if number % 2 == 0 else Colour.WHITE
        async with (
            open_engine(ours, name="arena-mcts") as engine,
            open_engine(command, name=opponent_name) as opponent,
        ):
            players = {engine_colour: engine, engine_colour.opponent: opponent}
            names = {engine_colour: "arena-mcts", engine_colour.opponent: opponent_name}
            scorer = opponent if args.opponent == "gnugo" else None
            game = await play_game(
                number, players, names, size=args.size, komi=args.komi, scorer=scorer
            )
        records.append(game)
        won = game.winner is engine_colour
        wins = sum(1 for r in records if engine_won(r))
        rate, error = win_rate(wins, len(records))
        print(
            f"game {number + 1:3d}: arena-mcts {engine_colour.letter} seed {seed}: "
            f"{game.result:7s} {len(game.moves):3d} moves  {'won ' if won else 'lost'}"
            f"  [{wins}/{len(records)} = {100 * rate:.0f}% ± {100 * error:.0f}]"
            + (f"  FAULT {game.fault}" if game.fault else ""),
            flush=True,
        )
    wins = sum(1 for r in records if engine_won(r))
    rate, error = win_rate(wins, len(records))
    distinct = len({r.moves for r in records})
    summary: dict[str, object] = {
        "opponent": opponent_name,
        "games": len(records),
        "playouts": args.playouts,
        "engine_args": args.engine_args,
        "wins": wins,
        "win_rate": round(rate, 4),
        "standard_error": round(error, 4),
        "distinct_games": distinct,
        "faults": [r.fault for r in records if r.fault],
        "minutes": round((time.monotonic() - started) / 60, 1),
        "records": [r.to_json() for r in records],
    }
    print(
        f"\narena-mcts at {args.playouts} playouts vs {opponent_name}: {wins}/{len(records)}"
        f" = {100 * rate:.1f}% ± {100 * error:.1f}% (standard error);"
        f" {distinct} distinct games of {len(records)};"
        f" {sum(1 for r in records if r.fault)} faults"
    )
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", choices=("gnugo", "random"), default="gnugo")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--playouts", type=int, default=1000)
    parser.add_argument("--level", type=int, default=10, help="GNU Go level")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--seed", type=int, default=1000, help="engine seed of the first game")
    parser.add_argument("--engine-args", default="", help="more arena-mcts options, quoted")
    parser.add_argument("--output", default=None, help="JSON file (default under results/)")
    args = parser.parse_args(argv)
    summary = trio.run(run_match, args)
    default_name = f"engine_vs_{summary['opponent']}_{args.playouts}.json"
    output = Path(args.output) if args.output else RESULTS / default_name
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(summary, indent=2) + "\n")
    print("RESULT " + json.dumps({k: v for k, v in summary.items() if k != "records"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
