"""Price a summarizer's own LLM call (an LLM summary is a model call too, billed like any other).

A summary prompt is the serialized conversation under a summary instruction, sent once: nothing
of it is in the cache of the agent's session, so it is priced uncached.
"""

from __future__ import annotations

from typing import Protocol

from ctxlab.cost.calls import CallCost
from ctxlab.cost.prices import PriceModel
from ctxlab.cost.split import Split
from ctxlab.errors import CtxlabError


class RecordedUsage(Protocol):
    """What a summarizer reports (`ctxlab.summarize.SummaryResult` has these fields)."""

    input_tokens: int | None
    output_tokens: int | None


def price_usage(pm: PriceModel, input_tokens: int, output_tokens: int) -> CallCost:
    """An uncached call of `input_tokens` prompt tokens that generated `output_tokens`."""
    return CallCost.of(pm, Split(max(input_tokens, 0), 0, 0), max(output_tokens, 0))


def price_summary(pm: PriceModel, result: RecordedUsage, *, prompt_tokens: int | None = None,
                  max_tokens: int | None = None) -> CallCost:
    """A summary call from its recorded usage, else from its prompt size and output cap.

    Raises:
        CtxlabError: neither the usage nor the fallback is known.
    """
    used_in = result.input_tokens if result.input_tokens is not None else prompt_tokens
    used_out = result.output_tokens if result.output_tokens is not None else max_tokens
    if used_in is None or used_out is None:
        raise CtxlabError("cannot price a summary without its recorded usage or its prompt size and cap")
    return price_usage(pm, used_in, used_out)
