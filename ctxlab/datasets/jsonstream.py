"""Streaming decoder for JSON files holding one record, several records, or an array of records.

The file is read in chunks and decoded record by record with `json.JSONDecoder.raw_decode`, so a
large array never sits in memory whole, a truncated array still yields every complete record, and
each record carries the line where it starts. Bytes that are not UTF-8 are decoded with
``surrogateescape`` and reported per record, so one bad record does not hide the rest.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import IO, Any, NamedTuple

_CHUNK = 1 << 22
# A decode error this close to the end of the buffer may only mean the record continues in the
# next chunk (a cut-off number, literal or key); one further away is a real syntax error.
_CUT_SLACK = 64
_KEEP_INDENT = 256
_NON_SPACE = re.compile(r"[^ \t\r\n]")
_ESCAPED_BYTE = re.compile(r"[\udc80-\udcff]")
_DECODER = json.JSONDecoder()


class JsonItem(NamedTuple):
    """One top-level record: the line it starts on, and its value or why it could not be read."""

    line: int
    value: Any = None
    error: str | None = None


class _Buffer:
    """The decoded text of a binary stream, read on demand, and the line of the read position."""

    def __init__(self, stream: IO[bytes]):
        self._stream = stream
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self.text, self.pos, self.line, self.eof = "", 0, 1, False

    def more(self) -> bool:
        """Read the next chunk (dropping consumed text); False once the stream is exhausted."""
        if self.eof:
            return False
        data = self._stream.read(max(_CHUNK, len(self.text) - self.pos))  # doubling: big records stay linear
        # Keep the current line's indentation: resynchronising after a broken record needs it.
        keep = self.text.rfind("\n", 0, self.pos) + 1
        keep = keep if self.pos - keep <= _KEEP_INDENT else self.pos
        self.text = self.text[keep:] + self._decoder.decode(data, final=not data)
        self.pos, self.eof = self.pos - keep, not data
        return True

    def advance(self, to: int) -> None:
        self.line += self.text.count("\n", self.pos, to)
        self.pos = to

    def peek(self) -> str:
        """Skip whitespace and return the next character ('' at the end of the stream)."""
        while True:
            found = _NON_SPACE.search(self.text, self.pos)
            if found:
                self.advance(found.start())
                return self.text[self.pos]
            self.advance(len(self.text))
            if not self.more():
                return ""

    def where(self, pos: int) -> str:
        """A position in the buffer as ``line L, column C``."""
        line = self.line + self.text.count("\n", self.pos, pos)
        column = pos - self.text.rfind("\n", 0, pos)
        return f"line {line}, column {column}"


def iter_json_records(stream: IO[bytes]) -> Iterator[JsonItem]:
    """Yield each top-level record of a JSON document: the elements of an array, or each value.

    Errors are items, not exceptions: malformed JSON, invalid UTF-8, a truncated end. After a
    malformed record the decoder resumes at the next line that opens a record at the same
    indentation; when there is none, the error says the rest of the file was not read.
    """
    buf = _Buffer(stream)
    first = buf.peek()
    if first == "\ufeff":  # byte order mark
        buf.advance(buf.pos + 1)
        first = buf.peek()
    in_array = first == "["
    if in_array:
        buf.advance(buf.pos + 1)
    expect_value = True
    while True:
        char = buf.peek()
        if char == "" or (in_array and char == "]"):
            if char == "" and in_array:
                yield JsonItem(buf.line, error="truncated JSON: the array is never closed")
            elif char == "]":
                yield from _trailing(buf)
            return
        if in_array and char == ",":
            if expect_value:
                yield JsonItem(buf.line, error="malformed JSON: a ',' where a record should be")
            buf.advance(buf.pos + 1)
            expect_value = True
            continue
        if in_array and not expect_value:
            yield JsonItem(buf.line, error="malformed JSON: missing ',' between records")
        item, after = _decode(buf)
        yield item
        if after is None:
            return
        expect_value = after == "record"


def _decode(buf: _Buffer) -> tuple[JsonItem, str | None]:
    """Decode the record at the read position.

    Returns the item and what follows it: ``"separator"`` after a whole record, ``"record"`` when
    a broken one was skipped up to the start of the next, None when nothing more can be read.
    """
    line = buf.line
    while True:
        try:
            value, end = _DECODER.raw_decode(buf.text, buf.pos)
        except json.JSONDecodeError as exc:
            at_end = exc.msg.startswith("Unterminated string") or exc.pos >= len(buf.text.rstrip())
            if (at_end or exc.pos >= len(buf.text) - _CUT_SLACK) and buf.more():
                continue
            if at_end:
                return JsonItem(line, error="truncated JSON: the record starting here is incomplete"), None
            return _resync(buf, line, f"malformed JSON: {exc.msg} ({buf.where(exc.pos)})", exc.pos)
        if end == len(buf.text) and buf.more():  # a bare scalar may go on in the next chunk
            continue
        raw = buf.text[buf.pos:end]
        buf.advance(end)
        bad = None if raw.isascii() else _ESCAPED_BYTE.search(raw)
        if bad:
            bad_line = line + raw.count("\n", 0, bad.start())
            byte = ord(bad.group()) - 0xDC00
            return JsonItem(line, error=f"invalid UTF-8 (byte 0x{byte:02x} on line {bad_line})"), "separator"
        return JsonItem(line, value), "separator"


def _resync(buf: _Buffer, line: int, reason: str, error_pos: int) -> tuple[JsonItem, str | None]:
    """Skip to the next line opening a record at the indentation of the broken one."""
    line_start = buf.text.rfind("\n", 0, buf.pos) + 1
    indent = buf.text[line_start:buf.pos]
    marker = "\n" + (indent if not indent.strip() else "") + "{"
    offset = error_pos - buf.pos
    while True:
        found = buf.text.find(marker, buf.pos + offset)
        if found >= 0:
            buf.advance(found + 1)
            return JsonItem(line, error=f"{reason}; resumed at line {buf.line}"), "record"
        offset = max(0, len(buf.text) - buf.pos - len(marker))
        if not buf.more():
            return JsonItem(line, error=f"{reason}; the rest of the file was not read"), None


def _trailing(buf: _Buffer) -> Iterator[JsonItem]:
    buf.advance(buf.pos + 1)
    if buf.peek():
        yield JsonItem(buf.line, error="malformed JSON: data after the closing ']'")
