"""Does the sample engine only ever play legal moves?  Many whole games, every move checked.

Self-play games between two ``arena-mcts`` processes and games against GNU Go
(level 1, 9x9, Chinese rules), all driven through ``gtp.client``.  Every move
is checked by ``gtp.board`` (simple ko, no suicide) and must be accepted by
the other engine; a game with an illegal, ill-formed or rejected move, or an
engine failure, counts as a fault.  The self-play games cycle through both
playout policies and both selection rules.

    python benchmarks/engine_legality.py [--self-play 200] [--gnugo 50] [--playouts 50]

The last line is ``RESULT {json}``; the JSON also goes to
``benchmarks/results/engine_legality.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_vs_gnugo import ENGINE, RESULTS, GameRecord, gnugo_command, play_game

from gtp.launch import open_engine
from gtp.vertex import Colour

VARIANTS = (
    ("--policy", "default", "--selection", "uct"),
    ("--policy", "light", "--selection", "uct"),
    ("--policy", "default", "--selection", "puct"),
    ("--policy", "light", "--selection", "puct"),
)


async def self_play(games: int, playouts: int, seed: int) -> list[GameRecord]:
    records = []
    for number in range(games):
        variant = VARIANTS[number % len(VARIANTS)]
        base = [*ENGINE, "--playouts", str(playouts), *variant, "--seed"]
        black_cmd = [*base, str(seed + 2 * number)]
        white_cmd = [*base, str(seed + 2 * number + 1)]
        async with (
            open_engine(black_cmd, name="mcts-black") as black,
            open_engine(white_cmd, name="mcts-white") as white,
        ):
            game = await play_game(
                number,
                {Colour.BLACK: black, Colour.WHITE: white},
                {Colour.BLACK: "mcts-black", Colour.WHITE: "mcts-white"},
            )
        records.append(game)
        report("self-play", game, " ".join(variant[1::2]))
    return records


async def against_gnugo(games: int, playouts: int, seed: int, level: int) -> list[GameRecord]:
    records = []
    for number in range(games):
        ours = [*ENGINE, "--playouts", str(playouts), "--seed", str(seed + number)]
        engine_colour = Colour.BLACK if number % 2 == 0 else Colour.WHITE
        async with (
            open_engine(ours, name="arena-mcts") as engine,
            open_engine(gnugo_command(level), name="gnugo") as gnugo,
        ):
            names = {engine_colour: "arena-mcts", engine_colour.opponent: f"gnugo-{level}"}
            players = {engine_colour: engine, engine_colour.opponent: gnugo}
            game = await play_game(number, players, names)
        records.append(game)
        report(f"vs gnugo-{level}", game, f"arena-mcts {engine_colour.letter}")
    return records


def report(kind: str, game: GameRecord, detail: str) -> None:
    print(
        f"{kind} {game.number + 1:3d} ({detail}): {game.result:7s} {len(game.moves):3d} moves"
        + (f"  FAULT: {game.fault}" if game.fault else ""),
        flush=True,
    )


def summarise(records: list[GameRecord]) -> dict[str, object]:
    ends = Counter(
        "resignation" if r.result.endswith("+R") else "fault" if r.fault else "passes"
        for r in records
    )
    return {
        "games": len(records),
        "moves": sum(len(r.moves) for r in records),
        "faults": [f"game {r.number + 1}: {r.fault}" for r in records if r.fault],
        "ended_by": dict(ends),
        "distinct_games": len({r.moves for r in records}),
    }


async def run(args: argparse.Namespace) -> dict[str, object]:
    started = time.monotonic()
    selfplay = await self_play(args.self_play, args.playouts, args.seed)
    gnugo = await against_gnugo(args.gnugo, args.playouts, args.seed, args.level)
    return {
        "playouts": args.playouts,
        "self_play": summarise(selfplay),
        f"gnugo_level_{args.level}": summarise(gnugo),
        "engine_wins_vs_gnugo": sum(
            1
            for r in gnugo
            if r.winner is not None
            and (r.black if r.winner is Colour.BLACK else r.white) == "arena-mcts"
        ),
        "minutes": round((time.monotonic() - started) / 60, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--self-play", type=int, default=200, help="self-play games")
    parser.add_argument("--gnugo", type=int, default=50, help="games against GNU Go")
    parser.add_argument("--level", type=int, default=1, help="GNU Go level")
    parser.add_argument("--playouts", type=int, default=50, help="engine playouts per move")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    summary = trio.run(run, args)
    faults = len(summary["self_play"]["faults"]) + len(  # type: ignore[index]
        summary[f"gnugo_level_{args.level}"]["faults"]  # type: ignore[index]
    )
    print(f"\n{faults} faulty games")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "engine_legality.json").write_text(json.dumps(summary, indent=2) + "\n")
    print("RESULT " + json.dumps(summary))
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
