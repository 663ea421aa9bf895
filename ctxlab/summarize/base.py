"""The `Summarizer` protocol and `SummaryResult`, shared by every summarizer and by compaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ctxlab.messages import Message
from ctxlab.tokens import TokenCounter


@dataclass(frozen=True, slots=True)
class SummaryResult:
    """One summary and what it cost.

    Attributes:
        text: the summary ("" when the summarizer failed; see `error`).
        input_tokens: tokens sent (the provider's count for LLMs, the counter's for extractive).
        output_tokens: tokens of the summary.
        cost_usd: price of the call from litellm's price data; None when the model is unpriced,
            0.0 for offline summarizers.
        latency_ms: wall time of the call (a cache hit reports the recorded call's latency).
        model: the model (or ``extractive``).
        cached: True when the result came from the call cache.
        error: why the summary failed after retries, else None. Failures are returned, not raised.
    """

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None
    model: str | None = None
    cached: bool = False
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.text.strip())


@runtime_checkable
class Summarizer(Protocol):
    """Summarizes messages into one text that fits `max_tokens` under `counter`.

    `name` is a spec string (``"extractive"``, ``"llm:model=openai/gpt-4o-mini,prompt=structured"``)
    that `get_summarizer` rebuilds the summarizer from; it never contains an API key.
    """

    @property
    def name(self) -> str: ...

    def summarize(self, messages: Sequence[Message], *, previous_summary: str | None = None,
                  counter: TokenCounter, max_tokens: int) -> SummaryResult:
        """Summarize `messages`, merging `previous_summary` (an earlier compaction's) when given."""
        ...
