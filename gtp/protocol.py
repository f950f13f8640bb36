"""GTP version 2 framing, sans I/O: bytes in, Command/Response objects out, and back.

Engine side: :class:`CommandReader` applies the spec's preprocessing (§3.1:
control characters dropped, ``#`` comments cut, HT made a space, empty lines
ignored), splits off the optional numeric id and yields one item per non-empty
line, so that a server can answer every such line exactly once.
:func:`format_response` writes ``=id result`` / ``?id message`` with the closing
blank line and never a blank line inside the result.

Controller side: :func:`format_command` writes a command line from well-formed
words; :class:`ResponseReader` turns the engine's bytes into :class:`Response`
objects (CR and control characters dropped, blank lines between responses
ignored, ``=``/``?`` with or without id, multi-line results) and refuses floods
with a cap on the line length and the response size.

Nothing here reads or writes; ``gtp.client`` and ``gtp.server`` move the bytes.
"""

from __future__ import annotations

from typing import Final

import attrs

from gtp.errors import ProtocolError

MAX_ID: Final = 2**31 - 1
# Engine side: a command line longer than this is answered once with a failure.
MAX_COMMAND_LINE_BYTES: Final = 64 * 1024
# Controller side: defaults for the flood caps (showboard on 25x25 is ~2 KiB).
MAX_RESPONSE_LINE_BYTES: Final = 1024 * 1024
MAX_RESPONSE_BYTES: Final = 8 * 1024 * 1024

# §2.2 / §3.1 step 1 and 3: delete control characters other than HT and LF,
# turn HT into a space.  One C-level translate does both.
_CONTROL_DELETE: Final = bytes(b for b in range(32) if b not in (9, 10)) + b"\x7f"
_HT_TO_SPACE: Final = bytes.maketrans(b"\t", b" ")


def clean_bytes(data: bytes) -> bytes:
    """§3.1 steps 1 and 3, the part of preprocessing that applies to both sides."""
    return data.translate(_HT_TO_SPACE, _CONTROL_DELETE)


@attrs.frozen(slots=True)
class Command:
    """One GTP command: optional id, case-sensitive name, argument words."""

    id: int | None
    name: str
    args: tuple[str, ...] = ()

    def to_line(self) -> bytes:
        return format_command(self.name, self.args, self.id)


@attrs.frozen(slots=True)
class BadCommandLine:
    """A non-empty line that is not a usable command; it still gets one failure."""

    id: int | None
    message: str


@attrs.frozen(slots=True)
class Response:
    """One GTP response: success or failure, echoed id, result or message text."""

    ok: bool
    id: int | None
    text: str


# --------------------------------------------------------------------------
# Engine side


def parse_command_line(line: str) -> Command | BadCommandLine | None:
    """Parse one line that already went through :func:`clean_bytes`.

    Returns None for a line that is empty after comment removal (no response is
    due).  A leading unsigned integer is the id (clipped to 2**31-1); a leading
    negative integer is dropped, so it is never echoed.
    """
    hash_at = line.find("#")
    if hash_at >= 0:
        line = line[:hash_at]
    words = line.split(" ")
    words = [w for w in words if w]
    if not words:
        return None
    first = words[0]
    command_id: int | None = None
    if first.isascii() and first.isdigit():
        command_id = min(int(first), MAX_ID)
        del words[0]
    elif first[0] == "-" and len(first) > 1 and first[1:].isascii() and first[1:].isdigit():
        del words[0]
    if not words:
        return BadCommandLine(command_id, "no command name")
    return Command(command_id, words[0], tuple(words[1:]))


class CommandReader:
    """Splits an engine's input into commands; one item per non-empty line."""

    def __init__(self, max_line_bytes: int = MAX_COMMAND_LINE_BYTES) -> None:
        self._buffer = bytearray()
        self._max_line = max_line_bytes
        self._discarding = False  # inside an over-long line, waiting for its end
        self._overlong_id: int | None = None

    def feed(self, data: bytes) -> list[Command | BadCommandLine]:
        """Add bytes; return the items for every line completed by them."""
        items: list[Command | BadCommandLine] = []
        buffer = self._buffer
        buffer += data
        start = 0
        while True:
            newline = buffer.find(b"\n", start)
            if newline < 0:
                break
            raw = bytes(buffer[start:newline])
            start = newline + 1
            if self._discarding:
                self._discarding = False
                items.append(BadCommandLine(self._overlong_id, "command line too long"))
                continue
            item = self._parse(raw)
            if item is not None:
                items.append(item)
        del buffer[:start]
        if len(buffer) > self._max_line:
            if not self._discarding:
                self._discarding = True
                head = self._parse(bytes(buffer[:64]))
                self._overlong_id = head.id if head is not None else None
            buffer.clear()
        return items

    def close(self) -> list[Command | BadCommandLine]:
        """End of input: a last line without its newline is still a command."""
        if self._discarding:
            self._discarding = False
            self._buffer.clear()
            return [BadCommandLine(self._overlong_id, "command line too long")]
        if not self._buffer:
            return []
        return self.feed(b"\n")

    @staticmethod
    def _parse(raw: bytes) -> Command | BadCommandLine | None:
        return parse_command_line(clean_bytes(raw).decode("utf-8", "replace"))


