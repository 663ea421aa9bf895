"""What a strategy did to one conversation, message by message: kept, truncated, dropped, or added.

The store keeps counts per unit, not the messages, so the conversation explorer and the report's
examples re-run the strategy on the stored conversation record (`ctxlab.store.conversation`);
strategies are deterministic, so this reproduces the stored unit exactly.

    from ctxlab.analysis import explain
    result = explain.rerun(conversation, "window_guard", window=4000, counter="o200k_base")
    table = explain.message_fates(conversation.messages, result)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ctxlab.messages import Conversation, Message
from ctxlab.replay.steps import recorded_calls
from ctxlab.strategies import CompressionResult, StrategySpec, get_strategy, strategy_params
from ctxlab.tokens import get_counter

FATES = ("kept", "truncated", "dropped", "summary", "marker")
FATE_COLUMNS = ("position", "id", "role", "fate", "tokens", "kept_tokens", "text", "kept_text")
LLM_PARAMS = ("summarizer", "model", "steps")


def build_strategy(spec: str, params: Mapping[str, Any] | None = None) -> Any:
    """A strategy from a stored spec: the ``params`` JSON of a `results` row (exact), or a label
    such as ``window_guard:reserve_tokens=4096``; `params` override individual parameters."""
    if spec.lstrip().startswith("{"):
        stored = StrategySpec.from_json(spec)
        return get_strategy(stored.name, **{**dict(stored.params), **dict(params or {})})
    return get_strategy(spec, **dict(params or {}))


def uses_llm(strategy: Any) -> bool:
    """Whether re-running the strategy may call an LLM (its spec names an ``llm`` summarizer)."""
    return bool(strategy.spec.uses_llm())


def rerun(conversation: Conversation, spec: str, *, window: int, counter: str = "o200k_base",
          params: Mapping[str, Any] | None = None, upto: int | None = None) -> CompressionResult:
    """Compress the conversation (its first `upto` messages, default all) again, in process, with
    the provider usage its log recorded for the calls before (as the replay hands it)."""
    strategy = build_strategy(spec, params)
    messages = conversation.messages if upto is None else conversation.messages[:upto]
    return strategy.compress(messages, window, counter=counter, tools=conversation.tools,
                             recorded=recorded_calls(conversation, len(messages)))


def message_text(message: Message) -> str:
    """A message's text for display; a tool-call-only message shows the calls it makes."""
    calls = "\n".join(f"-> {c.name}({c.arguments})" for c in message.tool_calls)
    return "\n".join(t for t in (message.text, calls) if t)


def message_fates(originals: Sequence[Message], result: CompressionResult,
                  counter: str | None = None) -> pd.DataFrame:
    """One row per original message and per message the strategy added, in conversation order.

    Columns: ``position`` (index in the original, -1 for added), ``id``, ``role``, ``fate`` (kept,
    truncated, dropped, summary or marker), ``tokens`` (original size; the added message's size),
    ``kept_tokens`` (what survives in the result), ``text`` and ``kept_text``. An added summary
    comes right after the last message it stands for.
    """
    count = get_counter(counter or result.counter).count_message
    truncated, dropped = set(result.truncated_ids), set(result.dropped_ids)
    out_by_id = {m.id: m for m in result.messages if m.mark in (None, "truncated")}
    index = {m.id: i for i, m in enumerate(originals)}
    rows: list[dict[str, Any]] = []
    emitted = 0

    def flush(upto: int) -> None:
        nonlocal emitted
        for i in range(emitted, upto):
            rows.append(_original_row(i, originals[i], truncated, dropped, out_by_id, count))
        emitted = max(emitted, upto)

    for m in result.messages:
        if m.id in index and m.mark in (None, "truncated"):
            flush(index[m.id] + 1)
            continue
        sources = [index[s] for s in m.source_ids if s in index]
        flush(max(sources) + 1 if sources else emitted)
        tokens = count(m)
        rows.append({"position": -1, "id": m.id, "role": m.role, "fate": m.mark or "marker", "tokens": tokens,
                     "kept_tokens": tokens, "text": message_text(m), "kept_text": message_text(m)})
    flush(len(originals))
    return pd.DataFrame(rows, columns=list(FATE_COLUMNS))


def _original_row(i: int, m: Message, truncated: set[str], dropped: set[str], out_by_id: Mapping[str, Message],
                  count: Any) -> dict[str, Any]:
    tokens = count(m)
    fate = "dropped" if m.id in dropped else "truncated" if m.id in truncated else "kept"
    kept = out_by_id.get(m.id) if fate != "dropped" else None
    return {"position": i, "id": m.id, "role": m.role, "fate": fate, "tokens": tokens,
            "kept_tokens": count(kept) if kept is not None else 0, "text": message_text(m),
            "kept_text": message_text(kept) if kept is not None else ""}


def fate_counts(fates: pd.DataFrame) -> dict[str, int]:
    """How many messages met each fate (every fate present, zero when none)."""
    counts = fates["fate"].value_counts().to_dict() if not fates.empty else {}
    return {fate: int(counts.get(fate, 0)) for fate in FATES}


def editable_params(name: str) -> dict[str, Any]:
    """A strategy's parameters with their defaults, minus those that pick an LLM or nest other
    strategies (a live explorer re-runs offline strategies only)."""
    return {k: v for k, v in strategy_params(name).items() if k not in LLM_PARAMS}


def parse_param(text: str, default: Any) -> Any:
    """A parameter typed as text (JSON where it parses; empty = None) for a None/tuple default."""
    text = text.strip()
    if not text:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return text
    return tuple(value) if isinstance(default, tuple) and isinstance(value, list) else value
