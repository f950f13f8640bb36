"""What the sample engine believed in its games against GNU Go, competition by competition.

``benchmarks/engine_strength.py`` counts wins; this reads the game records of
the same competitions (``WORKDIR/CODE.games/*.sgf``) and the engine's own
account of each move, the comment ``gomill-explain_last_move`` put there
(``D4: win rate 56.0% for white, 3000 root visits in 0.577 s; pv ...``), to
tell *how* games were lost:

* ``resigned``: losses by our resignation, the rest were counted (or lost on time);
* ``collapsed``: losses in which our engine believed, at some move, that it
  was winning with at least ``--confident`` (default 70%): the search was
  wrong about the position, not merely behind from the start;
* ``never_ahead``: losses in which it never believed it was ahead (50%);
* ``turn``: for collapsed losses, the median move number at which its belief
  last fell below 50% for good (how late the mistake was found);
* the median time and root visits a move (what the row's setting bought);
* with ``--gnugo PATH``: for each resignation, GNU Go's ``estimate_score`` of
  the position our engine resigned in: ``behind`` counts the resignations GNU Go
  agrees were behind, ``margin`` is the median of our lead by its estimate (a
  resignation in a position GNU Go scores as ours was given up too early).

A search that scales turns collapses into wins as it grows: comparing these
figures between 3,000 and 10,000 simulations says whether more simulations
see further (fewer collapses, found earlier) or merely agree with themselves.

Usage: python benchmarks/strength_games.py [--workdir DIR] [--confident 0.7] [--gnugo PATH]
       [CODE ...]

With no CODE, every competition in the work directory (default
``benchmarks/results/strength-runs``).  The last line is ``RESULT {json}``
with one entry per competition.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

from sgfmill import sgf

ROOT: Final = Path(__file__).resolve().parent.parent
DEFAULT_WORKDIR: Final = ROOT / "benchmarks" / "results" / "strength-runs"
OUR_ENGINE: Final = "arena-mcts"  # the start of our engine's name in PB/PW
ESTIMATE: Final = re.compile(r"=\s*(?P<winner>[BW])\+(?P<margin>[0-9.]+)")
COLUMNS: Final = "ABCDEFGHJKLMNOPQRST"
EXPLANATION: Final = re.compile(
    r"win rate (?P<rate>[0-9.]+)% for (?P<colour>black|white), (?P<visits>\d+) root visits"
    r" in (?P<seconds>[0-9.]+) s"
)


@dataclass(frozen=True)
class Belief:
    """One of our moves, as our engine explained it."""

    number: int  # the move's number in the game, from 1
    win_rate: float  # for the side that moved
    visits: int
    seconds: float


@dataclass(frozen=True)
class GameStory:
    won: bool
    resigned: bool  # we resigned (a loss)
    beliefs: tuple[Belief, ...]
    colour: str = "b"  # ours
    size: int = 9
    komi: float = 7.5
    moves: tuple[tuple[str, str], ...] = ()  # the game's moves, GTP colour and vertex

    def peak(self) -> float:
        return max((b.win_rate for b in self.beliefs), default=0.0)

    def turn(self) -> int | None:
        """The move after which our belief stayed below 50%; None if it ended at or above."""
        last_ahead = None
        for belief in self.beliefs:
            if belief.win_rate >= 0.5:
                last_ahead = belief.number
        if self.beliefs and self.beliefs[-1].win_rate >= 0.5:
            return None
        following = [b.number for b in self.beliefs if last_ahead is None or b.number > last_ahead]
        return following[0] if following else None


def read_story(data: bytes) -> GameStory | None:
    """Our engine's game from an SGF record; None when neither player is our engine."""
    game = sgf.Sgf_game.from_bytes(data)
    root = game.get_root()
    names = {
        colour: root.get(prop) if root.has_property(prop) else ""
        for colour, prop in (("b", "PB"), ("w", "PW"))
    }
    ours = [colour for colour, name in names.items() if name.startswith(OUR_ENGINE)]
    if len(ours) != 1:
        return None
    colour = ours[0]
    result = root.get("RE") if root.has_property("RE") else ""
    won = result.lower().startswith(colour + "+")
    resigned = not won and result.upper().endswith("+R")
    beliefs: list[Belief] = []
    for number, node in enumerate(game.get_main_sequence()[1:], start=1):
        mover, _ = node.get_move()
        if mover != colour or not node.has_property("C"):
            continue
        match = EXPLANATION.search(node.get("C"))
        if match is None:
            continue
        rate = float(match["rate"]) / 100
        if match["colour"][0] != colour:
            rate = 1.0 - rate
        beliefs.append(Belief(number, rate, int(match["visits"]), float(match["seconds"])))
    moves = []
    for node in game.get_main_sequence()[1:]:
        mover, point = node.get_move()
        if mover is not None:
            vertex = "pass" if point is None else f"{COLUMNS[point[1]]}{point[0] + 1}"
            moves.append((mover, vertex))
    return GameStory(
        won, resigned, tuple(beliefs), colour, game.get_size(), game.get_komi(), tuple(moves)
    )


def our_lead(estimate: str, colour: str) -> float | None:
    """Our lead by GNU Go's ``estimate_score`` answer (``= W+26.2 (upper bound: ...)``)."""
    match = ESTIMATE.match(estimate.strip())
    if match is None:
        return 0.0 if estimate.strip() == "= 0" else None
    margin = float(match["margin"])
    return margin if match["winner"].lower() == colour else -margin


