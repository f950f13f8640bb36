"""Where the sample engine lost its games against GNU Go, as positions to test it on.

A 200-game row against GNU Go takes two hours of both cores; this gives a
quicker, rougher look at the one thing the losses have in common (a group that
died).  Two steps:

``collect GAMES_DIR... -o FILE``
    For every game our engine lost in those ``*.games`` folders, GNU Go 3.8
    (``--level 10 --chinese-rules``) estimates the score after each move
    (``estimate_score``).  The game's *collapse* is our move after which our
    lead, two moves later (once GNU Go had replied), was lowest relative to
    before it, by at least ``--drop`` points (default 15), in a position not
    already lost by more than ``--floor`` (20).  GNU Go then plays that
    position itself (its move for us, its reply); when that keeps our lead
    within ``--margin`` points (5) of before, a better move existed and the
    position is kept, with both moves and the leads, in FILE (JSON).

``solve FILE [--source DIR] [--seeds N] [--args "ENGINE OPTIONS"]``
    Our engine (``python -m engines.mcts --playouts 3000 --rave mse --priors
    heuristic``, the strength rows' default, from the checkout DIR, with the
    options of ``--args`` after them) searches each position from a fresh tree with
    N seeds; GNU Go replies to its move and estimates again.  A position is
    solved when our lead stays within the margin.  The last line is
    ``RESULT {json}`` with ``solved``, ``trials``, ``positions`` and
    ``positions_solved`` (solved by at least one seed).

``benchmarks/results/engine_collapses.json`` holds 72 positions, from the 177
losses of three 3,000-simulation rows of the same engine (1e4c844's, 6fb42ce's
and the 548661b replay's games).  How far it can be trusted (2026-11-29, 2
seeds a position): the default solved 34/144 at 3,000 simulations and 53/144 at
10,000, which won 84% of its games against 68%; ``--policy strict`` 44/144 and
``--policy lgrf`` 36/144.  Strict's lead here (also 35/120 against 29/120 on 30
positions of one row, 4 seeds) never showed in games (135/200 against the
default's 68%), and a second strict row (086945a, 2026-11-29) won 116/200 = 58%:
these positions reward something the games do not, so they rank candidates
for a row but cannot stand in for one.  A fresh tree is not
what a game gives the engine (it reuses the tree between moves), and GNU Go's
estimate is an estimate.

    python benchmarks/engine_collapses.py collect benchmarks/results/strength-runs/*.games -o c.json
    python benchmarks/engine_collapses.py solve c.json --seeds 4 --args "--policy strict"
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

sys.path.insert(0, str(Path(__file__).resolve().parent))
from strength_games import our_lead, read_story

ROOT: Final = Path(__file__).resolve().parent.parent
GNUGO_ARGS: Final = ("--mode", "gtp", "--level", "10", "--chinese-rules")
ENGINE_ARGS: Final = ("--playouts", "3000", "--rave", "mse", "--priors", "heuristic")

Move = tuple[str, str]  # GTP colour and vertex


def opponent(colour: str) -> str:
    return "w" if colour == "b" else "b"


def gtp_answers(command: Sequence[str], lines: Sequence[str], **options: object) -> list[str]:
    """Every answer of one engine session fed ``lines`` (then ``quit``), in order."""
    done = subprocess.run(
        list(command),
        input="\n".join([*lines, "quit"]) + "\n",
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        **options,  # type: ignore[arg-type]
    )
    answers = [line for line in done.stdout.split("\n") if line.startswith(("=", "?"))]
    if len(answers) != len(lines) + 1:
        raise SystemExit(
            f"{command[0]}: {len(answers)} answers to {len(lines) + 1} commands"
            f" ({done.stderr.strip()[-200:]!r})"
        )
    return answers[:-1]


def setup(size: int, komi: float, moves: Sequence[Move]) -> list[str]:
    return [f"boardsize {size}", "clear_board", f"komi {komi}"] + [
        f"play {colour} {vertex}" for colour, vertex in moves
    ]


def collapse_point(
    moves: Sequence[Move], leads: Sequence[float | None], colour: str, drop: float, floor: float
) -> int | None:
    """The index of our move whose lead two moves later fell most (by ``drop`` at least),
    from a position not lost by more than ``floor``; ``leads[i]`` is our lead after ``i``
    moves."""
    best: tuple[float, int] | None = None
    for index, (mover, _) in enumerate(moves[:-1]):
        before, after = leads[index], leads[index + 2]
        if mover != colour or before is None or after is None or before < -floor:
            continue
        fall = before - after
        if fall >= drop and (best is None or fall > best[0]):
            best = (fall, index)
    return None if best is None else best[1]


def collect(options: argparse.Namespace) -> int:
    gnugo = [options.gnugo, *GNUGO_ARGS]
    positions = []
    lost = 0
    for folder in options.games:
        for path in sorted(Path(folder).glob("*.sgf")):
            story = read_story(path.read_bytes())
            if story is None or story.won:
                continue
            lost += 1
            moves, ours = story.moves, story.colour
            lines = setup(story.size, story.komi, ())
            lines.append("estimate_score")
            for colour, vertex in moves:
                lines += [f"play {colour} {vertex}", "estimate_score"]
            answers = gtp_answers(gnugo, lines)[3:]
            leads = [our_lead(answers[0], ours)] + [
                our_lead(answer, ours) for answer in answers[2::2]
            ]
            index = collapse_point(moves, leads, ours, options.drop, options.floor)
            if index is None:
                print(f"{path.name}: no collapse", flush=True)
                continue
            before, after = leads[index], leads[index + 2]
            assert before is not None and after is not None
            lines = setup(story.size, story.komi, moves[:index])
            lines += [f"genmove {ours}", f"genmove {opponent(ours)}", "estimate_score"]
            answers = gtp_answers(gnugo, lines)
            better, reply = (answer[1:].strip() for answer in answers[-3:-1])
            kept = our_lead(answers[-1], ours)
            found = kept is not None and kept >= before - options.margin
            print(
                f"{path.name}: move {index + 1} {moves[index][1]} then {moves[index + 1][1]}:"
                f" {before:+.1f} -> {after:+.1f}; GNU Go {better} then {reply}: {kept}"
                + ("" if found else " (no better move: left out)"),
                flush=True,
            )
            if found:
                positions.append(
                    {
                        "game": str(path),
                        "size": story.size,
                        "komi": story.komi,
                        "colour": ours,
                        "moves": moves[:index],
                        "played": moves[index][1],
                        "reply": moves[index + 1][1],
                        "lead_before": before,
                        "lead_after": after,
                        "better": better,
                        "better_lead": kept,
                    }
                )
    Path(options.output).write_text(json.dumps(positions, indent=1) + "\n")
    print(f"{len(positions)} positions from {lost} lost games -> {options.output}")
    return 0


def solve(options: argparse.Namespace) -> int:
    try:
        positions = json.loads(Path(options.positions).read_text())
    except (OSError, ValueError) as error:
        raise SystemExit(f"{options.positions}: cannot read the positions ({error})") from None
    gnugo = [options.gnugo, *GNUGO_ARGS]
    source = str(Path(options.source).resolve())
    environment = dict(os.environ, PYTHONPATH=source)
    solved = trials = positions_solved = 0
    for number, position in enumerate(positions):
        ours = position["colour"]
        moves = [tuple(move) for move in position["moves"]]
        start = setup(position["size"], position["komi"], moves)
        hits = 0
        for seed in range(options.seeds):
            engine = [
                sys.executable,
                "-m",
                "engines.mcts",
                *ENGINE_ARGS,
                "--seed",
                str(1000 + 17 * number + seed),
                *shlex.split(options.args),
            ]
            answer = gtp_answers(engine, [*start, f"genmove {ours}"], cwd=source, env=environment)
            move = answer[-1][1:].strip()
            lines = [*start, f"play {ours} {move}", f"genmove {opponent(ours)}", "estimate_score"]
            lead = our_lead(gtp_answers(gnugo, lines)[-1], ours)
            hits += lead is not None and lead >= position["lead_before"] - options.margin
        solved += hits
        trials += options.seeds
        positions_solved += hits > 0
        print(
            f"{number:3} {Path(position['game']).name}: played {position['played']},"
            f" GNU Go {position['better']}: solved {hits}/{options.seeds}",
            flush=True,
        )
    print(f"solved {solved}/{trials}; positions solved at least once {positions_solved}")
    result = {
        "solved": solved,
        "trials": trials,
        "positions": len(positions),
        "positions_solved": positions_solved,
        "engine_options": options.args,
    }
    print("RESULT " + json.dumps(result))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gnugo", default=shutil.which("gnugo") or "/usr/games/gnugo")
    parser.add_argument(
        "--margin", type=float, default=5.0, help="points: a move that keeps the lead"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    collecting = commands.add_parser("collect", help="find the positions in lost games")
    collecting.add_argument("games", nargs="+", help="CODE.games folders of game records")
    collecting.add_argument("-o", "--output", required=True)
    collecting.add_argument("--drop", type=float, default=15.0)
    collecting.add_argument("--floor", type=float, default=20.0)
    solving = commands.add_parser("solve", help="test the engine on the positions")
    solving.add_argument("positions")
    solving.add_argument("--source", default=str(ROOT), help="the engine's checkout")
    solving.add_argument("--seeds", type=int, default=4)
    solving.add_argument("--args", default="", help="more engine options, as one string")
    options = parser.parse_args(argv)
    if not Path(options.gnugo).is_file():
        parser.error(f"no GNU Go at {options.gnugo} (--gnugo PATH)")
    return collect(options) if options.command == "collect" else solve(options)


if __name__ == "__main__":
    sys.exit(main())
