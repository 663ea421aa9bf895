"""The `TokenCounter` protocol and the cached base every counter builds on.

A count is additive by design: ``count_messages(ms, tools) == sum(count_message(m) for m in ms)
+ overhead(tools)``. Strategies rely on this to keep running totals instead of re-counting.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ctxlab import caches
from ctxlab.messages import Message, as_messages

# Texts shorter than this are cache keys themselves; longer ones are keyed by a 128-bit digest so
# the cache never pins large tool outputs in memory.
_INLINE_KEY_CHARS = 512
_CACHE_ENTRIES = 200_000
# Messages are cached whole too: hashing a frozen Message reuses the hash its content string
# caches, so a repeated message costs a dict lookup instead of a digest of its text.
_MESSAGE_CACHE_ENTRIES = 50_000
_RECENT_LISTS = 4  # `counts_of`: a call's input and output under each of a strategy's counters


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


def message_tokens(counter: TokenCounter, messages: Iterable[Message]) -> int:
    """``sum(counter.count_message(m) for m in messages)``, without the request overhead (a replay sums
    every message sent at every call, several times per call: see `message_counts`)."""
    return sum(message_counts(counter, messages if isinstance(messages, Sequence) else tuple(messages)))


def message_counts(counter: TokenCounter, messages: Sequence[Message]) -> list[int]:
    """``[counter.count_message(m) for m in messages]``, by cache lookups when every message is cached.

    Every call of a per-turn replay counts each message it sends (a request's per-message tokens);
    after a session's first call they are all cached, and one `map` of dict lookups is several
    times cheaper than a method call per message.
    """
    if isinstance(counter, CachedCounter):
        return counter.counts_of(messages)
    return list(map(counter.count_message, messages))


class CachedCounter(ABC):
    """Base counter: subclasses define `_count_text` and, where their message format differs,
    `_count_message`; `count` and `count_message` add the caching.

    Text counts are cached by content hash, so a text is tokenized once however many strategies,
    windows and turns look at it; message counts are cached per message. Both caches are bounded
    and evict their oldest half when full.
    """

    name = "base"
    exact = False

    def __init__(self) -> None:
        self._cache: dict[str | bytes, int] = {}
        self._message_cache: dict[Message, int] = {}
        self._tools_cache: dict[tuple[int, ...], tuple[Sequence[Mapping[str, Any]], int]] = {}
        self._recent: list[tuple[Sequence[Message], list[int]]] = []  # the last lists `counts_of` counted
        self.hits = 0
        self.misses = 0
        caches.owner(self)

    def forget(self) -> None:
        """Empty the caches (`ctxlab.caches.forget`: a replay worker moving to another conversation)."""
        self._cache.clear()
        self._message_cache.clear()
        self._tools_cache.clear()
        self._recent.clear()

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
        _make_room(self._cache, _CACHE_ENTRIES)
        value = self._cache[key] = self._count_text(text)
        return value

    def count_message(self, message: Message) -> int:
        cached = self._message_cache.get(message)
        if cached is None:
            _make_message_room(self._message_cache, _MESSAGE_CACHE_ENTRIES)
            cached = self._message_cache[message] = self._count_message(message)
        return cached

    def counts_of(self, messages: Sequence[Message]) -> list[int]:
        """``[self.count_message(m) for m in messages]`` (a new list).

        A per-turn replay counts at every call a context that is mostly the one before with a few
        messages after it (the history up to the call; the previous output and what came since):
        a list that begins with one of the last few counted is counted from where that one ends,
        the rest by cache lookups. The prefix is checked by identity first, in C, so this never
        hashes the messages it already counted.
        """
        start, counts = 0, []
        for seen, known in reversed(self._recent if isinstance(messages, tuple) else ()):
            n = len(seen)
            if start < n <= len(messages) and messages[:n] == seen:
                start, counts = n, known
                break
        rest = messages[start:] if start else messages
        try:
            more = list(map(self._message_cache.__getitem__, rest))
        except KeyError:
            more = list(map(self.count_message, rest))
        out = counts + more if start else more
        if isinstance(messages, tuple):  # a list could change after it was counted
            if len(self._recent) >= _RECENT_LISTS:
                del self._recent[0]
            self._recent.append((messages, out))
            return list(out)
        return out

    def remember(self, message: Message, tokens: int) -> None:
        """Take `tokens` as the count of `message`: a count worked out elsewhere that must equal
        `count_message`'s (gssc sums its new prompt from pieces it counted, exactly, while fitting
        it; counting the whole prompt again was a tenth of a knob change)."""
        _make_message_room(self._message_cache, _MESSAGE_CACHE_ENTRIES)
        self._message_cache[message] = tokens

    def _count_message(self, message: Message) -> int:
        """Tokens of one message, uncached: its text parts plus tool-call names and arguments."""
        return sum(self.count(part) for part in message.parts) + sum(
            self.count(c.name) + self.count(c.arguments) for c in message.tool_calls)

    def count_tools(self, tools: Sequence[Mapping[str, Any]] | None) -> int:
        """Tokens of the tool definitions, cached per set of definition objects.

        Tool definitions are treated as immutable: a replay passes the same definitions with every
        strategy, window and turn, and counting their schemas each time cost more than the rest.
        """
        if not tools:
            return 0
        key = tuple(map(id, tools))
        hit = self._tools_cache.get(key)
        if hit is None:
            _make_room(self._tools_cache, 1024)
            # Holding the definitions keeps their ids from being reused by other objects.
            hit = self._tools_cache[key] = (tuple(tools), self._count_tools(tools))
        return hit[1]

    def _count_tools(self, tools: Sequence[Mapping[str, Any]]) -> int:
        """Tokens of the tool definitions, uncached (0: the seeds' estimators ignore them)."""
        return 0

    def overhead(self, tools: Sequence[Mapping[str, Any]] | None = None) -> int:
        return self.count_tools(tools)

    def count_messages(self, messages: Iterable[Message | Mapping[str, Any]],
                       tools: Sequence[Mapping[str, Any]] | None = None) -> int:
        return sum(self.count_message(m) for m in as_messages(messages)) + self.overhead(tools)

    def __repr__(self) -> str:
        return f"<counter {self.name}>"


def _make_message_room(cache: dict[Message, int], limit: int) -> None:
    """Evict half of a full message cache, the messages strategies made (marked) first, oldest
    first: the originals are what every setting of a live tuner counts again, while the cut copies
    and summaries of one setting pile up behind them (a long Tuning page evicted its sessions'
    originals and counted them again)."""
    if len(cache) >= limit:
        drop = [m for m in cache if m.mark is not None][: limit // 2]
        if len(drop) < limit // 2:
            drop += [m for m in cache if m.mark is None][: limit // 2 - len(drop)]
        for m in drop:
            del cache[m]


def _make_room(cache: dict, limit: int) -> None:
    """Evict the oldest half of a full cache (dicts keep insertion order)."""
    if len(cache) >= limit:
        for old in list(cache)[: limit // 2]:
            del cache[old]
