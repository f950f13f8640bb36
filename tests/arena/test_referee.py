"""The referee: legality per rules, forfeits, game end, and both scorers."""

from __future__ import annotations

import pytest

from arena.control.settings import GameSettings
from arena.results import EndReason
from arena.run.referee import (
    Outcome,
    PlayerScore,
    Referee,
    check_fixed_handicap_answer,
    check_free_handicap_answer,
    parse_final_score,
)
from gtp.vertex import Colour, Move, parse_vertex

B, W = Colour.BLACK, Colour.WHITE


def settings(**overrides: object) -> GameSettings:
    values: dict[str, object] = {"board_size": 9, "komi": 7.5}
    values.update(overrides)
    return GameSettings(**values)  # type: ignore[arg-type]


def play_answers(referee: Referee, answers: list[str], *, claim: bool = False) -> None:
    """Feed genmove answers alternately, starting with the referee's side to move."""
    for answer in answers:
        assert not referee.is_over, "game ended before the script did"
        referee.interpret_genmove(referee.to_move, answer, claim_allowed=claim)


# A ko shape on 9x9: after these moves White can take at E5 and Black may not retake at once.
KO_SETUP = ["D6", "E6", "C5", "D5", "D4", "F5", "A1", "E4", "E5"]


@pytest.mark.parametrize(
    ("moves", "rules", "outcome"),
    [
        (
            ["D4", "D4"],
            {},
            Outcome(B, EndReason.FORFEIT, reason="white attempted move to occupied point D4"),
        ),
        (
            ["D4", "Z9"],
            {},
            Outcome(B, EndReason.FORFEIT, reason="white attempted ill-formed move 'Z9'"),
        ),
        (
            ["J1", "I1"],
            {},
            Outcome(B, EndReason.FORFEIT, reason="white attempted ill-formed move 'I1'"),
        ),
        (
            ["D04"],
            {},
            Outcome(W, EndReason.FORFEIT, reason="black attempted ill-formed move 'D04'"),
        ),
        ([""], {}, Outcome(W, EndReason.FORFEIT, reason="black attempted ill-formed move ''")),
        (
            ["claim"],
            {},
            Outcome(W, EndReason.FORFEIT, reason="black attempted ill-formed move 'claim'"),
        ),
        (["D4", "resign"], {}, Outcome(B, EndReason.RESIGN, reason="white resigned")),
        (["RESIGN"], {}, Outcome(W, EndReason.RESIGN, reason="black resigned")),
        (
            ["pass", "E5", "D4", "pass", "E6", "pass"],
            {"move_limit": 6},
            Outcome(None, EndReason.MOVE_LIMIT, reason="hit move limit (6)"),
        ),
        # simple ko: White takes at E5... then Black's immediate retake is forbidden
        (
            [*KO_SETUP, "D5"],
            {},
            Outcome(B, EndReason.FORFEIT, reason="white attempted move to ko-forbidden point D5"),
        ),
        # suicide: forbidden only when the rules say so
        (
            ["A2", "E5", "B1", "A1"],
            {"allow_suicide": False},
            Outcome(B, EndReason.FORFEIT, reason="white attempted suicide at A1"),
        ),
        (["A2", "E5", "B1", "A1"], {}, None),
    ],
)
def test_game_ending_answers(
    moves: list[str], rules: dict[str, object], outcome: Outcome | None
) -> None:
    referee = Referee(settings(**rules))
    play_answers(referee, moves)
    assert referee.outcome == outcome


def test_suicide_allowed_by_default_removes_the_stones() -> None:
    referee = Referee(settings())
    play_answers(referee, ["A2", "A1", "B1", "pass"])  # White A1 is captured by B1
    assert referee.board.get((0, 0)) is None
    play_answers(referee, ["pass", "A1"])  # White's self-capture at A1 is played, not a forfeit
    assert referee.outcome is None
    assert referee.board.get((0, 0)) is None


def test_claim_counts_only_when_allowed() -> None:
    referee = Referee(settings())
    play_answers(referee, ["D4", "Claim"], claim=True)
    assert referee.outcome == Outcome(W, EndReason.CLAIM, reason="white claims a win")