def resignation_lead(gnugo: str, story: GameStory) -> float | None:
    """GNU Go's estimate of our lead in the position we resigned in (None: no answer)."""
    lines = [f"boardsize {story.size}", "clear_board", f"komi {story.komi}"]
    lines += [f"play {colour} {vertex}" for colour, vertex in story.moves]
    lines += ["estimate_score", "quit"]
    done = subprocess.run(
        [gnugo, "--mode", "gtp", "--chinese-rules"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    answers = [line for line in done.stdout.split("\n") if line.startswith(("=", "?"))]
    return our_lead(answers[-2], story.colour) if len(answers) >= 2 else None


@dataclass(frozen=True)
class Summary:
    code: str
    games: int
    wins: int
    losses: int
    resigned: int
    collapsed: int  # losses once believed won at >= confident
    never_ahead: int  # losses never believed ahead
    turn_median: float | None  # collapsed losses: the move the belief fell for good
    wins_in_doubt: int  # wins in which we believed we were behind (< 50%) at some move
    seconds_median: float | None
    visits_median: float | None
    resigned_behind: int | None = None  # with --gnugo: resignations GNU Go scores as behind
    resigned_lead_median: float | None = None  # ... and our median lead by its estimate


def summarise(
    code: str, stories: Sequence[GameStory], confident: float, gnugo: str | None = None
) -> Summary:
    losses = [s for s in stories if not s.won]
    collapsed = [s for s in losses if s.peak() >= confident]
    turns = [t for s in collapsed if (t := s.turn()) is not None]
    beliefs = [b for s in stories for b in s.beliefs]
    behind = lead = None
    if gnugo is not None:
        leads = [
            found
            for s in losses
            if s.resigned and (found := resignation_lead(gnugo, s)) is not None
        ]
        behind = sum(found < 0 for found in leads)
        lead = statistics.median(leads) if leads else None
    return Summary(
        code=code,
        games=len(stories),
        wins=len(stories) - len(losses),
        losses=len(losses),
        resigned=sum(s.resigned for s in losses),
        collapsed=len(collapsed),
        never_ahead=sum(s.peak() < 0.5 for s in losses),
        turn_median=statistics.median(turns) if turns else None,
        wins_in_doubt=sum(any(b.win_rate < 0.5 for b in s.beliefs) for s in stories if s.won),
        seconds_median=statistics.median(b.seconds for b in beliefs) if beliefs else None,
        visits_median=statistics.median(b.visits for b in beliefs) if beliefs else None,
        resigned_behind=behind,
        resigned_lead_median=lead,
    )


def competition_stories(games_dir: Path) -> list[GameStory]:
    stories = []
    for path in sorted(games_dir.glob("*.sgf")):
        story = read_story(path.read_bytes())
        if story is not None:
            stories.append(story)
    return stories


def format_summary(summaries: Sequence[Summary], confident: float) -> str:
    head = (
        f"{'competition':40}{'games':>6}{'wins':>6}{'lost':>6}{'resign':>7}"
        f"{'collapse':>9}{'never':>6}{'turn':>6}{'doubt':>6}{'s/move':>8}{'visits':>8}"
    )
    lines = [f"collapse: a loss once believed won at >= {confident:.0%}", head]
    for s in summaries:
        turn = "-" if s.turn_median is None else f"{s.turn_median:.0f}"
        seconds = "-" if s.seconds_median is None else f"{s.seconds_median:.2f}"
        visits = "-" if s.visits_median is None else f"{s.visits_median:.0f}"
        line = (
            f"{s.code:40}{s.games:>6}{s.wins:>6}{s.losses:>6}{s.resigned:>7}"
            f"{s.collapsed:>9}{s.never_ahead:>6}{turn:>6}{s.wins_in_doubt:>6}{seconds:>8}{visits:>8}"
        )
        if s.resigned_behind is not None:
            lead = "-" if s.resigned_lead_median is None else f"{s.resigned_lead_median:+.1f}"
            line += f"{s.resigned_behind:>8}{lead:>8}"
        lines.append(line)
    if any(s.resigned_behind is not None for s in summaries):
        lines[1] += f"{'behind':>8}{'margin':>8}"
        lines.append("behind: resignations GNU Go's estimate_score scores as lost; margin: our")
        lines.append("median lead by that estimate at the resignation (negative: behind)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("codes", nargs="*", metavar="CODE", help="competitions (default: all)")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    parser.add_argument("--confident", type=float, default=0.7)
    parser.add_argument(
        "--gnugo", metavar="PATH", help="check each resignation with this GNU Go's estimate_score"
    )
    args = parser.parse_args(argv)
    if not 0.5 <= args.confident < 1:
        print("strength_games: --confident must be in [0.5, 1)", file=sys.stderr)
        return 2
    if args.codes:
        dirs = [args.workdir / f"{code}.games" for code in args.codes]
    else:
        dirs = sorted(args.workdir.glob("*.games"))
    missing = [d for d in dirs if not d.is_dir()]
    if missing:
        print(f"strength_games: no game records in {missing[0]}", file=sys.stderr)
        return 2
    summaries = [
        summarise(d.name.removesuffix(".games"), competition_stories(d), args.confident, args.gnugo)
        for d in dirs
    ]
    print(format_summary(summaries, args.confident))
    print("RESULT " + json.dumps([asdict(s) for s in summaries]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
