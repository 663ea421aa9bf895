"""Hand-built sessions whose cache arithmetic is known, for the cost tests.

`WORDS` counts one token per whitespace-separated word and `TOOL_TOKENS` per tool definition,
so `msg("u1", 500)` is a 500-token message and a prompt's size is the sum of its messages.
`PM` prices with round rates (USD per token) so a call's dollars can be worked out by hand.
`recorded(...)` builds an agent log whose ``meta.provider_calls`` say what a provider billed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ctxlab.cost import CacheModel, PriceModel, Prices, Rates
from ctxlab.messages import Conversation, Message, ToolCall
from ctxlab.tokens import CachedCounter

TOOL_TOKENS = 100
RATES = Rates(input=1e-6, cache_read=1e-7, cache_write=1.25e-6, output=5e-6)


class Words(CachedCounter):
    """One token per word; each tool definition costs `TOOL_TOKENS`; no reply priming."""

    name = "words"

    def _count_text(self, text: str) -> int:
        return len(text.split())

    def _count_tools(self, tools: Sequence[Mapping[str, Any]]) -> int:
        return TOOL_TOKENS * len(tools)


WORDS = Words()


def pricing(family: str = "anthropic", **cache: Any) -> PriceModel:
    """A price model with `RATES` and a cache model of `family` (minimum 1024 unless given)."""
    defaults: dict[str, Any] = {"min_tokens": 1024, "lookback_blocks": None}
    if family != "anthropic":
        defaults.update(increment=128 if family == "openai" else 1, write_premium=1.0)
    return PriceModel(f"test-{family}", CacheModel(family, **{**defaults, **cache}), Prices("test", RATES))


PM = pricing()


def text(tokens: int, tag: str) -> str:
    """`tokens` distinct words tagged with `tag` (so different messages never compare equal)."""
    return " ".join(f"{tag}{i}" for i in range(tokens))


def msg(msg_id: str, tokens: int, role: str = "user", timestamp: float | None = None) -> Message:
    return Message(role=role, content=text(tokens, msg_id), id=msg_id, timestamp=timestamp)


def system(tokens: int) -> Message:
    return msg("sys", tokens, role="system")


def tool_round(n: int, tokens: int, calls: int = 1) -> list[Message]:
    """An assistant message making `calls` calls (1 token each: name, no arguments) and their
    results, `tokens` tokens each."""
    ids = [f"c{n}_{k}" for k in range(calls)]
    assistant = Message(role="assistant", content=None, id=f"a{n}", tool_calls=tuple(ToolCall(i, "t") for i in ids))
    return [assistant, *(Message(role="tool", content=text(tokens, i), id=f"r{i}", tool_call_id=i) for i in ids)]


def recorded(*calls: tuple[int, int, int, int], model: str = "m", compaction_at: int | None = None,
             with_system: bool = False, times: list[float] | None = None) -> Conversation:
    """A log of user/assistant turns; `calls` are (index, input, cache read, cache write) of the
    assistant messages at those positions."""
    n = max(index for index, *_ in calls) + 1
    times = times or [float(10 * i) for i in range(n)]
    messages = [msg(f"m{i}", 10, role="assistant" if i % 2 else "user", timestamp=times[i]) for i in range(n)]
    if with_system:
        messages[0] = system(2000)
    provider_calls = [{"index": i, "model": model, "prompt_tokens": a + b + c, "input_tokens": a,
                       "cache_read_tokens": b, "cache_write_tokens": c, "output_tokens": 7} for i, a, b, c in calls]
    compactions = [] if compaction_at is None else [{"index": compaction_at, "at": compaction_at, "summary": "s"}]
    meta = {"format": "test", "model": model, "provider_calls": provider_calls, "compactions": compactions}
    return Conversation("log", tuple(messages), meta=meta)
