"""How a replay steps through one conversation with one strategy: the final history once, or the
agent's calls one by one, each compressing what the agent sent last time plus what happened since.

The replay worker stores every step; `ctxlab agree` asks a model at a few of them. Both walk the
same steps, so what a policy sends at a call is the same wherever it is measured.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, NamedTuple

from ctxlab import caches
from ctxlab.datasets.logs.deltas import calls_before_compaction
from ctxlab.messages import Conversation, Message
from ctxlab.replay.plan import turn_indices
from ctxlab.strategies import BaseStrategy, CompressionResult
from ctxlab.strategies.signals import Recorded
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
                 mode: str, *, after_last: bool = False) -> Iterator[Step]:
    """The compressions of `conv` by `strategy` in `mode` (``final`` or ``per-turn``), in order.

    Per turn, the step at assistant message ``t`` sees only ``messages[:t]``: what the strategy
    sent at the previous call, then the messages that came after it; with `after_last`, one more
    step after the last message (the call the agent would make next). The iterator is lazy, so a
    caller that needs the calls up to some ``t`` stops there and compresses nothing later.

    A strategy whose source edits a copy of the full history on every call (``stateless``:
    server-side context editing) is handed that full history at each call, not its previous output.

    Each step hands the strategy the provider usage the log recorded for the calls before it
    (`Request.recorded`), as long as the context is still the log's own history: once the strategy
    changed what it sends (or the agent's own compaction changed what the log's calls saw), the
    recorded prompts describe another context and none are given.
    """
    n = len(conv.messages)
    points: list[tuple[int | None, int]] = [(None, -1)] if mode == "final" else [(t, t) for t in turn_indices(conv)]
    if after_last and mode != "final":
        points.append((n, n))
    calls = recorded_calls(conv)
    carry = Carry()
    for upto, turn in points:
        end = n if upto is None else upto
        context = carry.context(conv.messages, end)
        result, error, latency = _compress(strategy, context, window, counter, conv.tools, carry.recorded(calls, end))
        yield Step(turn, upto, context, result, error, latency)
        carry = carry.after(context, result, end, stateless=getattr(strategy, "stateless", False))


@dataclass(frozen=True)
class Carry:
    """What an agent carries from one call to the next under a policy: what it sent last time and
    how much of the history that covered. A per-turn replay steps with it, and so do ctxlab's
    integrations (`ctxlab.apply`, the LangChain middleware), so a policy sends the same thing at a
    call wherever it runs.

    Attributes:
        sent: what the strategy sent at the previous call (empty: start from the history).
        consumed: how many history messages `sent` stands for.
        pristine: the context is still the history's own prefix (recorded usage describes it).
    """

    sent: tuple[Message, ...] = ()
    consumed: int = 0
    pristine: bool = True

    def context(self, history: Sequence[Message], end: int) -> tuple[Message, ...]:
        """The agent sends what it sent last time plus what happened since: ``history[consumed:end]``."""
        return (*self.sent, *history[self.consumed:end])

    def recorded(self, calls: Sequence[Recorded], end: int) -> tuple[Recorded, ...]:
        """The recorded calls a strategy may read at a call before ``history[end]``: those before
        it, while the context is still the history the log's calls saw; none after a change."""
        return tuple(_before(calls, end)) if self.pristine else ()

    def after(self, context: tuple[Message, ...], result: CompressionResult | None, end: int, *,
              stateless: bool) -> Carry:
        """The carry for the next call, once the strategy sent `result` for `context` (None: it
        failed). After a failure the agent starts over from its full history, and so does a
        stateless strategy (server-side context editing) at every call."""
        if result is None or stateless:
            return Carry()
        return Carry(result.messages, end, self.pristine and result.messages == context)


def recorded_calls(conv: Conversation, end: int | None = None) -> tuple[Recorded, ...]:
    """The provider usage `conv`'s log recorded for calls whose prompts were its own history
    (`calls_before_compaction`), those whose reply is in ``messages[:end]`` (all by default): what a
    strategy compressing that history may be handed as `Request.recorded`."""
    calls = _recorded(conv)
    return calls if end is None else tuple(_before(calls, end))


def _before(calls: Sequence[Recorded], end: int) -> Sequence[Recorded]:
    """The calls whose reply comes before ``messages[end]`` (`calls` are ordered by `covers`)."""
    return calls[:bisect_left(calls, end, key=_COVERS)]


def _recorded(conv: Conversation) -> tuple[Recorded, ...]:
    """Every recorded call of `conv`, read from its log's metadata once per conversation (a replay
    asks once per strategy, window and mode: every unit of a final replay)."""
    known = _RECORDED.get(id(conv))
    if known is None or known[0] is not conv:  # the entry holds `conv`: its id cannot be reused meanwhile
        _RECORDED.clear()
        known = _RECORDED[id(conv)] = (conv, tuple(Recorded(*call) for call in calls_before_compaction(conv)))
    return known[1]


_RECORDED: dict[int, tuple[Conversation, tuple[Recorded, ...]]] = caches.per_conversation({})
_COVERS = attrgetter("covers")


def _compress(strategy: BaseStrategy, context: Sequence[Message], window: int, counter: TokenCounter,
              tools: Sequence[Any], recorded: Sequence[Recorded] = ()
              ) -> tuple[CompressionResult | None, str | None, float]:
    started = time.perf_counter()
    try:
        result = strategy.compress(context, window, counter=counter, tools=tools, recorded=recorded)
    except Exception as exc:  # one strategy failing on one conversation is a row, not a crash
        return None, f"{type(exc).__name__}: {exc}", (time.perf_counter() - started) * 1000
    return result, None, result.elapsed * 1000
