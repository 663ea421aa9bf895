"""Per-turn pricing in a replay: each call a strategy would send, billed by a model with prompt
caching (`ctxlab.cost`), against the call before it in the same session.

A session is a chain of calls per strategy variant and window. Every call is compared with the
previous call of its chain only (`ctxlab.cost.price_call` carries a `CacheState` forward), so a
strategy that rewrites the front of its prompt pays cache writes from that point on, and pricing
costs one pass over the new messages of each call. A call's output is the reply the session
recorded for it: the provider's `output_tokens` when the log has them, else the reply message
counted by the pricing counter. A strategy's own LLM summary is priced as an uncached call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ctxlab.cost import CacheState, PriceModel, Prompt, bill, observe, price_model, price_usage
from ctxlab.messages import Conversation
from ctxlab.replay.metrics import llm_usage
from ctxlab.store.schema import ResultCostRow
from ctxlab.strategies import CompressionResult
from ctxlab.tokens import TokenCounter


@dataclass(frozen=True)
class Pricer:
    """The price models of a run and the counter their prompts are counted with."""

    models: tuple[PriceModel, ...]
    counter: TokenCounter

    @classmethod
    def build(cls, names: Sequence[str], counter: TokenCounter) -> Pricer:
        """Price models by litellm name (an unknown one raises `UnknownModelError` now)."""
        return cls(tuple(price_model(name) for name in names), counter)


@dataclass
class Chain:
    """The calls of one session under one strategy variant and window: the previous call per model.

    Attributes:
        outputs: the provider's recorded output tokens by the index of the reply (`recorded_outputs`).
    """

    pricer: Pricer
    outputs: Mapping[int, int]
    state: CacheState | None = None

    def price(self, unit: int, conv: Conversation, upto: int, result: CompressionResult | None) -> list[ResultCostRow]:
        """The rows of the call sent before ``conv.messages[upto]``; a failed compression sends
        nothing and the next call starts cold."""
        if result is None:
            self.state = None
            return []
        output = self.outputs.get(upto)
        if output is None:
            output = self.pricer.counter.count_message(conv.messages[upto]) if upto < len(conv.messages) else 0
        usage = llm_usage(result.events)
        # What the call shares with the previous one is the same for every model: observed once.
        observed, self.state = observe(self.pricer.counter, Prompt(result.messages, conv.tools, output), self.state)
        rows = []
        for pm in self.pricer.models:
            cost = bill(pm, observed)
            summarizer = price_usage(pm, usage.input_tokens, usage.output_tokens).cost_usd if usage.calls else 0.0
            rows.append(ResultCostRow(unit, pm.name, cost.prompt_tokens, cost.input_tokens, cost.cache_read_tokens,
                                      cost.cache_write_tokens, cost.output_tokens, summarizer,
                                      cost.cost_usd + summarizer))
        return rows


def recorded_outputs(conv: Conversation) -> dict[int, int]:
    """Output tokens the provider recorded, by the index of the reply message each call wrote."""
    out: dict[int, int] = {}
    for call in (conv.meta or {}).get("provider_calls") or ():
        if isinstance(call, Mapping) and isinstance(call.get("index"), int) and isinstance(call.get("output_tokens"), int):
            out.setdefault(call["index"], call["output_tokens"])
    return out


__all__ = ["Chain", "Pricer", "recorded_outputs"]
