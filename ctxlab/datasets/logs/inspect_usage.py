"""inspect_ai usage: one model call's ``ModelUsage`` as a `TokenUsage`, and the model events' usage
summed beside the totals inspect recorded (``EvalSample.model_usage``, ``EvalStats.model_usage``).

Source: UKGovernmentBEIS/inspect_ai @ 499e6152, ``src/inspect_ai/model/_model_output.py`` (``ModelUsage``),
and the provider conversions in ``model/_openai.py``, ``_providers/anthropic.py``, ``google.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ctxlab.datasets.logs.common import TokenUsage, as_int
from ctxlab.datasets.logs.inspect_calls import ModelCall
from ctxlab.datasets.logs.inspect_messages import obj

USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens", "input_tokens_cache_read",
              "input_tokens_cache_write", "reasoning_tokens")


def usage(raw: Any) -> TokenUsage | None:
    """A model call's ``ModelUsage`` split the Anthropic way, or None when it has none.

    Until inspect_ai 0.3.184 (commit bf26615e, "Normalize handling of cached tokens") the OpenAI
    family's ``input_tokens`` included the cached tokens, Anthropic's and Google's did not; older
    Google usage left the thoughts out of ``output_tokens`` but not out of ``total_tokens``. The
    prompt is the reading of ``input_tokens`` that ``total_tokens`` confirms.
    """
    if not isinstance(raw, Mapping):
        return None
    inp, read, write, output, reasoning, total = (as_int(raw.get(k)) for k in (
        "input_tokens", "input_tokens_cache_read", "input_tokens_cache_write", "output_tokens", "reasoning_tokens",
        "total_tokens"))
    parts = inp + read + write
    if total == inp + output and inp >= read + write:  # the cached tokens are inside input_tokens
        return TokenUsage(inp - read - write, read, write, output)
    if total == parts + output + reasoning:  # older Google: thoughts counted apart from the output
        output += reasoning
    return TokenUsage(inp, read, write, output)


def usage_check(recorded: Any, calls: Sequence[ModelCall]) -> dict[str, Any] | None:
    """The model events' usage summed per model beside inspect's own totals (``agree`` None when
    inspect recorded none; the whole check None when neither has any)."""
    sums = event_usage(c.event for c in calls)
    totals = recorded if isinstance(recorded, Mapping) and recorded else None
    if totals is None and not sums:
        return None
    return {"recorded": None if totals is None else {m: {k: u.get(k) or 0 for k in USAGE_KEYS if k in u}
                                                     for m, u in totals.items() if isinstance(u, Mapping)},
            "model_events": sums, "agree": None if totals is None else agrees(totals, sums)}


def event_usage(events: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """``output.usage`` of model events summed per event model."""
    sums: dict[str, dict[str, int]] = {}
    for event in events:
        raw = obj(obj(event, "output"), "usage")
        if raw:
            total = sums.setdefault(str(event.get("model")), dict.fromkeys(USAGE_KEYS, 0))
            for key in USAGE_KEYS:
                total[key] += as_int(raw.get(key))
    return sums


def agrees(recorded: Mapping[str, Any], sums: Mapping[str, Mapping[str, int]]) -> bool:
    """Whether every count inspect recorded equals the events' sum (absent counts read as 0)."""
    models = {m for m, u in recorded.items() if isinstance(u, Mapping)} | set(sums)
    return all(((recorded.get(m) or {}).get(k) or 0) == (sums.get(m) or {}).get(k, 0)
               for m in models for k in USAGE_KEYS)
