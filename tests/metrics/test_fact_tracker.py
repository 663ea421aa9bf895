"""`FactTracker` scores a chain of per-turn calls exactly as `fact_recall` scores each call alone."""

from __future__ import annotations

import pytest

import ctxlab
from ctxlab.bench import deterministic_strategies
from ctxlab.datasets.synth import generate_history
from ctxlab.messages import Conversation
from ctxlab.metrics.fact_tracker import MISSING, FactTracker
from ctxlab.metrics.facts import fact_recall
from ctxlab.metrics.sent import Sent
from ctxlab.replay.metrics import against_originals
from ctxlab.replay.plan import resolve_entries
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies import get_strategy
from ctxlab.tokens import get_counter

SESSIONS = list(ctxlab.load_conversations("sample:agent_sessions", limit=3))


def _chains(conv: Conversation, window: int, labels: list[str]) -> int:
    checked = 0
    for entry in resolve_entries(labels, ["seed"]):
        tracker, shared, sent = FactTracker(conv), FactTracker(conv), Sent()
        for step in replay_steps(get_strategy(entry.label), conv, window, get_counter(entry.counter), "per-turn"):
            if step.result is None:
                continue
            alone = fact_recall(conv, against_originals(step.result, conv.messages[:step.upto], 0), upto=step.upto)
            chained = tracker.measure(step.upto, step.result.messages)
            sent.update(step.result.messages)  # the replay's way: the changes worked out once per call
            assert shared.measure(step.upto, step.result.messages, changes=sent) == chained
            assert chained[:3] == alone[:3], (entry.label, step.upto)
            assert chained.missing == alone.missing[:MISSING], (entry.label, step.upto)
            checked += 1
    return checked


@pytest.mark.parametrize("conv", SESSIONS, ids=lambda c: c.id)
def test_every_policy_chain_scores_as_fact_recall(conv: Conversation) -> None:
    assert _chains(conv, 2_000, deterministic_strategies()) > 100


def test_a_long_generated_session_with_ground_truth_free_facts() -> None:
    conv = Conversation.from_record(next(generate_history(1, 150, seed=3)))
    assert _chains(conv, 16_000, ["compaction", "sliding_window", "observation_masking"]) == 3 * 150


def test_calls_come_in_order() -> None:
    conv = SESSIONS[0]
    tracker = FactTracker(conv)
    tracker.measure(10, conv.messages[:10])
    with pytest.raises(ValueError, match="ascending"):
        tracker.measure(5, conv.messages[:5])