def test_two_passes_need_scoring_and_a_pass_in_between_resets() -> None:
    referee = Referee(settings())
    play_answers(referee, ["pass", "D4", "pass", "pass"])
    assert referee.needs_scoring and not referee.is_over
    assert referee.moves_played == 4


def test_move_limit_is_not_hit_by_the_second_pass() -> None:
    referee = Referee(settings(move_limit=2))
    play_answers(referee, ["pass", "pass"])
    assert referee.needs_scoring


@pytest.mark.parametrize(
    ("ko_rule", "outcome"),
    [
        ("simple", None),
        (
            "positional",
            Outcome(
                B,
                EndReason.FORFEIT,
                reason="white attempted move A3, which repeats an earlier position (superko)",
            ),
        ),
    ],
)
def test_superko_is_enforced_only_under_a_superko_rule(
    ko_rule: str, outcome: Outcome | None
) -> None:
    # 3x3: White's self-capture at A3 recreates the position after Black's A2.
    referee = Referee(settings(board_size=3, komi=0, ko_rule=ko_rule))
    play_answers(referee, ["B3", "A3", "A2", "A3"])
    assert referee.outcome == outcome


@pytest.mark.parametrize(
    ("failure", "loser", "reason"),
    [
        ("illegal move", B, "white rejected black's move as illegal"),
        (" illegal move ", B, "white rejected black's move as illegal"),
        ("out of memory", W, "white failed to play black's move: 'out of memory'"),
    ],
)
def test_play_rejected_by_the_opponent(failure: str, loser: Colour, reason: str) -> None:
    referee = Referee(settings())
    referee.interpret_genmove(B, "D4", claim_allowed=False)
    referee.play_rejected(B, failure)
    assert referee.outcome == Outcome(loser.opponent, EndReason.FORFEIT, reason=reason)


def test_a_later_fault_does_not_change_an_established_result() -> None:
    referee = Referee(settings())
    referee.resign(W)
    referee.forfeit(B, "late error", on_time=True)
    assert referee.outcome == Outcome(B, EndReason.RESIGN, reason="white resigned")


def test_time_forfeit() -> None:
    referee = Referee(settings())
    referee.forfeit(W, "white did not answer genmove within 2s", on_time=True)
    assert referee.outcome == Outcome(
        B, EndReason.TIME, reason="white did not answer genmove within 2s"
    )


def area_game(handicap: list[str] | None, compensation: str, komi: float) -> Referee:
    """9x9: Black walls at D, White at F, then both pass."""
    referee = Referee(settings(komi=komi, internal_scorer_handicap_compensation=compensation))
    if handicap:
        referee.place_handicap(parse_vertex(v, 9) for v in handicap)  # type: ignore[misc]
    for row in range(1, 10):
        if referee.to_move is B:
            referee.play(B, Move(parse_vertex(f"D{row}", 9)))
            referee.play(W, Move(parse_vertex(f"F{row}", 9)))
        else:
            referee.play(W, Move(parse_vertex(f"F{row}", 9)))
            referee.play(B, Move(parse_vertex(f"D{row}", 9)))
    referee.play(referee.to_move, Move(None))
    referee.play(referee.to_move, Move(None))
    return referee


@pytest.mark.parametrize(
    ("handicap", "compensation", "komi", "winner", "margin"),
    [
        # Black walls off columns A-D (36 points), White F-J (36); E stays neutral.
        (None, "full", 7.5, W, 7.5),
        (None, "full", 0, None, 0.0),
        (None, "full", -2, B, 2.0),
        # Two handicap stones on the E column add 2 to Black and leave E neutral.
        (["E3", "E7"], "no", 0.5, B, 1.5),
        (["E3", "E7"], "full", 0.5, W, 0.5),
        (["E3", "E7"], "short", 0.5, B, 0.5),
    ],
)
def test_internal_area_score_with_komi_and_handicap_compensation(
    handicap: list[str] | None, compensation: str, komi: float, winner: Colour | None, margin: float
) -> None:
    referee = area_game(handicap, compensation, komi)
    assert referee.needs_scoring
    outcome = referee.score_internally()
    assert (outcome.winner, outcome.end, outcome.margin) == (winner, EndReason.SCORE, margin)
    assert referee.outcome == outcome


