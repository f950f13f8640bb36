"""One game's rules and outcome, with no I/O: the referee the match runner obeys.

The referee owns the board (:class:`gtp.board.Board`, with the game's ko rule
and suicide policy), whose turn it is, the pass count, the move limit and the
way the game ended.  The match runner tells it what the engines said; the
referee decides: an ill-formed or illegal move forfeits the mover, two passes
end the game for scoring, ``move_limit`` stops it with no winner, a resignation
or an allowed claim ends it.  Scoring is either internal (area, every stone
alive, komi, handicap compensation), by the players' ``final_score``
answers, where disagreement about the winner gives an unknown result, or by
a referee engine's ``final_score`` (scorer ``referee``; ``referee_if_disagree``
asks it only when the players' answers do not settle the result).  With a
referee scorer ``move_limit`` does not end the game with no winner: the game
is scored there.  An adjudicated game (the referee engine saw one side far
ahead for several checks) is a win with no margin.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

import attrs

from arena.control.settings import REFEREE_SCORERS, GameSettings
from arena.results import EndReason
from gtp.board import Board, IllegalMove, IllegalReason, KoRule
from gtp.errors import VertexError
from gtp.handicap import fixed_handicap_points
from gtp.vertex import (
    PASS,
    Colour,
    Move,
    Point,
    format_vertex,
    move_table,
    parse_stone_list,
    parse_vertex,
)

_SCORE_PATTERN: Final = re.compile(r"([BW])\+(\d+(?:\.\d+)?)", re.IGNORECASE)
_MAX_SHOWN_ANSWER: Final = 40

_ILLEGAL_TEXT: Final[Mapping[IllegalReason, str]] = {
    "occupied": "move to occupied point {vertex}",
    "ko": "move to ko-forbidden point {vertex}",
    "superko": "move {vertex}, which repeats an earlier position (superko)",
    "suicide": "suicide at {vertex}",
    "off board": "move off the board: {vertex}",
}


@attrs.frozen
class Outcome:
    """How the game ended, before CPU times and ids are attached."""

    winner: Colour | None
    end: EndReason
    margin: float | None = None
    reason: str = ""


@attrs.frozen
class PlayerScore:
    """One engine's ``final_score`` answer: winner None means jigo."""

    winner: Colour | None
    margin: float


def parse_final_score(text: str) -> PlayerScore | None:
    """Interpret a ``final_score`` answer (``B+3.5``, ``W+12``, ``0``); None if malformed."""
    word = text.strip()
    if word == "0":
        return PlayerScore(None, 0.0)
    match = _SCORE_PATTERN.fullmatch(word)
    if match is None:
        return None
    margin = float(match.group(2))
    if margin == 0:
        return None  # "B+0" names a winner without a win
    return PlayerScore(Colour.parse(match.group(1)), margin)


