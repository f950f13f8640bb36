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
    # Only SPACE separates words (HT is already a space); str.split() would also
    # split at non-ASCII spaces, so it is used only on ASCII text.
    words = line.split() if line.isascii() else [w for w in line.split(" ") if w]
    if not words:
        return None
    first = words[0]
    command_id: int | None = None
    if first.isascii() and first.isdigit():
        command_id = _clip_id(first)
        del words[0]
    elif first[0] == "-" and len(first) > 1 and first[1:].isascii() and first[1:].isdigit():
        del words[0]
    if not words:
        return BadCommandLine(command_id, "no command name")
    return Command(command_id, words[0], tuple(words[1:]))


def _clip_id(digits: str) -> int:
    """An id made of ASCII digits, clipped to 2**31-1 (never int() on huge strings)."""
    return MAX_ID if len(digits) > 10 else min(int(digits), MAX_ID)


# How much of an over-long line is parsed to find its id.
_OVERLONG_HEAD_BYTES: Final = 64


class CommandReader:
    """Splits an engine's input into commands; one item per non-empty line.

    The items do not depend on how the input is split into chunks.  A line longer
    than ``max_line_bytes`` (not counting its newline) is never buffered whole:
    it yields one :class:`BadCommandLine` (with the id from its start) if it is
    non-empty after preprocessing, and nothing if it is blank or a comment.
    """

    def __init__(self, max_line_bytes: int = MAX_COMMAND_LINE_BYTES) -> None:
        self._buffer = bytearray()
        self._max_line = max_line_bytes
        self._head_bytes = min(_OVERLONG_HEAD_BYTES, max_line_bytes + 1)
        # State of the over-long line being skipped, if any.
        self._discarding = False
        self._overlong_id: int | None = None
        self._overlong_content = False  # something other than spaces before any '#'
        self._overlong_comment = False  # a '#' was seen: the rest of the line is ignored

    def feed(self, data: bytes) -> list[Command | BadCommandLine]:
        """Add bytes; return the items for every line completed by them."""
        items: list[Command | BadCommandLine] = []
        if (
            not self._buffer
            and not self._discarding
            and data.find(b"\n") == len(data) - 1
            and len(data) <= self._max_line
        ):
            # The common case: exactly one whole line.
            item = self._parse(data[:-1])
            if item is not None:
                items.append(item)
            return items
        if self._discarding:
            newline = data.find(b"\n")
            if newline < 0:
                self._scan_overlong(data)
                return items
            self._scan_overlong(data[:newline])
            self._finish_overlong(items)
            data = data[newline + 1 :]
        buffer = self._buffer
        buffer += data
        max_line = self._max_line
        start = 0
        while True:
            newline = buffer.find(b"\n", start)
            if newline < 0:
                break
            if newline - start > max_line:
                self._start_overlong(bytes(buffer[start:newline]))
                self._finish_overlong(items)
            else:
                item = self._parse(bytes(buffer[start:newline]))
                if item is not None:
                    items.append(item)
            start = newline + 1
        if start:
            del buffer[:start]
        if len(buffer) > max_line:
            self._start_overlong(bytes(buffer))
            buffer.clear()
        return items

    def close(self) -> list[Command | BadCommandLine]:
        """End of input: a last line without its newline is still a command."""
        if self._discarding:
            items: list[Command | BadCommandLine] = []
            self._finish_overlong(items)
            return items
        if not self._buffer:
            return []
        return self.feed(b"\n")

    def _start_overlong(self, raw: bytes) -> None:
        head = self._parse(raw[: self._head_bytes])
        self._discarding = True
        self._overlong_id = head.id if head is not None else None
        self._overlong_content = False
        self._overlong_comment = False
        self._scan_overlong(raw)

    def _scan_overlong(self, segment: bytes) -> None:
        if self._overlong_content or self._overlong_comment:
            return
        cleaned = clean_bytes(segment)
        hash_at = cleaned.find(b"#")
        if hash_at >= 0:
            self._overlong_comment = True
            cleaned = cleaned[:hash_at]
        if cleaned.strip(b" "):
            self._overlong_content = True

    def _finish_overlong(self, items: list[Command | BadCommandLine]) -> None:
        self._discarding = False
        if self._overlong_content:
            items.append(BadCommandLine(self._overlong_id, "command line too long"))

    @staticmethod
    def _parse(raw: bytes) -> Command | BadCommandLine | None:
        return parse_command_line(clean_bytes(raw).decode("utf-8", "replace"))


