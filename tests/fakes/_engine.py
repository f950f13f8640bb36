"""The shared loop of the fake engines: a plain blocking GTP engine on stdio.

A fake passes handlers for the commands it misbehaves on; a handler returns the
bytes to write (or None to write nothing) and may never return at all.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping

from gtp.protocol import BadCommandLine, Command, CommandReader, format_response

Handler = Callable[[Command], bytes | None]

KNOWN = (
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "echo",
    "echo_err",
)


def ok(command: Command, text: str = "") -> bytes:
    return format_response(True, text, command.id)


def standard_answer(command: Command) -> bytes:
    fixed = {
        "protocol_version": "2",
        "name": "fake",
        "version": "1.0",
        "genmove": "pass",
        "list_commands": "\n".join(KNOWN),
    }
    if command.name in fixed:
        return ok(command, fixed[command.name])
    if command.name == "known_command":
        return ok(command, "true" if command.args and command.args[0] in KNOWN else "false")
    if command.name in ("echo", "echo_err"):
        if command.name == "echo_err":
            print(" ".join(command.args), file=sys.stderr, flush=True)
        return ok(command, " ".join(command.args))
    if command.name in KNOWN:
        return ok(command)
    return format_response(False, "unknown command", command.id)


def serve(special: Mapping[str, Handler] | None = None) -> None:
    """Answer commands from stdin until ``quit`` or EOF."""
    special = special or {}
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    reader = CommandReader()
    while True:
        line = stdin.readline()
        for item in reader.feed(line) if line else reader.close():
            if isinstance(item, BadCommandLine):
                data: bytes | None = format_response(False, item.message, item.id)
            elif item.name in special:
                data = special[item.name](item)
            else:
                data = standard_answer(item)
            if data:
                stdout.write(data)
                stdout.flush()
            if isinstance(item, Command) and item.name == "quit" and "quit" not in special:
                return
        if not line:
            return
