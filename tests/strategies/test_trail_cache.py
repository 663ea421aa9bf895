"""`trail.shrink` counts each kept length of an output, and each kept length of its cleared note,
once: its cut equals the plain binary search."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab import load_conversations
from ctxlab.messages import Message
from ctxlab.strategies.mechanics import trail
from ctxlab.tokens import TokenCounter, get_counter


@cache
def outputs() -> list[Message]:
    tools = [m for c in load_conversations("sample:agent_sessions") for m in c.messages
             if m.role == "tool" and len(m.text) > 3000]
    return tools[::max(1, len(tools) // 40)]


def plain_shrink(message: Message, max_tokens: int, counter: TokenCounter, name: str) -> Message:
    """The search as written before the cache: every candidate cut and counted anew."""
    text = message.text
    if counter.count_message(message) <= max_tokens:
        return message
    lo, hi, best = 0, len(text) - 1, None
    while lo <= hi:
        keep = (lo + hi) // 2
        candidate = message.with_text(trail._cut(text, keep))
        if counter.count_message(candidate) <= max_tokens:
            best, lo = candidate, keep + 1
        else:
            hi = keep - 1
    return best if best is not None else plain_clipped_note(message, max_tokens, counter, name)


def plain_clipped_note(message: Message, max_tokens: int, counter: TokenCounter, name: str) -> Message:
    """The note's search as written before the cache."""
    full = trail.note(name, message.text)
    bare = trail.CLEARED.format(name=name, chars=len(message.text), trail="")
    lo, hi, best = len(bare), len(full), message.with_text(bare)
    while lo <= hi:
        keep = (lo + hi) // 2
        candidate = message.with_text(full[:keep].rstrip("; ") + " …]")
        if counter.count_message(candidate) <= max_tokens:
            best, lo = candidate, keep + 1
        else:
            hi = keep - 1
    return best


@settings(max_examples=60, deadline=None)
@given(pick=st.integers(0, 39), tokens=st.integers(1, 400), counter=st.sampled_from(["o200k_base", "chars4"]))
def test_a_clipped_note_equals_the_plain_search(pick, tokens, counter):
    message, count = outputs()[pick % len(outputs())], get_counter(counter)
    assert trail._clipped_note(message, tokens, count, "read") == plain_clipped_note(message, tokens, count, "read")


@settings(max_examples=60, deadline=None)
@given(pick=st.integers(0, 39), share=st.floats(0.01, 1.2), counter=st.sampled_from(["o200k_base", "chars4"]))
def test_a_shrink_equals_the_plain_search(pick, share, counter):
    message, count = outputs()[pick % len(outputs())], get_counter(counter)
    budget = max(1, int(count.count_message(message) * share))
    assert trail.shrink(message, budget, count, "read") == plain_shrink(message, budget, count, "read")


def test_budgets_share_the_counted_lengths():
    message, count = outputs()[0], get_counter("o200k_base")
    trail._cut_tokens.cache_clear()
    cuts = [trail.shrink(message, budget, count, "read") for budget in (300, 310, 320, 330)]
    assert [c == plain_shrink(message, b, count, "read") for c, b in zip(cuts, (300, 310, 320, 330), strict=True)] \
        == [True] * 4
    assert trail._cut_tokens.cache_info().hits > 0  # the later searches read the first one's lengths


class Unhashable:
    """A caller's own counter that does not hash (its __eq__ without a __hash__)."""

    name = "own"

    def __init__(self) -> None:
        self.inner = get_counter("o200k_base")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unhashable)

    __hash__ = None  # type: ignore[assignment]

    def count(self, text: str) -> int:
        return self.inner.count(text)

    def count_message(self, message: Message) -> int:
        return self.inner.count_message(message)

    def overhead(self, tools=None) -> int:
        return self.inner.overhead(tools)

    def count_messages(self, messages, tools=None) -> int:
        return self.inner.count_messages(messages, tools)


def test_a_counter_that_does_not_hash_is_counted_without_the_caches():
    from ctxlab.strategies.mechanics.shaped import Shaped
    from ctxlab.strategies.mechanics.voices import VOICES

    message, own = outputs()[1], Unhashable()
    assert trail.shrink(message, 400, own, "read") == trail.shrink(message, 400, own.inner, "read")
    messages = next(iter(load_conversations("sample:agent_sessions"))).messages
    shaped = Shaped(VOICES["claude_code"], voice_name="claude_code")
    assert shaped.summarize(messages, counter=own, max_tokens=500).text == \
        shaped.summarize(messages, counter=own.inner, max_tokens=500).text
