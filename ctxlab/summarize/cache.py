"""The LLM call cache: every summarizer and judge call is stored under a key of what determines it.

A record has the columns of the store's ``llm_calls`` table (key, model, prompt_name, params,
input_hash, response, input_tokens, output_tokens, cost_usd, latency_ms, error, created_at).
`DuckDBCache` goes through `ctxlab.store`'s LLM cache functions (the store module owns the
schema and its migrations; the file is opened per operation with a lock retry, so replay workers
in several processes share it). Parameters never hold credentials: `call_key` and `scrub` drop
anything that looks like a key, and the store scrubs again on write.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

_SECRET = re.compile(r"api[_-]?key|authorization|secret|password|bearer|token$", re.I)


@runtime_checkable
class CallCache(Protocol):
    """Where LLM call records live."""

    def get(self, key: str) -> dict[str, Any] | None:
        """The record stored under `key`, or None."""
        ...

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        """Store `record` under `key`, replacing an older one."""
        ...


class MemoryCache:
    """A per-process cache (tests, notebooks, one-off runs)."""

    def __init__(self) -> None:
        self.records: dict[str, dict[str, Any]] = {}

    def get(self, key: str) -> dict[str, Any] | None:
        record = self.records.get(key)
        return dict(record) if record is not None else None

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        self.records[key] = {**record, "key": key, "params": scrub(record.get("params") or {})}


class DuckDBCache:
    """The shared DuckDB cache file (default: env ``CTXLAB_LLM_CACHE``, else
    ``~/.cache/ctxlab/llm_calls.duckdb``), created on first use.

    Safe to share between threads: DuckDB refuses a second attach of a file that a thread of the
    same process is opening, so lookups and writes in one process take turns (milliseconds, while
    the model calls themselves run in parallel).
    """

    _lock = threading.Lock()  # one per process: the conflict is per file, whatever the instance

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else None
        self._handle: Any = None

    def _cache(self) -> Any:
        if self._handle is None:
            from ctxlab.store import open_llm_cache

            self._handle = open_llm_cache(self.path)
            self.path = self._handle.path
        return self._handle

    def get(self, key: str) -> dict[str, Any] | None:
        from ctxlab.store import get_llm_call

        with self._lock:
            return get_llm_call(self._cache(), key)

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        from ctxlab.store import put_llm_call

        with self._lock:
            put_llm_call(self._cache(), {**record, "key": key})

    def __repr__(self) -> str:
        return f"DuckDBCache({str(self.path) if self.path else 'default'!r})"


class NoCache:
    """Caching switched off: every call goes to the model."""

    def get(self, key: str) -> dict[str, Any] | None:
        return None

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        return None


def open_cache(cache: CallCache | str | Path | None) -> CallCache:
    """A cache from a `CallCache`, ``"memory"``, ``"off"``, a file path, or None (the default file)."""
    if cache is None:
        return DuckDBCache()
    if isinstance(cache, str) and cache in ("memory", "off"):
        return MemoryCache() if cache == "memory" else NoCache()
    if isinstance(cache, str | Path):
        return DuckDBCache(cache)
    return cache


def scrub(params: Any) -> Any:
    """`params` without credential-like keys, at any depth."""
    if isinstance(params, Mapping):
        return {k: scrub(v) for k, v in params.items() if not _SECRET.search(str(k))}
    if isinstance(params, list | tuple):
        return [scrub(v) for v in params]
    return params


def input_hash(messages: Any) -> str:
    """SHA-256 of the request messages as canonical JSON."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def call_key(model: str, prompt_name: str, prompt_text: str, params: Mapping[str, Any], digest: str) -> str:
    """The cache key: model, prompt name and text, parameters (scrubbed) and the input hash."""
    payload = {"model": model, "prompt_name": prompt_name,
               "prompt": hashlib.sha256(prompt_text.encode()).hexdigest(),
               "params": scrub(dict(params)), "input": digest}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()