def format_response(ok: bool, text: str, command_id: int | None = None) -> bytes:
    """``=id result\\n\\n`` or ``?id message\\n\\n``, never a blank line inside."""
    status = "=" if ok else "?"
    if command_id is not None:
        status += str(command_id)
    text = text.replace("\r", "").replace("\t", " ").strip("\n")
    if "\n" in text:
        # A blank line would end the response early: keep the line, mark it.
        text = "\n".join(line if line.strip() else "." for line in text.split("\n"))
    if text:
        return f"{status} {text}\n\n".encode()
    return f"{status}\n\n".encode()


# --------------------------------------------------------------------------
# Controller side


def is_well_formed_word(word: str) -> bool:
    """True for a word that can be sent as one GTP argument unchanged."""
    return bool(word) and word.isprintable() and not any(c.isspace() for c in word) and "#" not in word


def format_command(name: str, args: tuple[str, ...] | list[str] = (), command_id: int | None = None) -> bytes:
    """One command line; raises ValueError for a word that GTP cannot carry."""
    for word in (name, *args):
        if not is_well_formed_word(word):
            raise ValueError(f"not a well-formed GTP word: {word!r}")
    parts = [name, *args] if command_id is None else [str(command_id), name, *args]
    return (" ".join(parts) + "\n").encode()


class ResponseReader:
    """Turns the bytes an engine writes into responses.

    Raises :class:`ProtocolError` for anything that is not a response (a banner,
    a prompt, a comment line, ``! panic``, GMP) and when a line or a response
    exceeds its cap, so a flooding engine cannot exhaust memory.
    """

    def __init__(
        self,
        max_line_bytes: int = MAX_RESPONSE_LINE_BYTES,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self._buffer = bytearray()
        self._max_line = max_line_bytes
        self._max_response = max_response_bytes
        self._seen_data = False

    @property
    def pending(self) -> bool:
        """True when part of a response has arrived (non-blank bytes are waiting)."""
        return bool(self._buffer.strip())

    def feed(self, data: bytes) -> None:
        if not self._seen_data and data:
            self._seen_data = True
            if data[:1] == b"\x01":
                raise ProtocolError("engine is speaking GMP, not GTP")
        self._buffer += clean_bytes(data)
        if len(self._buffer) > self._max_response:
            # The buffer may hold several complete responses; only complain when
            # the first one alone is too big.
            self._check_caps()

    def next_response(self) -> Response | None:
        """The next complete response, or None until more bytes arrive."""
        buffer = self._buffer
        # Blank lines between responses are ignored (§2.10).
        start = 0
        while True:
            newline = buffer.find(b"\n", start)
            if newline < 0:
                break
            if buffer[start:newline].strip():
                break
            start = newline + 1
        if start:
            del buffer[:start]
        if not buffer:
            return None
        status = buffer[0]
        if status != 61 and status != 63:  # '=' and '?'
            if buffer[:1].isspace():
                stripped = buffer.lstrip(b" ")
                if not stripped or stripped[:1] == b"\n":
                    return None
                status_byte = stripped[:1]
            else:
                status_byte = buffer[:1]
            raise ProtocolError(
                f"engine isn't speaking GTP: response starts with {bytes(status_byte).decode('latin-1')!r}"
                f" ({_snippet(buffer)})"
            )
        end = buffer.find(b"\n\n")
        if end < 0:
            self._check_caps()
            return None
        body = buffer[1:end].decode("utf-8", "replace")
        del buffer[: end + 2]
        return _parse_response_body(status == 61, body)

    def _check_caps(self) -> None:
        buffer = self._buffer
        end = buffer.find(b"\n\n")
        size = len(buffer) if end < 0 else end
        if size > self._max_response:
            raise ProtocolError(f"response exceeds {self._max_response} bytes")
        last_newline = buffer.rfind(b"\n", 0, size)
        if size - last_newline - 1 > self._max_line:
            raise ProtocolError(f"response line exceeds {self._max_line} bytes")


def _parse_response_body(ok: bool, body: str) -> Response:
    digits = 0
    while digits < len(body) and body[digits] in "0123456789":
        digits += 1
    response_id = int(body[:digits]) if digits else None
    text = body[digits:]
    if text and text[0] not in " \n":
        raise ProtocolError(f"malformed response: {('=' if ok else '?') + body[:40]!r}")
    return Response(ok, response_id, text.strip(" \n") if "\n" not in text else _strip_multiline(text))


def _strip_multiline(text: str) -> str:
    lines = text.split("\n")
    lines[0] = lines[0].lstrip(" ")
    if not lines[0]:
        del lines[0]
    return "\n".join(line.rstrip(" ") for line in lines)


def _snippet(buffer: bytearray) -> str:
    line = bytes(buffer[:60]).split(b"\n", 1)[0]
    return repr(line.decode("utf-8", "replace"))
