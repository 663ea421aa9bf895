"""The `TokenCounter` protocol and the cached base every counter builds on.

A count is additive by design: ``count_messages(ms, tools) == sum(count_message(m) for m in ms)
+ overhead(tools)``. Strategies rely on this to keep running totals instead of re-counting.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ctxlab.messages import Message, as_messages

# Texts shorter than this are cache keys themselves; longer ones are keyed by a 128-bit digest so
# the cache never pins large tool outputs in memory.
_INLINE_KEY_CHARS = 512
_CACHE_ENTRIES = 200_000


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens of text and of chat messages."""

    name: str

    def count(self, text: str) -> int:
        """Tokens in `text` alone."""
        ...

    def count_message(self, message: Message) -> int:
        """Tokens of one message including the counter's per-message overhead."""
        ...

    def overhead(self, tools: Sequence[Mapping[str, Any]] | None = None) -> int:
        """Fixed tokens of a request: reply priming plus tool definitions."""
        ...

    def count_messages(self, messages: Iterable[Message | Mapping[str, Any]],
                       tools: Sequence[Mapping[str, Any]] | None = None) -> int:
        """Tokens of a whole request."""
        ...


def content_key(text: str) -> str | bytes:
    """The cache key of a text: itself when short, else a digest of its UTF-8 bytes."""
    if len(text) < _INLINE_KEY_CHARS:
        return text
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class CachedCounter(ABC):
    """Base counter: subclasses define `_count_text`, and override the message hooks they need.

    Text counts are cached by content hash, so a text is tokenized once however many strategies,
    budgets and turns look at it (the cache is bounded and evicts the oldest half when full).
    """

    name = "base"
    exact = False

    def __init__(self) -> None:
        self._cache: dict[str | bytes, int] = {}
        self.hits = 0
        self.misses = 0

    @abstractmethod
    def _count_text(self, text: str) -> int:
        """Tokens in a non-empty text, uncached."""

    def count(self, text: str) -> int:
        if not text:
            return 0
        key = content_key(text)
        cached = self._cache.get(key)
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        if len(self._cache) >= _CACHE_ENTRIES:
            for old in list(self._cache)[: _CACHE_ENTRIES // 2]:
                del self._cache[old]
        value = self._cache[key] = self._count_text(text)
        return value

    def count_message(self, message: Message) -> int:
        return sum(self.count(part) for part in message.parts) + sum(
            self.count(c.name) + self.count(c.arguments) for c in message.tool_calls)

    def count_tools(self, tools: Sequence[Mapping[str, Any]] | None) -> int:
        """Tokens of the tool definitions (0 for estimators whose source system ignores them)."""
        return 0

    def overhead(self, tools: Sequence[Mapping[str, Any]] | None = None) -> int:
        return self.count_tools(tools)

    def count_messages(self, messages: Iterable[Message | Mapping[str, Any]],
                       tools: Sequence[Mapping[str, Any]] | None = None) -> int:
        return sum(self.count_message(m) for m in as_messages(messages)) + self.overhead(tools)

    def __repr__(self) -> str:
        return f"<counter {self.name}>"
