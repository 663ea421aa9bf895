"""`Sent`: one call's set, changes and tokens, shared by the measures, gives what each works out alone."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import ctxlab
from ctxlab.bench import deterministic_strategies
from ctxlab.messages import Message, ToolCall
from ctxlab.metrics.grounded import GroundedEvaluator
from ctxlab.metrics.limit import limit_kept
from ctxlab.metrics.needed import SessionNeeds
from ctxlab.metrics.sent import Sent, changes
from ctxlab.replay.metrics import tool_integrity
from ctxlab.replay.plan import resolve_entries
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies import get_strategy
from ctxlab.tokens import get_counter, message_tokens

REFERENCE = get_counter("o200k_base")


def test_the_changes_are_those_against_the_previous_call() -> None:
    a, b, c = (Message("user", text, id=text) for text in "abc")
    sent = Sent()
    sent.update((a, b))
    assert (sent.added, sent.removed) == ({a, b}, set())
    sent.update((b, c))
    assert (sent.now, sent.added, sent.removed) == ({b, c}, {c}, {a})
    assert changes({a, b}, (b, c), None) == ({b, c}, {a}, {c})
    assert changes(set(), (), sent) == ({b, c}, {a}, {c})  # a chain's own answer wins
    assert sent.tokens(REFERENCE) == REFERENCE.count_message(b) + REFERENCE.count_message(c)


_POOL = [
    *(Message("user", f"message {i} " * (i + 1), id=str(i)) for i in range(4)),
    *(Message("assistant", f"calling {i}", id=f"a{i}", tool_calls=(ToolCall(f"c{i}", "read"),)) for i in range(3)),
    *(Message("tool", f"result {i}", id=f"r{i}", tool_call_id=f"c{i}") for i in range(3)),
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.lists(st.sampled_from(_POOL), max_size=6)), max_size=8))
def test_a_growing_call_is_worked_out_from_its_new_messages_as_a_whole_one_would(calls) -> None:
    sent, previous = Sent(), set()
    for grow, messages in calls:
        # a call either sends the previous one's messages and more (the chain's usual step) or anything
        sent_now = (*sent.messages, *messages) if grow else tuple(messages)
        before = sent.now
        sent.update(sent_now)
        assert (sent.now, sent.added, sent.removed) == (set(sent_now), set(sent_now) - previous,
                                                        previous - set(sent_now))
        assert before == previous  # the set handed out for the call before is left as it was
        assert sent.tokens(REFERENCE) == message_tokens(REFERENCE, sent_now)
        assert tool_integrity(sent_now, sent) == tool_integrity(sent_now)  # the fold carried on, or not
        previous = set(sent_now)


def test_message_tokens_is_the_sum_of_message_counts_cached_or_not() -> None:
    messages = [Message("user", f"a message never counted before {i}", id=str(i)) for i in range(5)]
    counter = get_counter("cl100k_base")
    expected = sum(counter.count_message(m) for m in messages[:2])
    assert message_tokens(counter, messages[:2]) == expected  # every message cached
    assert message_tokens(counter, iter(messages)) == sum(counter.count_message(m) for m in messages)


def test_every_policy_chain_measures_the_same_with_a_shared_sent() -> None:
    conv = next(iter(ctxlab.load_conversations("sample:agent_sessions", limit=1)))
    needs = SessionNeeds.build(conv, REFERENCE)
    checked = 0
    for entry in resolve_entries(deterministic_strategies(), ["seed"]):
        alone, shared, sent = GroundedEvaluator(needs), GroundedEvaluator(needs), Sent()
        for step in replay_steps(get_strategy(entry.label), conv, 2_000, get_counter(entry.counter), "per-turn"):
            if step.result is None:
                continue
            sent.update(step.result.messages)
            assert shared.measure(step.upto, step.result.messages, changes=sent) == alone.measure(
                step.upto, step.result.messages), (entry.label, step.upto)
            assert limit_kept(needs, step.upto, sent.messages, REFERENCE, whole=sent.now,
                              sent_tokens=sent.tokens(REFERENCE)) == limit_kept(
                needs, step.upto, step.result.messages, REFERENCE), (entry.label, step.upto)
            checked += 1
    assert checked > 100
