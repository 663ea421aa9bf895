"""Process-wide caches that one conversation fills and the next one never reads.

Counters, fact extraction, the summarizers and the measures cache their work per message or per
text, so every policy, window and call of a conversation reuses it. A replay worker then moves on
to a conversation whose messages are all new: what the last one cached only holds memory (with 13
counters each keeping up to 50,000 messages and 200,000 texts, a worker grew past 1.5 GB on a
user's history). Every such cache registers here, and the replay worker calls `forget` once a
conversation's rows are made. The tuner does not: it replays the same sessions again for every
setting, where these caches are what makes a knob change fast.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import weakref
from collections.abc import Callable, Hashable
from typing import Any, Protocol, TypeVar

_CLEARERS: list[Callable[[], None]] = []


class Forgetful(Protocol):
    def forget(self) -> None: ...


_OWNERS: weakref.WeakSet[Any] = weakref.WeakSet()  # objects with their own caches (counters)
C = TypeVar("C")


def per_conversation(cache: C) -> C:
    """Register a module-level cache (a dict or an ``lru_cache`` function) that `forget` empties;
    returns it, so it works as a decorator or around a literal."""
    clear = getattr(cache, "cache_clear", None) or getattr(cache, "clear", None)
    if clear is None:
        raise TypeError(f"{cache!r} is neither a dict nor an lru_cache function")
    _CLEARERS.append(clear)
    return cache


def owner(obj: Forgetful) -> None:
    """Register an object whose `forget()` empties its own caches (held weakly: registering never
    keeps it alive)."""
    _OWNERS.add(obj)


def forget() -> None:
    """Empty every registered cache and hand the freed memory back to the system, so a worker's
    resident size follows the conversation it is on rather than every one it has seen."""
    for clear in _CLEARERS:
        clear()
    for obj in list(_OWNERS):
        obj.forget()
    trim()


K = TypeVar("K")
V = TypeVar("V")
R = TypeVar("R")


def kept(cache: dict[K, V], key: K, limit: int, make: Callable[[K], V]) -> V:
    """``make(key)``, kept in `cache` (bounded: emptied when it reaches `limit` entries)."""
    found = cache.get(key)
    if found is None:
        if len(cache) >= limit:
            cache.clear()
        found = cache[key] = make(key)
    return found


def with_counter(cached: Callable[..., R], counter: object, *args: Any) -> R:
    """``cached(*args)``, an ``lru_cache`` function whose arguments hold `counter`; its uncached
    function when `counter` cannot be hashed (ctxlab's counters can; a caller's own may not)."""
    return cached(*args) if isinstance(counter, Hashable) else cached.__wrapped__(*args)


def trim() -> None:
    """Hand freed heap memory back to the system (where the C library can)."""
    # glibc keeps freed heap pages mapped; malloc_trim returns them (about 2x less resident memory
    # in a worker after a long session). Other C libraries have no such call and need none here.
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _libc() -> Any:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


_LIBC = _libc()

__all__ = ["forget", "kept", "owner", "per_conversation", "trim", "with_counter"]