@pytest.mark.parametrize(
    ("text", "score"),
    [
        ("B+3.5", PlayerScore(B, 3.5)),
        ("w+12", PlayerScore(W, 12.0)),
        (" W+0.5 ", PlayerScore(W, 0.5)),
        ("0", PlayerScore(None, 0.0)),
        ("B+0", None),
        ("B+abc", None),
        ("W+-3", None),
        ("B+R", None),
        ("", None),
        ("Black wins", None),
    ],
)
def test_parse_final_score(text: str, score: PlayerScore | None) -> None:
    assert parse_final_score(text) == score


@pytest.mark.parametrize(
    ("black", "white", "winner", "end", "margin", "reason"),
    [
        ("B+3.5", "B+3.5", B, EndReason.SCORE, 3.5, ""),
        ("B+3.5", None, B, EndReason.SCORE, 3.5, ""),
        (None, "W+2", W, EndReason.SCORE, 2.0, ""),
        ("B+3.5", "B+5.5", B, EndReason.SCORE, None, "players disagreed about the margin"),
        ("B+3.5", "W+0.5", None, EndReason.UNKNOWN, None, "players disagreed about the winner"),
        ("0", "B+1", None, EndReason.UNKNOWN, None, "players disagreed about the winner"),
        ("0", "0", None, EndReason.SCORE, 0.0, "jigo"),
        ("garbage", "W+7", W, EndReason.SCORE, 7.0, ""),
        (None, None, None, EndReason.UNKNOWN, None, "no score reported"),
        ("B+x", "??", None, EndReason.UNKNOWN, None, "no score reported"),
    ],
)
def test_players_scoring(
    black: str | None,
    white: str | None,
    winner: Colour | None,
    end: EndReason,
    margin: float | None,
    reason: str,
) -> None:
    referee = Referee(settings())
    outcome = referee.score_from_players({B: black, W: white})
    assert outcome == Outcome(winner, end, margin, reason)
    # every answer received is kept for the game record
    for colour, answer in ((B, black), (W, white)):
        if answer is not None:
            assert f"final_score from {colour.gtp_name}: {answer.strip()}" in referee.notes


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        ("C3 G7 C7", True),
        ("c7 C3 g7", True),
        ("C3 G7", False),
        ("C3 G7 C7 C7", False),
        ("C3 G7 D7", False),
    ],
)
def test_fixed_handicap_answer_must_match_the_spec_as_a_set(answer: str, ok: bool) -> None:
    s = settings(handicap=3)
    if ok:
        assert set(check_fixed_handicap_answer(answer, s)) == {(2, 2), (6, 6), (6, 2)}
    else:
        with pytest.raises(ValueError):
            check_fixed_handicap_answer(answer, s)


@pytest.mark.parametrize(
    ("answer", "stones"),
    [
        ("D4 E5 F6", 3),
        ("D4 E5", 2),
        ("D4", None),
        ("D4 D4 E5", None),
        ("D4 pass", None),
        ("D4 Z99", None),
        ("A1 A2 A3 A4", None),
    ],
)
def test_free_handicap_answer(answer: str, stones: int | None) -> None:
    s = settings(handicap=3, handicap_style="free")
    if stones is None:
        with pytest.raises(ValueError):
            check_free_handicap_answer(answer, s)
    else:
        assert len(check_free_handicap_answer(answer, s)) == stones


def test_handicap_gives_white_the_first_move() -> None:
    referee = Referee(settings(handicap=2))
    referee.place_handicap([(2, 2), (6, 6)])
    assert referee.to_move is W
    referee.interpret_genmove(W, "C3", claim_allowed=False)
    assert referee.outcome == Outcome(
        B, EndReason.FORFEIT, reason="white attempted move to occupied point C3"
    )
