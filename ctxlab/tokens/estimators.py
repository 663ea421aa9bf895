"""The seeds' token estimators, exactly as their documents define them.

Each counts what its source system counts and nothing more: none of them counts tool
definitions, which is one reason estimator-driven strategies overflow real windows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ctxlab.messages import Message
from ctxlab.tokens.base import CachedCounter


def utf16_len(text: str) -> int:
    """JavaScript's ``string.length``: UTF-16 code units (astral characters count twice)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class Chars4(CachedCounter):
    """Seed 000 (Go): ``(runes + 3) / 4`` per message content.

    The Go message type has no tool calls; ctxlab extends the same rune count to a call's name and
    arguments, counted together with the content in the one message estimate.
    """

    name = "chars4"

    def _count_text(self, text: str) -> int:
        return (len(text) + 3) // 4

    def _count_message(self, message: Message) -> int:
        runes = sum(len(p) for p in message.parts) + sum(
            len(c.name) + len(c.arguments) for c in message.tool_calls)
        return (runes + 3) // 4


class Chars2(CachedCounter):
    """Seed 001 (Python): ``len(text) // 2`` per content block, +4 per message."""

    name = "chars2"
    per_message = 4

    def _count_text(self, text: str) -> int:
        return len(text) // 2

    def _count_message(self, message: Message) -> int:
        return self.per_message + super()._count_message(message)


class Chars3(CachedCounter):
    """Seed 003 (TypeScript): ``ceil(text.length / 3)``, tool calls counted as their JSON."""

    name = "chars3"

    def _count_text(self, text: str) -> int:
        return -(-utf16_len(text) // 3)

    def _count_message(self, message: Message) -> int:
        tokens = self.count(message.text)
        if message.tool_calls:
            # JSON.stringify: no spaces, non-ASCII kept as is.
            calls = json.dumps([c.to_openai() for c in message.tool_calls],
                               separators=(",", ":"), ensure_ascii=False)
            tokens += self.count(calls)
        return tokens


class AsciiCjk(CachedCounter):
    """Seed 004 (Electron): ``ceil(ascii / 4 + non_ascii)``, +10 per message, +50 per tool call."""

    name = "ascii_cjk"
    per_message = 10
    per_tool_call = 50

    def _count_text(self, text: str) -> int:
        ascii_chars = len(text) if text.isascii() else sum(1 for ch in text if ord(ch) <= 0x7F)
        return -(-ascii_chars // 4) + (len(text) - ascii_chars)

    def _count_message(self, message: Message) -> int:
        tokens = self.count(message.text) + self.per_message
        for call in message.tool_calls:
            tokens += self.per_tool_call + self.count(call.arguments)
        return tokens


class Bytes4(CachedCounter):
    """Seed 002 (Go GSSC): ``EstimatedCounter``, ``int(float64(len(text)) / c.CharsPerToken)`` with 4
    characters per token ("1 token ≈ 4 字符"). Go's ``len`` of a string counts its UTF-8 bytes, so a
    text costs ``floor(utf8_bytes / 4)``: a Chinese character (3 bytes) costs 3/4 of a token.

    The seed document gives ``Count`` only. A message follows the seed's upstream code
    (ahhsitt/helloagents-go, pkg/context/token.go at 594871dc, ``EstimatedCounter.CountMessages``):
    4 per message + its role + its content (+ its name + 1), and 3 to prime the reply. Its message
    type has no tool calls; ctxlab adds a call's name and arguments, counted as texts.
    """

    name = "bytes4"
    per_message = 4
    reply_priming = 3

    def _count_text(self, text: str) -> int:
        return len(text.encode("utf-8", "surrogatepass")) // 4

    def _count_message(self, message: Message) -> int:
        tokens = self.per_message + self.count(message.role) + self.count(message.text)
        if message.name:
            tokens += self.count(message.name) + 1
        return tokens + sum(self.count(c.name) + self.count(c.arguments) for c in message.tool_calls)

    def overhead(self, tools: Sequence[Mapping[str, Any]] | None = None) -> int:
        return self.reply_priming + self.count_tools(tools)