def format_response(ok: bool, text: str, command_id: int | None = None) -> bytes:
    """``=id result\\n\\n`` or ``?id message\\n\\n``, never a blank line inside.

    A result that starts with a newline (a board diagram, say) keeps it: the
    status goes on a line of its own and the lines that follow keep their
    leading spaces.
    """
    status = "=" if ok else "?"
    if command_id is not None:
        status += str(command_id)
    text = text.replace("\r", "").replace("\t", " ").rstrip()
    separator = " "
    if text.startswith("\n"):
        separator = "\n"
        text = text.lstrip("\n")
    if "\n" in text:
        # A blank line would end the response early: keep the line, mark it.
        text = "\n".join(line if line.strip() else "." for line in text.split("\n"))
    if text:
        return f"{status}{separator}{text}\n\n".encode()
    return f"{status}\n\n".encode()


# --------------------------------------------------------------------------
# Controller side


def is_well_formed_word(word: str) -> bool:
    """True for a word that can be sent as one GTP argument unchanged."""
    # str.isprintable() is False for every whitespace character except the
    # ASCII space (they are all in the Cc, Zs, Zl or Zp categories), so
    # checking for " " alone is exact, and all three tests run in C.
    return bool(word) and word.isprintable() and " " not in word and "#" not in word


def format_command(
    name: str, args: tuple[str, ...] | list[str] = (), command_id: int | None = None
) -> bytes:
    """One command line; raises ValueError for a word that GTP cannot carry."""
    text = " ".join((name, *args))
    # Checked on the joined line (the controller's hot path): printable and
    # free of '#' as a whole, no empty word, and exactly one space per gap,
    # so that no word contains a space.  The per-word check finds the culprit.
    if not (
        text.isprintable()
        and "#" not in text
        and text.count(" ") == len(args)
        and name
        and "" not in args
    ):
        for word in (name, *args):
            if not is_well_formed_word(word):
                raise ValueError(f"not a well-formed GTP word: {word!r}")
    if command_id is not None:
        text = f"{command_id} {text}"
    return (text + "\n").encode()


