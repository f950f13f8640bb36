"""GTP int and float arguments are parsed as the specification spells them."""

from __future__ import annotations

import pytest

from gtp.arguments import parse_float, parse_int
from gtp.server import GtpFailure


@pytest.mark.parametrize(
    ("word", "value"), [("0", 0), ("19", 19), ("007", 7), ("2147483647", 2**31 - 1)]
)
def test_ints_in_plain_decimal_are_accepted(word: str, value: int) -> None:
    assert parse_int(word) == value


@pytest.mark.parametrize(
    "word", ["", "-1", "+3", "1_000", "0x10", "1.0", "2147483648", "９", "12345678901"]
)
def test_other_int_spellings_are_refused_naming_the_word(word: str) -> None:
    with pytest.raises(GtpFailure, match="not an integer"):
        parse_int(word)


@pytest.mark.parametrize(
    ("word", "value"),
    [("6.5", 6.5), ("-0.5", -0.5), ("+7", 7.0), (".5", 0.5), ("5.", 5.0), ("1e2", 100.0)],
)
def test_floats_in_decimal_notation_are_accepted(word: str, value: float) -> None:
    assert parse_float(word) == value


@pytest.mark.parametrize(
    "word", ["nan", "inf", "-infinity", "1_0", "0x1p3", "", ".", "e5", "7,5", "1e39", "-4e38"]
)
def test_non_finite_or_foreign_floats_are_refused(word: str) -> None:
    with pytest.raises(GtpFailure, match="not a"):
        parse_float(word)
