"""What the replay measures about one compression result: small pure functions.

Everything is judged against the *original* messages the agent had at that point, not against
the input the strategy was handed: in per-turn replay that input already carries earlier
summaries and truncations, and a message dropped two turns ago is still lost.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from operator import attrgetter
from typing import Any, NamedTuple

from ctxlab.messages import Message
from ctxlab.metrics.sent import Sent
from ctxlab.strategies import SUMMARY_CALL, CompressionResult
from ctxlab.strategies.mechanics import newest_user, system_prefix
from ctxlab.tokens import TokenCounter, message_tokens


class Accounting(NamedTuple):
    """How the original messages fared: kept whole, truncated, dropped; and how many invented."""

    kept: int
    truncated: int
    dropped: int
    added: int


class ToolIntegrity(NamedTuple):
    """Whether every kept tool call has its result and every kept result its call."""

    orphan_calls: int
    orphan_results: int

    @property
    def intact(self) -> bool:
        return self.orphan_calls == 0 and self.orphan_results == 0


class LLMUsage(NamedTuple):
    """Summarizer calls a strategy reported in its events (cached calls cost nothing)."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0


def retained_ratio(tokens_before: int, tokens_after: int) -> float:
    """Share of the original tokens the result keeps (1.0 for an empty original)."""
    return tokens_after / tokens_before if tokens_before else 1.0


def fits(tokens: int, window: int) -> bool:
    """Does a request of `tokens` fit `window`?"""
    return tokens <= window


def request_tokens(counter: TokenCounter, messages: Iterable[Message],
                   tools: Sequence[Mapping[str, Any]] = (), overhead: int | None = None) -> int:
    """Tokens of a request under `counter`: messages with their overhead, tools and reply priming
    (pass a precomputed `overhead` to skip counting the tool definitions again)."""
    fixed = counter.overhead(tools) if overhead is None else overhead
    return message_tokens(counter, messages) + fixed


_ABSENT = "absent"
_ID = attrgetter("id")
_MARK = attrgetter("mark")


def marks_by_id(result: Sequence[Message]) -> dict[str, str | None]:
    """id -> mark of a result's messages (None: kept whole), built once per unit for the
    measures below."""
    return dict(zip(map(_ID, result), map(_MARK, result), strict=True))  # in C: once per unit, over the result


def accounting(originals: Sequence[Message], result: Sequence[Message],
               marks: Mapping[str, str | None] | None = None) -> Accounting:
    """Count originals kept whole (same id, unmarked), truncated (same id, marked) and dropped;
    every other result message was added (a summary or marker)."""
    marks = marks_by_id(result) if marks is None else marks
    # Counted in C (map and Counter): a per-turn replay runs this over the whole history at every call.
    seen = Counter(map(marks.get, map(_ID, originals), repeat(_ABSENT)))
    kept, truncated = seen[None], seen["truncated"]
    return Accounting(kept, truncated, len(originals) - kept - truncated, len(result) - kept - truncated)


class ToolState(NamedTuple):
    """Tool pairs after some messages: the call ids made, those answered after their call, and the
    results without a call before them."""

    calls: frozenset[str]
    answered: frozenset[str]
    orphan_results: int


def tool_state(state: ToolState | None, messages: Sequence[Message]) -> ToolState:
    """The `ToolState` after `messages`, going on from `state` (the state after the messages
    before them; None: none before). A chain's `ctxlab.metrics.sent.Sent.fold` carries it."""
    calls = set(state.calls) if state else set()
    answered = set(state.answered) if state else set()
    orphan_results = state.orphan_results if state else 0
    for m in messages:
        if m.role == "tool":
            if m.tool_call_id in calls:
                answered.add(m.tool_call_id)
            else:
                orphan_results += 1
        for call in m.tool_calls:
            calls.add(call.id)
    return ToolState(frozenset(calls), frozenset(answered), orphan_results)


def tool_integrity(messages: Sequence[Message], sent: Sent | None = None) -> ToolIntegrity:
    """Count tool calls without a kept result and tool results without a kept call before them
    (`sent`: a chain's `Sent` at `messages`, which carries the count from its previous call)."""
    state = sent.fold(tool_state) if sent is not None and sent.messages is messages else tool_state(None, messages)
    return ToolIntegrity(len(state.calls - state.answered), state.orphan_results)


def pinned_kept(originals: Sequence[Message], result: Sequence[Message],
                marks: Mapping[str, str | None] | None = None) -> tuple[bool | None, bool | None]:
    """Were the system prompt and the newest user message kept whole? None when there is none."""
    marks = marks_by_id(result) if marks is None else marks
    n_system = system_prefix(originals)
    system = all(marks.get(m.id, _ABSENT) is None for m in originals[:n_system]) if n_system else None
    user = newest_user(originals)
    return system, (marks.get(originals[user].id, _ABSENT) is None if user is not None else None)


def llm_usage(events: Iterable[Any]) -> LLMUsage:
    """Sum the usage of a result's LLM summary calls (its `SUMMARY_CALL` events: input_tokens,
    output_tokens, cost_usd, latency_ms; ``cached`` calls count as tokens but not as calls). Other
    events may carry token figures of their own (gssc's ``output_tokens``); they are not LLM usage."""
    calls = inp = out = 0
    cost = latency = 0.0
    for event in events:
        if getattr(event, "name", None) != SUMMARY_CALL:
            continue
        p = event.payload or {}
        calls += 0 if p.get("cached") else 1
        inp += int(p.get("input_tokens") or 0)
        out += int(p.get("output_tokens") or 0)
        cost += float(p.get("cost_usd") or 0.0)
        latency += float(p.get("latency_ms") or 0.0)
    return LLMUsage(calls, inp, out, cost, latency)


def against_originals(result: CompressionResult, originals: Sequence[Message],
                      tokens_before: int) -> CompressionResult:
    """The result re-expressed over the original messages (ids, dropped, truncated, tokens before),
    so quality metrics see what the agent lost since the start, whatever the strategy's input was."""
    truncated_ids = {m.id for m in result.messages if m.mark == "truncated"}
    whole_ids = {m.id for m in result.messages if m.mark is None}
    input_ids = tuple(m.id for m in originals)
    return dataclasses.replace(
        result, input_ids=input_ids, tokens_before=tokens_before,
        truncated_ids=tuple(i for i in input_ids if i in truncated_ids and i not in whole_ids),
        dropped_ids=tuple(i for i in input_ids if i not in whole_ids and i not in truncated_ids))
