"""The value checkers of control files: the tokens a file creates and where a value came from.

Owns :class:`ConfigToken` (a ``Player(...)``/``Matchup(...)`` call kept for
validation), :class:`Where` (file, line and setting, to build a one-line
error) and the ``as_*`` checkers every setting uses.  Pure: no I/O.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, Final

import attrs

from arena import fields_eq, fields_hash, fields_repr
from arena.errors import ControlFileError

IDENTIFIER_PUNCTUATION: Final = frozenset("-!$%&*+.:;<=>?^_~")

# ---------------------------------------------------------------------------
# Tokens the control file creates


@attrs.define
class ConfigToken:
    """A ``Player(...)``/``Matchup(...)`` call, kept for validation later."""

    __repr__ = fields_repr
    __eq__ = fields_eq

    kind: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    line: int | None


def token_factory(kind: str, filename: str) -> Callable[..., ConfigToken]:
    def make(*args: Any, **kwargs: Any) -> ConfigToken:
        frame: FrameType | None = sys._getframe(1)
        line = None
        while frame is not None:
            if frame.f_code.co_filename == filename:
                line = frame.f_lineno
                break
            frame = frame.f_back
        return ConfigToken(kind, args, kwargs, line)

    make.__name__ = kind
    return make


# ---------------------------------------------------------------------------
# Value checking


@attrs.frozen
class Where:
    """Where a value came from, to build a one-line error about it."""

    __repr__ = fields_repr
    __eq__ = fields_eq
    __hash__ = fields_hash

    path: Path
    setting: str
    line: int | None = None

    def error(self, message: str) -> ControlFileError:
        return ControlFileError(message, path=self.path, line=self.line, setting=self.setting)

    def child(self, name: str, line: int | None = None) -> Where:
        return Where(self.path, f"{self.setting}{name}", self.line if line is None else line)


def describe_value(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def as_bool(value: object, where: Where) -> bool:
    if not isinstance(value, bool):
        raise where.error(f"expected True or False, not {describe_value(value)}")
    return value


def as_int(value: object, where: Where) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise where.error(f"expected an integer, not {describe_value(value)}")
    return value


def as_float(value: object, where: Where) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise where.error(f"expected a number, not {describe_value(value)}")
    result = float(value)
    if not math.isfinite(result):
        raise where.error(f"expected a finite number, not {describe_value(value)}")
    return result


def as_str(value: object, where: Where) -> str:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise where.error("expected UTF-8 text") from exc
    if not isinstance(value, str):
        raise where.error(f"expected a string, not {describe_value(value)}")
    return value


def as_identifier(value: object, where: Where) -> str:
    text = as_str(value, where)
    if not text or not all(
        (c.isascii() and c.isalnum()) or c in IDENTIFIER_PUNCTUATION for c in text
    ):
        raise where.error(
            f"{describe_value(value)} is not an identifier"
            " (ASCII letters, digits, - ! $ % & * + . : ; < = > ? ^ _ ~)"
        )
    return text


def as_choice(value: object, choices: tuple[str, ...], where: Where) -> str:
    if not isinstance(value, str) or value not in choices:
        wanted = ", ".join(repr(c) for c in choices)
        raise where.error(f"expected one of {wanted}, not {describe_value(value)}")
    return value


def as_timeout(value: object, where: Where) -> float | None:
    if value is None:
        return None
    seconds = as_float(value, where)
    if seconds <= 0:
        raise where.error(
            f"expected a positive number of seconds or None, not {describe_value(value)}"
        )
    return seconds


def as_str_dict(value: object, where: Where) -> dict[str, str]:
    if not isinstance(value, dict):
        raise where.error(f"expected a dictionary of strings, not {describe_value(value)}")
    return {
        as_str(k, where.child(" key")): as_str(v, where.child(f"[{k!r}]")) for k, v in value.items()
    }


def cluster_address(text: str) -> str:
    """A Dask scheduler address such as ``tcp://host:8786`` (a bare ``host:port`` is TCP).

    Raises ValueError with a one-line reason."""
    text = text.strip()
    address = text if "://" in text else f"tcp://{text}"
    host, _, port = address.split("://", 1)[1].rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"expected a scheduler address such as 'tcp://HOST:8786', not {text!r}")
    return address


def as_cluster_address(value: object, where: Where) -> str:
    try:
        return cluster_address(as_str(value, where))
    except ValueError as exc:
        raise where.error(str(exc)) from None


def expand_path(text: str, directory: Path) -> str:
    expanded = os.path.expanduser(text)
    if os.path.isabs(expanded):
        return expanded
    return os.path.normpath(directory / expanded)


def token_arguments(token: ConfigToken, names: tuple[str, ...], where: Where) -> dict[str, Any]:
    """A call's arguments by name: positional ones in the order of ``names``, then keywords."""
    kind = token.kind
    if len(token.args) > len(names):
        raise where.error(f"{kind} takes {len(names)} values ({', '.join(names)})")
    arguments = dict(zip(names, token.args, strict=False))
    for name, given in token.kwargs.items():
        if name not in names:
            raise where.error(f"unknown {kind} argument {name!r}")
        if name in arguments:
            raise where.error(f"{kind}: {name} given twice")
        arguments[name] = given
    return arguments
