"""An engine's side of GTP arguments: the spec's ``int`` and ``float`` (pure).

Both are parsed strictly, the way the specification spells them, so that an
engine never accepts what Python's ``int()``/``float()`` would also take
(``1_000``, ``0x10``, ``nan``, ``inf``, full-width digits); anything else is a
:class:`~gtp.server.GtpFailure` that names the word.
"""

from __future__ import annotations

import math
import re
from typing import Final

from gtp.server import GtpFailure

MAX_INT: Final = 2**31 - 1
FLOAT32_MAX: Final = 3.4028234663852886e38
# A GTP float is a 32-bit IEEE float in plain decimal notation.
FLOAT_SYNTAX: Final = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def parse_int(word: str) -> int:
    """A GTP int (0..2**31-1, decimal digits only); GtpFailure otherwise."""
    if not (word.isascii() and word.isdigit()) or len(word) > 10 or int(word) > MAX_INT:
        raise GtpFailure(f"syntax error: not an integer: {word!r}")
    return int(word)


def parse_float(word: str) -> float:
    """A finite GTP float; GtpFailure for NaN, infinity, overflow or other spellings."""
    if not FLOAT_SYNTAX.fullmatch(word):
        raise GtpFailure(f"syntax error: not a float: {word!r}")
    value = float(word)
    if not math.isfinite(value) or abs(value) > FLOAT32_MAX:
        raise GtpFailure(f"syntax error: not a finite 32-bit float: {word!r}")
    return value