class ResponseReader:
    """Turns the bytes an engine writes into responses.

    Raises :class:`ProtocolError` for anything that is not a response (a banner,
    a prompt, a comment line, ``! panic``, GMP) and when a line or a response
    exceeds its cap, so a flooding engine cannot exhaust memory.  The caps apply
    however the bytes are chunked; the work per byte stays linear.
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
        # Progress through the first (incomplete) response in the buffer:
        # bytes before _scan_pos hold no response end, _line_start is the start
        # of the first line whose length is not yet known to be within the cap.
        self._scan_pos = 0
        self._line_start = 0
        self._fast_limit = min(max_line_bytes, max_response_bytes)

    @property
    def pending(self) -> bool:
        """True when part of a response has arrived (non-blank bytes are waiting)."""
        buffer = self._buffer
        return bool(buffer) and not buffer.isspace()

    def feed(self, data: bytes) -> None:
        if not self._seen_data and data:
            self._seen_data = True
            if data[:1] == b"\x01":
                raise ProtocolError("engine is speaking GMP, not GTP")
        self._buffer += data.translate(_HT_TO_SPACE, _CONTROL_DELETE)  # clean_bytes, inlined
        if len(self._buffer) > self._max_response:
            # The buffer may hold several complete responses; only complain when
            # the first one alone is too big (or is not a response at all).
            self._locate_first()

    def receive(self, data: bytes) -> Response | None:
        """:meth:`feed`, then :meth:`next_response`, in one call.

        The usual case, a chunk that is exactly one whole response arriving
        when nothing is buffered (a ``= D4`` answer read in one go), is
        parsed from the chunk itself: the buffer is never touched.
        """
        if self._seen_data and not self._buffer and data:
            cleaned = data.translate(_HT_TO_SPACE, _CONTROL_DELETE)  # clean_bytes, inlined
            # Within both caps, and its only blank line the one that ends it.
            end = len(cleaned) - 2
            if (
                0 < end <= self._fast_limit
                and (cleaned[0] == 61 or cleaned[0] == 63)  # '=', '?'
                and cleaned.find(b"\n\n") == end
            ):
                return _parse_response_body(
                    cleaned[0] == 61, cleaned[1:end].decode("utf-8", "replace")
                )
        self.feed(data)
        return self.next_response()

    def next_response(self) -> Response | None:
        """The next complete response, or None until more bytes arrive."""
        buffer = self._buffer
        if not buffer:
            return None  # what _locate_first concludes for an empty buffer
        # The usual case, one whole response from its first byte: what
        # _locate_first would conclude, without its scan for blank lines.  A
        # response no longer than both caps cannot break either of them.
        if (buffer[0] == 61 or buffer[0] == 63) and not self._scan_pos:  # '=', '?'
            end = buffer.find(b"\n\n")
            if 0 <= end <= self._fast_limit:
                status = buffer[0]
                body = buffer[1:end].decode("utf-8", "replace")
                del buffer[: end + 2]
                return _parse_response_body(status == 61, body)
        end = self._locate_first()
        if end < 0:
            return None
        status = buffer[0]
        body = buffer[1:end].decode("utf-8", "replace")
        self._consume(end + 2)
        return _parse_response_body(status == 61, body)

    def _consume(self, count: int) -> None:
        del self._buffer[:count]
        self._scan_pos = 0
        self._line_start = 0

    def _locate_first(self) -> int:
        """Drop blank lines, check the first response; its end offset or -1."""
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
            self._consume(start)
        if not buffer:
            return -1
        status = buffer[0]
        if status != 61 and status != 63:  # '=' and '?'
            stripped = buffer.lstrip(b" ")
            if not stripped or stripped[:1] == b"\n":
                # Only spaces so far: a blank line still arriving, unless it floods.
                if len(buffer) > self._max_line:
                    raise ProtocolError(f"response line exceeds {self._max_line} bytes")
                return -1
            raise ProtocolError(
                "engine isn't speaking GTP: response starts with "
                f"{bytes(stripped[:1]).decode('latin-1')!r} ({_snippet(buffer)})"
            )
        end = buffer.find(b"\n\n", max(self._scan_pos - 1, 0))
        size = len(buffer) if end < 0 else end
        if size > self._max_response:
            raise ProtocolError(f"response exceeds {self._max_response} bytes")
        if size - self._line_start > self._max_line:
            position = self._line_start
            while True:
                newline = buffer.find(b"\n", position, size)
                line_end = size if newline < 0 else newline
                if line_end - position > self._max_line:
                    raise ProtocolError(f"response line exceeds {self._max_line} bytes")
                if newline < 0:
                    break
                position = newline + 1
            self._line_start = position
        if end < 0:
            self._scan_pos = len(buffer)
        return end


def _parse_response_body(ok: bool, body: str) -> Response:
    text = body.lstrip("0123456789")  # the id, if any, in one C call
    digits = len(body) - len(text)
    response_id = None
    if digits:
        # Nine digits cannot exceed MAX_ID: only longer ids need clipping.
        response_id = int(body[:digits]) if digits < 10 else _clip_id(body[:digits])
    if text and text[0] not in " \n":
        raise ProtocolError(f"malformed response: {('=' if ok else '?') + body[:40]!r}")
    if "\n" in text:
        return Response(ok, response_id, _strip_multiline(text))
    return Response(ok, response_id, text.strip(" "))


def _strip_multiline(text: str) -> str:
    lines = text.split("\n")
    lines[0] = lines[0].lstrip(" ")
    if not lines[0]:
        del lines[0]
    return "\n".join(line.rstrip(" ") for line in lines)


def _snippet(buffer: bytearray) -> str:
    line = bytes(buffer[:60]).split(b"\n", 1)[0]
    return repr(line.decode("utf-8", "replace"))