def _shown(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _MAX_SHOWN_ANSWER:
        text = text[: _MAX_SHOWN_ANSWER - 3] + "..."
    return repr(text)


def parse_handicap_answer(text: str, size: int) -> list[Point]:
    """The vertices of a ``fixed_handicap``/``place_free_handicap`` answer.

    Raises ValueError for anything but distinct on-board points.
    """
    try:
        return parse_stone_list(text.split(), size)
    except VertexError as exc:
        raise ValueError(f"{exc} in handicap answer") from exc


def check_fixed_handicap_answer(text: str, settings: GameSettings) -> list[Point]:
    """The engine's fixed handicap answer, which must be the spec's points (any order)."""
    assert settings.handicap is not None
    expected = fixed_handicap_points(settings.board_size, settings.handicap)
    seen = parse_handicap_answer(text, settings.board_size)
    if set(seen) != set(expected):
        wanted = " ".join(format_vertex(p, settings.board_size) for p in expected)
        raise ValueError(f"fixed_handicap answer {_shown(text)} differs from the spec's {wanted}")
    return expected


def check_free_handicap_answer(text: str, settings: GameSettings) -> list[Point]:
    """Black's ``place_free_handicap`` choice: at least 2, at most the stones asked for."""
    assert settings.handicap is not None
    points = parse_handicap_answer(text, settings.board_size)
    if not 2 <= len(points) <= settings.handicap:
        raise ValueError(
            f"place_free_handicap {settings.handicap} answered {len(points)} stones: {_shown(text)}"
        )
    return points


class Referee:
    """The rules of one game and its outcome."""

    def __init__(self, settings: GameSettings) -> None:
        self.settings = settings
        self.board = Board(
            settings.board_size,
            ko_rule=KoRule(settings.ko_rule),
            allow_suicide=settings.allow_suicide,
        )
        # The moves an answer spells exactly (vertices, pass): no parsing at a move.
        self._moves = move_table(settings.board_size)
        self.to_move = Colour.BLACK
        self.handicap_stones: tuple[Point, ...] = ()
        self.moves_played = 0
        self.consecutive_passes = 0
        self.outcome: Outcome | None = None
        # move_limit reached under a referee scorer: the game is to be scored.
        self.limit_reached = False
        self.notes: list[str] = []  # scorer answers and the like, for the record

    # ------------------------------------------------------------------
    # Setup

    def place_handicap(self, points: Iterable[Point]) -> None:
        """Black's handicap stones are on the board; White moves first."""
        chosen = tuple(points)
        self.board.place_handicap(chosen)
        self.handicap_stones = chosen
        self.to_move = Colour.WHITE

    # ------------------------------------------------------------------
    # The game

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def needs_scoring(self) -> bool:
        """Two passes ended the game and no result is known yet."""
        return self.outcome is None and (self.consecutive_passes >= 2 or self.limit_reached)

    def interpret_genmove(self, colour: Colour, answer: str, *, claim_allowed: bool) -> Move | None:
        """Check a genmove answer for ``colour`` and play it.

        Returns the move played (a point or a pass), or None when the answer
        ended the game (resignation, claim, or a forfeit for an ill-formed or
        illegal move).
        """
        move = self._moves.get(answer)
        if move is not None:  # a vertex or a pass, spelled as engines do (the usual answer)
            return move if self.play(colour, move) else None
        word = answer.strip()
        lowered = word.lower()
        if lowered == "resign":
            self.resign(colour)
            return None
        if lowered == "claim" and claim_allowed:
            self._finish(Outcome(colour, EndReason.CLAIM, reason=f"{colour.gtp_name} claims a win"))
            return None
        point: Point | None = None
        try:
            if not word:
                raise VertexError("empty answer")
            point = parse_vertex(word, self.settings.board_size)
        except VertexError:
            self.forfeit(colour, f"{colour.gtp_name} attempted ill-formed move {_shown(answer)}")
            return None
        move = PASS if point is None else Move(point)
        return move if self.play(colour, move) else None

    def play(self, colour: Colour, move: Move) -> bool:
        """Play a point or a pass for ``colour``; an illegal one forfeits.  True if played."""
        if self.outcome is not None:
            raise ValueError("the game is over")
        try:
            self.board.play(colour, move.point)
        except IllegalMove as exc:
            vertex = format_vertex(move.point, self.settings.board_size)
            text = _ILLEGAL_TEXT[exc.reason].format(vertex=vertex)
            self.forfeit(colour, f"{colour.gtp_name} attempted {text}")
            return False
        self.moves_played += 1
        self.to_move = Colour.WHITE if colour is Colour.BLACK else Colour.BLACK
        if move.point is None:
            self.consecutive_passes += 1
        else:
            self.consecutive_passes = 0
        if self.consecutive_passes < 2 and self.moves_played >= self.settings.move_limit:
            if self.settings.scorer in REFEREE_SCORERS:
                self.limit_reached = True
                return True
            self._finish(
                Outcome(
                    None,
                    EndReason.MOVE_LIMIT,
                    reason=f"hit move limit ({self.settings.move_limit})",
                )
            )
        return True

    def resign(self, colour: Colour) -> None:
        self._finish(
            Outcome(colour.opponent, EndReason.RESIGN, reason=f"{colour.gtp_name} resigned")
        )

    def forfeit(self, colour: Colour, reason: str, *, on_time: bool = False) -> None:
        """``colour`` loses by forfeit (or on time); later faults don't change a result."""
        if self.outcome is not None:
            return
        end = EndReason.TIME if on_time else EndReason.FORFEIT
        self._finish(Outcome(colour.opponent, end, reason=reason))

    def play_rejected(self, mover: Colour, failure: str) -> None:
        """The opponent answered ``play`` for the mover's move with a failure.

        ``illegal move`` means the mover is taken to have played an illegal
        move and forfeits; any other failure forfeits the rejecting engine.
        """
        rejecting = mover.opponent
        if failure.strip() == "illegal move":
            self.forfeit(
                mover,
                f"{rejecting.gtp_name} rejected {mover.gtp_name}'s move as illegal",
            )
        else:
            self.forfeit(
                rejecting,
                f"{rejecting.gtp_name} failed to play {mover.gtp_name}'s move: {_shown(failure)}",
            )

    def unknown(self, reason: str) -> None:
        """The game cannot be given a winner (e.g. nobody could score it)."""
        self._finish(Outcome(None, EndReason.UNKNOWN, reason=reason))

    def settle(self, outcome: Outcome) -> None:
        """End the game with ``outcome`` (e.g. the players' scores, judged settled)."""
        self._finish(outcome)

    def _finish(self, outcome: Outcome) -> None:
        if self.outcome is None:
            self.outcome = outcome

    # ------------------------------------------------------------------
    # Scoring

    def handicap_compensation(self) -> float:
        stones = len(self.handicap_stones)
        if not stones:
            return 0.0
        rule = self.settings.internal_scorer_handicap_compensation
        if rule == "full":
            return float(stones)
        if rule == "short":
            return float(stones - 1)
        return 0.0

    def score_internally(self) -> Outcome:
        """Area score with every stone alive, komi and handicap compensation."""
        score = self.board.area_score(
            self.settings.komi, handicap_compensation=self.handicap_compensation()
        )
        if score == 0:
            outcome = Outcome(None, EndReason.SCORE, 0.0, "jigo")
        else:
            winner = Colour.WHITE if score > 0 else Colour.BLACK
            outcome = Outcome(winner, EndReason.SCORE, abs(score))
        self._finish(outcome)
        return outcome

    def score_from_players(self, answers: Mapping[Colour, str | None]) -> Outcome:
        """Combine the reliable scorers' ``final_score`` answers (None: not asked or failed).

        One usable answer decides; two that agree decide; two that name
        different winners give an unknown result; the same winner with
        different margins gives a win with no margin.
        """
        outcome = self.players_outcome(answers)
        self._finish(outcome)
        return outcome

    def players_outcome(self, answers: Mapping[Colour, str | None]) -> Outcome:
        """What :meth:`score_from_players` decides, without ending the game (notes kept)."""
        scores: dict[Colour, PlayerScore] = {}
        for colour in (Colour.BLACK, Colour.WHITE):
            answer = answers.get(colour)
            if answer is None:
                continue
            self.notes.append(f"final_score from {colour.gtp_name}: {answer.strip()}")
            parsed = parse_final_score(answer)
            if parsed is not None:
                scores[colour] = parsed
        if not scores:
            outcome = Outcome(None, EndReason.UNKNOWN, reason="no score reported")
        else:
            values = list(scores.values())
            first = values[0]
            if any(score.winner != first.winner for score in values):
                outcome = Outcome(
                    None, EndReason.UNKNOWN, reason="players disagreed about the winner"
                )
            elif any(score.margin != first.margin for score in values):
                outcome = Outcome(
                    first.winner, EndReason.SCORE, None, "players disagreed about the margin"
                )
            elif first.winner is None:
                outcome = Outcome(None, EndReason.SCORE, 0.0, "jigo")
            else:
                outcome = Outcome(first.winner, EndReason.SCORE, first.margin)
        return outcome

    def players_settled(self, outcome: Outcome) -> bool:
        """Whether the players' scores gave a result the referee need not check."""
        return outcome.end is EndReason.SCORE and outcome.margin is not None

    def score_from_referee(self, who: str, answer: str, dead: str | None) -> Outcome:
        """The referee engine ``who``'s ``final_score`` decides (``dead``: its dead stones).

        Raises ValueError for an answer that is not a score.
        """
        parsed = parse_final_score(answer)
        if parsed is None:
            raise ValueError(f"the referee {who} answered final_score with {_shown(answer)}")
        where = f" at the move limit ({self.settings.move_limit})" if self.limit_reached else ""
        if dead is not None:
            stones = " ".join(dead.split()) or "none"
            self.notes.append(f"dead stones according to the referee {who}: {stones}")
        reason = f"scored by the referee {who}{where}: {answer.strip()}"
        if parsed.winner is None:
            outcome = Outcome(None, EndReason.SCORE, 0.0, reason)
        else:
            outcome = Outcome(parsed.winner, EndReason.SCORE, parsed.margin, reason)
        self._finish(outcome)
        return outcome

    def adjudicate(self, winner: Colour, reason: str) -> None:
        """End the game now: ``winner`` wins by adjudication."""
        self._finish(Outcome(winner, EndReason.ADJUDICATED, reason=reason))
