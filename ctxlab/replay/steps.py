"""How a replay steps through one conversation with one strategy: the final history once, or the
agent's calls one by one, each compressing what the agent sent last time plus what happened since.

The replay worker stores every step; `ctxlab agree` asks a model at a few of them. Both walk the
same steps, so what a policy sends at a call is the same wherever it is measured.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from ctxlab.messages import Conversation, Message
from ctxlab.replay.plan import turn_indices
from ctxlab.strategies import BaseStrategy, CompressionResult
from ctxlab.tokens import TokenCounter


class Step(NamedTuple):
    """One compression of a replay.

    Attributes:
        turn: the index of the assistant message whose call this is (-1 for the final history).
        upto: the history is ``messages[:upto]`` (None: the whole conversation).
        context: what the strategy was given (its previous output plus the messages since).
        result: what it sent, or None when it failed.
        error: why it failed.
        latency_ms: how long the compression took.
    """

    turn: int
    upto: int | None
    context: tuple[Message, ...]
    result: CompressionResult | None
    error: str | None
    latency_ms: float


def replay_steps(strategy: BaseStrategy, conv: Conversation, window: int, counter: TokenCounter,
                 mode: str) -> Iterator[Step]:
    """The compressions of `conv` by `strategy` in `mode` (``final`` or ``per-turn``), in order.

    Per turn, the step at assistant message ``t`` sees only ``messages[:t]``: what the strategy
    sent at the previous call, then the messages that came after it. The iterator is lazy, so a
    caller that needs the calls up to some ``t`` stops there and compresses nothing later.
    """
    points = [(None, -1)] if mode == "final" else [(t, t) for t in turn_indices(conv)]
    live: tuple[Message, ...] = ()
    consumed = 0
    for upto, turn in points:
        end = len(conv.messages) if upto is None else upto
        # Per-turn: the agent sends what it sent last time plus what happened since.
        context = (*live, *conv.messages[consumed:end])
        result, error, latency = _compress(strategy, context, window, counter, conv.tools)
        yield Step(turn, upto, context, result, error, latency)
        # After a failure the agent starts over from its full history.
        live, consumed = (result.messages, end) if result is not None else ((), 0)


def _compress(strategy: BaseStrategy, context: Sequence[Message], window: int, counter: TokenCounter,
              tools: Sequence[Any]) -> tuple[CompressionResult | None, str | None, float]:
    started = time.perf_counter()
    try:
        result = strategy.compress(context, window, counter=counter, tools=tools)
    except Exception as exc:  # one strategy failing on one conversation is a row, not a crash
        return None, f"{type(exc).__name__}: {exc}", (time.perf_counter() - started) * 1000
    return result, None, result.elapsed * 1000
