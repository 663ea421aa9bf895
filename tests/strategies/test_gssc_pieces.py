"""gssc counts long prompts piece by piece; the sums must equal whole-text counts exactly."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab import load_conversations
from ctxlab.strategies import get_strategy
from ctxlab.strategies.seeds.gssc import pieces
from ctxlab.strategies.seeds.gssc.packets import words
from ctxlab.tokens import chunks, get_counter
from ctxlab.tokens.exact import TiktokenCounter, load_tiktoken
from tests.builders import SPLIT_PATTERN_EDGES

fragment = st.lists(st.sampled_from(SPLIT_PATTERN_EDGES), max_size=40).map("".join)
# Long enough to take the piecewise path, with "\n[" cuts between random fragments.
long_text = st.lists(fragment, min_size=2, max_size=12).map(
    lambda parts: ("\n[".join(parts) + "\n[") * (pieces.MIN_CUT_CHARS // 2 // len(parts) + 1))


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
@settings(max_examples=150, deadline=None)
@given(text=long_text)
def test_piecewise_token_count_equals_whole_count(name, text):
    counter = get_counter(name)
    assert len(text) >= pieces.MIN_CUT_CHARS
    assert pieces.text_counter(counter)(text) == len(load_tiktoken(name).encode_ordinary(text))


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_piecewise_count_on_a_prompt_longer_than_the_cache_limit(name):
    counter = get_counter(name)
    session = next(iter(load_conversations(["sample:agent_sessions"])))
    text = "\n".join(f"[{m.role}] {m.text}" for m in session.messages)
    text = (text + "\n") * (pieces.TOTAL_CHARS // len(text) + 2)
    assert len(text) > pieces.TOTAL_CHARS
    assert pieces.text_counter(counter)(text) == len(load_tiktoken(name).encode_ordinary(text))


def test_message_counter_adds_the_chat_overhead_of_the_whole_message():
    from ctxlab.messages import Message
    counter = get_counter("o200k_base")
    text = "[user] hello\n[assistant] " + "x y z " * 400
    assert pieces.message_counter(counter, "ctx")(text) == counter.count_message(Message("system", text, id="ctx"))


def test_estimators_are_not_summed_piecewise():
    # Rounding estimators (ceil per text) would drift if summed over pieces.
    counter = get_counter("chars3")
    assert not pieces.additive(counter)
    text = "\n[".join(["ab"] * 800)
    assert pieces.text_counter(counter)(text) == counter.count(text)


@settings(max_examples=150, deadline=None)
@given(text=long_text, query=fragment)
def test_piecewise_overlap_equals_whole_overlap(text, query):
    wanted = set(words(query))
    assert pieces.overlap(text, query) == sum(1 for w in words(text) if w in wanted)


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_the_prompt_count_gssc_hands_its_counter_is_the_counters_own(name):
    sessions = list(load_conversations("sample:agent_sessions"))[:12]
    remembered = 0
    for session in sessions:
        counter, fresh = TiktokenCounter(name), TiktokenCounter(name)
        result = get_strategy("gssc").compress(session.messages, 8000, counter=counter)
        prompt = result.messages[0]
        if prompt.mark == "marker":
            remembered += 1
            assert counter._message_cache[prompt] == fresh.count_message(prompt)
            assert result.tokens_after == fresh.count_messages(result.messages)
    assert remembered >= 6


def test_the_reference_counts_gssc_prompts_by_their_pieces_and_exactly():
    sessions = list(load_conversations("sample:agent_sessions"))[:12]
    shared = 0
    for session in sessions:
        result = get_strategy("gssc").compress(session.messages, 8000, counter="cl100k_base")
        text = result.messages[0].text
        if result.messages[0].mark == "marker" and len(text) >= chunks.SPLIT_CHARS:
            shared += 1
            assert chunks.line_chunks(text) == tuple(pieces.pieces(text))
            assert TiktokenCounter("o200k_base").count(text) == len(load_tiktoken("o200k_base").encode_ordinary(text))
    assert shared >= 6
