"""Deterministic generator of ctxlab's bundled synthetic conversations.

Two families of records, both plain dicts in OpenAI chat format:

* coding-agent sessions with tools (``generate_agent_sessions``), with ground-truth
  facts and a reference summary in ``meta``;
* ordinary multi-turn chats without tools (``generate_chats``).

Every record is produced from its own ``random.Random`` seeded from
``(seed, kind, index)``, so output is identical across runs and platforms, record
``i`` does not depend on how many records are requested, and the generators are
lazy iterators (100,000 records never sit in memory together).

Regenerate the bundled files with ``python -m ctxlab.datasets.synth data/``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

from .agent_flow import build_agent_record
from .chat import build_chat_record

__all__ = [
    "AGENT_FILE",
    "CHAT_FILE",
    "DEFAULT_SEED",
    "SAMPLE_SIZE",
    "generate_agent_sessions",
    "generate_chats",
    "generate_history",
    "generate_mixed",
    "write_samples",
]

DEFAULT_SEED = 20240301
SAMPLE_SIZE = 120
AGENT_FILE = "agent_sessions.jsonl"
CHAT_FILE = "chats.jsonl"


def generate_agent_sessions(n: int, seed: int = DEFAULT_SEED) -> Iterator[dict]:
    """Yield ``n`` synthetic coding-agent sessions.

    Args:
        n: Number of sessions.
        seed: Dataset seed; the same seed always yields the same sessions.

    Yields:
        Records ``{"id": "agent-0001", "messages", "tools", "meta"}``.
    """
    for index in range(n):
        yield build_agent_record(seed, index)


def generate_chats(n: int, seed: int = DEFAULT_SEED) -> Iterator[dict]:
    """Yield ``n`` synthetic multi-turn chats without tools.

    Args:
        n: Number of chats.
        seed: Dataset seed.

    Yields:
        Records ``{"id": "chat-0001", "messages", "meta"}``.
    """
    for index in range(n):
        yield build_chat_record(seed, index)


def generate_mixed(n: int, seed: int = DEFAULT_SEED) -> Iterator[dict]:
    """Yield ``n`` records interleaving agent sessions and chats (about half each).

    The k-th agent session of the stream is exactly ``generate_agent_sessions``'s
    k-th one for the same seed (likewise for chats), so ids are unique across the
    stream (``agent-0001``, ``chat-0001``, ...; more digits past 9999).

    Args:
        n: Number of records, e.g. 100,000 for scale tests.
        seed: Dataset seed.

    Yields:
        Agent and chat records in a seeded random order.
    """
    order = random.Random(f"ctxlab-synth/{seed}/mixed")
    agents = chats = 0
    for _ in range(n):
        if order.random() < 0.5:
            yield build_agent_record(seed, agents)
            agents += 1
        else:
            yield build_chat_record(seed, chats)
            chats += 1


def dumps(record: dict) -> str:
    """Serialise a record as one JSONL line (UTF-8 text, key order as built)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def write_samples(data_dir: str | Path, seed: int = DEFAULT_SEED, n: int = SAMPLE_SIZE) -> list[Path]:
    """Write the bundled ``agent_sessions.jsonl`` and ``chats.jsonl`` into ``data_dir``.

    Args:
        data_dir: Target directory (created if missing).
        seed: Dataset seed; the committed files use ``DEFAULT_SEED``.
        n: Records per file.

    Returns:
        The paths written.
    """
    out = Path(data_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, records in ((AGENT_FILE, generate_agent_sessions(n, seed)), (CHAT_FILE, generate_chats(n, seed))):
        path = out / name
        # newline="\n" keeps the bytes identical on every platform.
        with path.open("w", encoding="utf-8", newline="\n") as fh:
            for record in records:
                fh.write(dumps(record) + "\n")
        paths.append(path)
    return paths


def generate_history(sessions: int = 500, calls: int = 100_000, seed: int = DEFAULT_SEED) -> Iterator[dict]:
    """Yield a user-scale agent history: `sessions` long sessions sharing `calls` provider calls,
    shaped like real agent logs (`ctxlab.datasets.synth.history`).

    Args:
        sessions: Number of sessions (records).
        calls: Provider calls over all sessions (split by a seeded log-normal, exact total).
        seed: Dataset seed.

    Yields:
        Records ``{"id": "history-00001", "messages", "tools", "meta"}`` with ``meta.provider_calls``
        and ``meta.compactions`` as ctxlab imports them from real logs.
    """
    from .history import build_history_record, session_calls

    for index, n in enumerate(session_calls(sessions, calls, seed)):
        yield build_history_record(seed, index, n)
