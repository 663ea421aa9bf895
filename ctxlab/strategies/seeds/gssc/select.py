"""Select: the seed's relevance, recency and composite scores, MinRelevance filter, priority sort,
greedy fill of the available tokens, and an optional MMR re-ranking for diversity."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.mechanics import context
from ctxlab.strategies.seeds.gssc.packets import HISTORY, P0_TYPES, TASK_STATE, Packet, words
from ctxlab.strategies.seeds.gssc.pieces import overlap

# Without timestamps, messages are assumed this many seconds apart (so with tau = 3600 a message
# 60 positions back scores exp(-1)).
SECONDS_PER_MESSAGE = 60.0
# The seed's score for a packet with no timestamp.
UNDATED_RECENCY = 0.5
DEFAULT_TAU = 3600.0


class Clock(NamedTuple):
    """The deterministic "now" of recency: the query's time (or the newest timestamp) and position."""

    now: float | None
    position: int
    positions: Mapping[str, int]


def clock_of(messages: Sequence[Message]) -> Clock:
    """Recency's "now": the query's timestamp (else the newest one) and the query's position."""
    q = context.newest_user(messages)
    stamps = [m.timestamp for m in messages if m.timestamp is not None]
    now = messages[q].timestamp if q is not None and messages[q].timestamp is not None else max(stamps, default=None)
    position = q if q is not None else len(messages) - 1
    return Clock(now, position, {m.id: i for i, m in enumerate(messages)})


class Weights(NamedTuple):
    """The composite's weights and the recency decay's time constant (the seed's defaults)."""

    relevance: float = 0.7
    recency: float = 0.3
    tau: float = DEFAULT_TAU


def relevance(content: str, query: str) -> float:
    """Content words found in the query, over the query's word count (the seed's Jaccard-like
    overlap; content repeats count, as in the seed's code), capped at 1."""
    query_words = words(query)
    if not query_words:
        return 0.0
    return min(1.0, overlap(content, query) / len(query_words))


def recency(packet: Packet, clock: Clock, tau: float) -> float:
    """``exp(-dt / tau)``: dt from timestamps when both exist, else from message positions.

    A non-positive `tau` means the seed's default of 3600 s, as in its NewRecencyScorer.
    """
    tau = tau if tau > 0 else DEFAULT_TAU
    if packet.timestamp is not None and clock.now is not None:
        dt = clock.now - packet.timestamp
    else:
        positions = [clock.positions[i] for i in packet.source_ids if i in clock.positions]
        if not positions:
            return UNDATED_RECENCY
        dt = (clock.position - max(positions)) * SECONDS_PER_MESSAGE
    return math.exp(-max(dt, 0.0) / tau)


def score(packets: Sequence[Packet], query: str, clock: Clock, weights: Weights,
          count: Callable[[str], int]) -> list[Packet]:
    """Packets with token_count, relevance (kept when a gatherer preset it), recency and composite."""
    scored = []
    for p in packets:
        rel = p.relevance or relevance(p.content, query)
        rec = recency(p, clock, weights.tau)
        scored.append(_with_scores(p, p.token_count or count(p.content), rel, rec,
                                   weights.relevance * rel + weights.recency * rec))
    return scored


def _with_scores(p: Packet, token_count: int, rel: float, rec: float, composite: float) -> Packet:
    if type(p) is not Packet:  # a subclass may have fields of its own
        return dataclasses.replace(p, token_count=token_count, relevance=rel, recency=rec, composite=composite)
    # Positional construction: `dataclasses.replace` costs several times more, once per packet per call.
    return Packet(p.content, p.type, p.timestamp, token_count, rel, rec, composite, p.metadata, p.source)


def passes(packet: Packet, min_relevance: float, filter_history: bool) -> bool:
    """The seed's filter: task_state always passes, other non-P0 packets need MinRelevance."""
    if packet.type == TASK_STATE or (packet.type == HISTORY and not filter_history):
        return True
    return packet.relevance >= min_relevance


def mmr_order(packets: Sequence[Packet], lam: float) -> list[Packet]:
    """Maximal marginal relevance within each priority tier: ``lam * composite - (1 - lam) *``
    the highest word-set Jaccard similarity to a packet already ranked."""
    ordered: list[Packet] = []
    for tier in sorted({p.priority for p in packets}):
        pool = [p for p in packets if p.priority == tier]
        sets = {id(p): set(words(p.content)) for p in pool}
        ranked: list[Packet] = []
        while pool:
            best = max(pool, key=partial(_mmr_gain, ranked=ranked, sets=sets, lam=lam))
            ranked.append(best)
            pool.remove(best)
        ordered.extend(ranked)
    return ordered


def _mmr_gain(p: Packet, ranked: Sequence[Packet], sets: dict[int, set[str]], lam: float) -> float:
    sim = max((_jaccard(sets[id(p)], sets[id(q)]) for q in ranked), default=0.0)
    return lam * p.composite - (1.0 - lam) * sim


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def newest_history(packet: Packet, room: int, count: Callable[[str], int]) -> Packet | None:
    """The history packet cut down to the messages that fit in `room` tokens, newest first, a message
    that does not fit skipped as Select skips a packet (None when none fits, or the packet does not
    list its messages' `parts`).

    The seed does not say what becomes of a history too large for the budget (its upstream code
    skips the single packet whole, so one long tool output in the window empties [Context]); ctxlab
    reads it the way that keeps the newest history.
    """
    parts, ids = tuple(packet.metadata.get("parts", ())), packet.source_ids
    if not parts or len(parts) != len(ids):
        return None
    chosen: list[int] = []
    used = 0
    for i in range(len(parts) - 1, -1, -1):
        tokens = count(parts[i])
        if used + tokens <= room:
            chosen.insert(0, i)
            used += tokens
    while chosen and count(content := "".join(parts[i] for i in chosen)) > room:  # counts need not add up
        chosen.pop(0)
    if not chosen:
        return None
    metadata = {**packet.metadata, "parts": tuple(parts[i] for i in chosen),
                "source_ids": tuple(ids[i] for i in chosen), "message_count": len(chosen)}
    return dataclasses.replace(packet, content=content, token_count=count(content), metadata=metadata)


def select(packets: Sequence[Packet], available: int, *, min_relevance: float, filter_history: bool = True,
           mmr_lambda: float | None = None, count: Callable[[str], int] | None = None) -> list[Packet]:
    """P0 packets always; the others that pass the filter, by priority then composite (or MMR),
    while they fit in `available` tokens (a packet that does not fit is skipped, not a stop). With
    `count`, a history packet too large to fit keeps its newest messages that do (`newest_history`)."""
    p0 = [p for p in packets if p.type in P0_TYPES]
    others = [p for p in packets if p.type not in P0_TYPES and passes(p, min_relevance, filter_history)]
    others.sort(key=lambda p: (p.priority, -p.composite))
    if mmr_lambda is not None:
        others = mmr_order(others, mmr_lambda)
    selected, used = list(p0), sum(p.token_count for p in p0)
    for p in others:
        if used + p.token_count > available and p.type == HISTORY and count is not None:
            p = newest_history(p, available - used, count) or p
        if used + p.token_count <= available:
            selected.append(p)
            used += p.token_count
    return selected
