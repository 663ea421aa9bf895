"""Drift: what repeated compaction does to a long session.

`simulate` runs a conversation forward the way an agent lives it: before every model call (each
assistant message) the context so far is compressed, and the result is carried forward, so the
next call sees the previous summary plus the new messages. Each step records ground-truth fact
recall over the history so far, and the number of compaction cycles that history went through
(a cycle is a step where the strategy changed its input: a summary, a drop or a truncation).

`drift` aggregates over conversations: recall after 1, 2, 3... cycles (`by_cycle`), and recall
at the end of each session by where the fact was stated (`by_position`, deciles of the
conversation), which shows whether early facts fade as summaries are summarized again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from ctxlab.messages import Conversation, Message
from ctxlab.metrics.facts import fact_recall, ground_truth, kept_facts, normalize
from ctxlab.strategies import CompressionResult, Strategy, get_strategy
from ctxlab.tokens import TokenCounter, get_counter


class Step(NamedTuple):
    """One model call of the simulated agent."""

    conversation_id: str
    step: int
    upto: int
    cycle: int
    compacted: bool
    recall: float | None
    facts_total: int
    facts_kept: int
    tokens_after: int
    fits: bool


class DriftReport(NamedTuple):
    """Per-step rows, recall by compaction cycle, and final recall by fact position (decile)."""

    steps: Any
    by_cycle: Any
    by_position: Any


def call_points(messages: tuple[Message, ...], points: str = "model_calls") -> list[int]:
    """History lengths at which the agent calls the model: before each assistant message
    (``model_calls``) or before each assistant message that follows a user message
    (``user_turns``); the full history is always the last point."""
    if points not in ("model_calls", "user_turns"):
        raise ValueError(f"points must be model_calls or user_turns, not {points!r}")
    out = [i for i in range(1, len(messages)) if messages[i].role == "assistant"
           and (points == "model_calls" or messages[i - 1].role == "user")]
    return sorted({*out, len(messages)})


def simulate(conversation: Conversation, strategy: str | Strategy, window: int, *,
             counter: str | TokenCounter = "o200k_base",
             points: str = "model_calls") -> tuple[list[Step], CompressionResult | None]:
    """Run `conversation` forward through `strategy`, carrying each result to the next call.

    Returns:
        The steps and the final result (None for an empty conversation).
    """
    strategy = get_strategy(strategy) if isinstance(strategy, str) else strategy
    counter = get_counter(counter)
    context: tuple[Message, ...] = ()
    done, cycles, steps, result = 0, 0, [], None
    for n, upto in enumerate(call_points(conversation.messages, points)):
        context = context + conversation.messages[done:upto]
        done = upto
        result = strategy.compress(context, window, counter=counter, tools=conversation.tools)
        invented = {m.id for m in result.messages}.difference(m.id for m in context)
        changed = bool(result.dropped_ids or result.truncated_ids or invented)
        cycles += changed
        fr = fact_recall(conversation, result, upto=upto, auto=False)
        steps.append(Step(conversation.id, n, upto, cycles, changed, fr.recall, fr.total, fr.kept,
                          result.tokens_after, result.fits))
        context = result.messages
    return steps, result


def drift(conversations: Iterable[Conversation], strategy: str | Strategy, window: int, *,
          counter: str | TokenCounter = "o200k_base", points: str = "model_calls") -> DriftReport:
    """Simulate every conversation and aggregate (see the module docstring).

    `by_cycle` has one row per cycle count k: the mean recall right after each conversation's
    k-th compaction. `by_position` has one row per decile of the fact's message index.
    """
    import pandas as pd

    rows: list[Step] = []
    position: dict[int, list[int]] = {d: [0, 0] for d in range(10)}
    for conversation in conversations:
        steps, final = simulate(conversation, strategy, window, counter=counter, points=points)
        rows.extend(steps)
        if final is not None:
            _by_position(conversation, final, position)
    steps_df = pd.DataFrame(rows, columns=Step._fields)
    after = steps_df[steps_df["compacted"]] if not steps_df.empty else steps_df
    by_cycle = (after.dropna(subset=["recall"]).groupby("cycle", as_index=False)
                .agg(conversations=("conversation_id", "nunique"), recall=("recall", "mean"))
                if not after.empty else pd.DataFrame(columns=["cycle", "conversations", "recall"]))
    by_position = pd.DataFrame([{"decile": d, "facts": total, "kept": kept,
                                 "recall": kept / total if total else None}
                                for d, (kept, total) in position.items()])
    return DriftReport(steps_df, by_cycle, by_position)


def _by_position(conversation: Conversation, final: CompressionResult,
                 position: Mapping[int, list[int]]) -> None:
    """Add each ground-truth fact's kept/total to the decile of the message that stated it."""
    n = len(conversation.messages)
    found = kept_facts(conversation, final.messages)
    for fact in ground_truth(conversation):
        decile = min(9, fact.message_index * 10 // max(n, 1))
        position[decile][0] += normalize(fact.fact) in found
        position[decile][1] += 1
