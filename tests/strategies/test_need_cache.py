"""`need.item_features` is computed once per history, counts and items: a cached answer equals a fresh one."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab import load_conversations
from ctxlab.strategies.mechanics import need
from ctxlab.tokens import get_counter


@cache
def sessions():
    return [c.messages for _, c in zip(range(6), load_conversations("sample:agent_sessions"), strict=False)]


@settings(max_examples=40, deadline=None)
@given(session=st.integers(0, 5), cut=st.floats(0.1, 1.0), every=st.integers(1, 3))
def test_cached_features_equal_the_plain_computation(session, cut, every):
    messages = sessions()[session][: max(2, int(len(sessions()[session]) * cut))]
    counts = [get_counter("o200k_base").count_message(m) for m in messages]
    items = [i for i, m in enumerate(messages) if m.role == "tool"][::every]
    first = need.item_features(messages, counts, items)
    again = need.item_features(list(messages), list(counts), list(items))
    plain = need._item_features.__wrapped__(tuple(messages), tuple(counts), tuple(items))
    assert first == again == [list(row) for row in plain]
    assert len(first) == len(items) and all(len(row) == len(need.FEATURES) for row in first)
    if first:
        first[0].append(99.0)  # a caller's edit does not reach the cache
    assert need.item_features(messages, counts, items) == [list(row) for row in plain]
