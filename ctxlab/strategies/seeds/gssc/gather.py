"""Gather: the seed's built-in gatherers, a BM25 retrieval gatherer over older messages, a registry.

A gatherer is any callable ``(GatherInput) -> Sequence[Packet]``. Register one by name with
``@GATHERERS.register("name")`` so that a strategy spec naming it can be rebuilt (specs store
gatherers by name); an unregistered callable still works, but its spec cannot be replayed.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import NamedTuple

from ctxlab import caches
from ctxlab.messages import Message
from ctxlab.registry import Registry
from ctxlab.strategies.mechanics import context
from ctxlab.strategies.seeds.gssc.packets import (
    EVIDENCE,
    HISTORY,
    INSTRUCTIONS,
    TASK,
    GatherInput,
    Packet,
    render,
    words,
)

Gatherer = Callable[[GatherInput], Sequence[Packet]]
BM25_K1 = 1.5
BM25_B = 0.75

GATHERERS: Registry[Gatherer] = Registry("gssc gatherer")


class TermCounts(NamedTuple):
    """A document for BM25: how often each word occurs, and how many words it has."""

    counts: Counter[str]
    length: int


def resolve_gatherers(spec: Sequence[str | Gatherer]) -> list[Gatherer]:
    """Gatherer callables for names or callables.

    Raises:
        UnknownNameError: a name that is not registered.
    """
    return [item if callable(item) else GATHERERS.get(item) for item in spec]


@GATHERERS.register("instructions")
def instructions_gatherer(inp: GatherInput) -> list[Packet]:
    """The system prompt as the P0 instructions packet (seed's InstructionsGatherer)."""
    if not inp.instructions:
        return []
    return [Packet(inp.instructions, INSTRUCTIONS, source="instructions",
                   metadata={"source_ids": tuple(m.id for m in inp.instruction_messages)})]


@GATHERERS.register("task")
def task_gatherer(inp: GatherInput) -> list[Packet]:
    """The current query as the P0 task packet (seed's TaskGatherer)."""
    if not inp.query or inp.query_message is None:
        return []
    m = inp.query_message
    return [Packet(inp.query, TASK, timestamp=m.timestamp, source="task", metadata={"source_ids": (m.id,)})]


@GATHERERS.register("history")
def history_gatherer(inp: GatherInput) -> list[Packet]:
    """The last `max_history_messages` messages as ONE packet of ``[role] content`` lines (the seed's
    upstream HistoryGatherer formats the history as a single packet). `parts` keeps each message's
    lines, so that Select can keep the newest messages of a window too large to fit whole."""
    window = inp.window
    parts = tuple(render(m) + "\n" for m in window)
    content = "".join(parts)
    if not content:
        return []
    stamps = [m.timestamp for m in window if m.timestamp is not None]
    return [Packet(content, HISTORY, timestamp=max(stamps) if stamps else None, source="history",
                   metadata={"message_count": len(window), "source_ids": tuple(m.id for m in window),
                             "parts": parts})]


@GATHERERS.register("retrieval")
def retrieval_gatherer(inp: GatherInput) -> list[Packet]:
    """The `top_k` older messages (outside the history window) that best match the query by BM25,
    as evidence packets (the role the seed's RAGGatherer plays for an external store)."""
    older = inp.older
    query = set(words(inp.query))
    if not older or not query:
        return []
    scores = bm25_counts([term_counts(m) for m in older], query)
    ranked = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], -i))[:inp.top_k]
    return [Packet(render(older[i]), EVIDENCE, timestamp=older[i].timestamp, source="retrieval",
                   metadata={"source_ids": (older[i].id,), "bm25": round(scores[i], 6)}) for i in ranked]


@caches.per_conversation
@functools.lru_cache(maxsize=16384)
def term_counts(message: Message) -> TermCounts:
    """A rendered message's word counts and length, once per message: every turn and budget of a
    replay searches the same older messages again."""
    terms = words(render(message))
    return TermCounts(Counter(terms), len(terms))


def bm25(docs: Sequence[Sequence[str]], query: set[str], k1: float = BM25_K1, b: float = BM25_B) -> list[float]:
    """Okapi BM25 of each document (a word sequence) for the query terms (Lucene's idf, never negative)."""
    return bm25_counts([TermCounts(Counter(d), len(d)) for d in docs], query, k1, b)


def bm25_counts(docs: Sequence[TermCounts], query: set[str], k1: float = BM25_K1, b: float = BM25_B) -> list[float]:
    """`bm25` over documents given as word counts (only the query's terms are looked at)."""
    if not docs:
        return []
    avgdl = sum(d.length for d in docs) / len(docs) or 1.0
    # Sorted: summing in set order would depend on the process's string-hash seed.
    tfs = [{t: d.counts[t] for t in sorted(query & d.counts.keys())} for d in docs]
    df = Counter(t for tf in tfs for t in tf)
    idf = {t: math.log((len(docs) - n + 0.5) / (n + 0.5) + 1.0) for t, n in df.items()}
    scores = []
    for d, tf in zip(docs, tfs, strict=False):
        norm = k1 * (1.0 - b + b * d.length / avgdl)
        scores.append(sum(idf[t] * f * (k1 + 1.0) / (f + norm) for t, f in tf.items()))
    return scores


def gather_input(messages: Sequence[Message], max_history: int, top_k: int) -> GatherInput:
    """Split a conversation the way the seed's BuildInput does: instructions, query, history."""
    prefix = context.system_prefix(messages)
    q = context.newest_user(messages)
    history = tuple(m for i, m in enumerate(messages) if i >= prefix and i != q)
    return GatherInput(query=messages[q].text if q is not None else "",
                       query_message=messages[q] if q is not None else None,
                       instructions="\n\n".join(m.text for m in messages[:prefix]),
                       instruction_messages=tuple(messages[:prefix]), history=history,
                       max_history_messages=max_history, top_k=top_k)


def gather(gatherers: Sequence[Gatherer], inp: GatherInput) -> list[Packet]:
    """Run every gatherer in order (the seed's sequential CompositeGatherer) and concatenate."""
    return [p for g in gatherers for p in g(inp)]
