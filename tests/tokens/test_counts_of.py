"""`CachedCounter.counts_of`: counting a list from where a recently counted one ends gives what
counting every message gives, whatever the order of the lists, and hands out lists no one shares."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab.messages import Message
from ctxlab.tokens import get_counter, message_counts

_POOL = [Message("user" if i % 2 else "tool", f"message {i} " * (i + 1), id=str(i)) for i in range(9)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.lists(st.sampled_from(_POOL), max_size=6), st.booleans()), max_size=10))
def test_counting_from_a_recent_prefix_is_counting_every_message(lists) -> None:
    counter = get_counter("cl100k_base")
    counter.forget()
    previous: tuple[Message, ...] = ()
    for grow, messages, as_list in lists:
        # the next call's context: the previous one and more (the usual step), or anything
        sent = (*previous, *messages) if grow else tuple(messages)
        counts = message_counts(counter, list(sent) if as_list else sent)
        assert counts == [counter.count_message(m) for m in sent]
        counts.append(-1)  # a caller changing its list changes nothing kept
        previous = sent


def test_a_list_changed_after_it_was_counted_is_not_taken_for_a_prefix() -> None:
    counter = get_counter("cl100k_base")
    counter.forget()
    a, b, c = _POOL[:3]
    context = [a, b]
    message_counts(counter, context)
    context[1] = c
    assert message_counts(counter, (a, c, b)) == [counter.count_message(m) for m in (a, c, b)]


def test_a_full_message_cache_lets_go_of_the_messages_strategies_made_first() -> None:
    from ctxlab.tokens.base import _make_message_room

    originals = [Message("tool", f"original {i}", id=f"o{i}") for i in range(6)]
    made = [m.with_text(f"cut {i}") for i, m in enumerate(originals)]
    cache = {m: 1 for m in [*originals[:3], *made, *originals[3:]]}
    _make_message_room(cache, limit=12)
    assert list(cache) == [*originals[:3], *originals[3:]]  # half freed, every copy gone, the originals kept
    cache = {m: 1 for m in [*originals, *made[:2]]}
    _make_message_room(cache, limit=8)
    assert list(cache) == originals[2:]  # too few copies: then the oldest originals
