"""The offline summary in a voice is written once per inputs: a cached summary equals a fresh one."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab import load_conversations
from ctxlab.strategies.mechanics import shaped
from ctxlab.strategies.mechanics.voices import VOICES
from ctxlab.tokens import get_counter


@cache
def sessions():
    return [c.messages for _, c in zip(range(8), load_conversations("sample:agent_sessions"), strict=False)]


@settings(max_examples=40, deadline=None)
@given(session=st.integers(0, 7), voice=st.sampled_from(sorted(VOICES)), cap=st.sampled_from([200, 900, 3000]),
       cut=st.floats(0.2, 1.0), prefix=st.booleans(), counter=st.sampled_from(["o200k_base", "inspect_o200k"]))
def test_a_cached_summary_equals_the_plain_computation(session, voice, cap, cut, prefix, counter):
    messages = sessions()[session][: max(2, int(len(sessions()[session]) * cut))]
    summarizer, count = shaped.Shaped(VOICES[voice], voice_name=voice), get_counter(counter)
    previous = None if prefix else summarizer.summarize(messages[:-1], counter=count, max_tokens=cap).text
    shape = summarizer.voice.sections
    args = (tuple(messages), previous, count, cap, shape, prefix)
    first = shaped._summary(summarizer, *args)
    again = summarizer._run(list(messages), previous, count, cap, shape, prefix=prefix)
    plain = shaped._summary.__wrapped__(summarizer, *args)
    assert again is first  # read from the cache, not written again
    assert (again.text, again.output_tokens, again.input_tokens) == (plain.text, plain.output_tokens, plain.input_tokens)


def test_another_length_or_counter_is_another_summary():
    messages = sessions()[0]
    summarizer = shaped.Shaped(VOICES["claude_code"], voice_name="claude_code")
    short = summarizer.summarize(messages, counter=get_counter("o200k_base"), max_tokens=150)
    long = summarizer.summarize(messages, counter=get_counter("o200k_base"), max_tokens=3000)
    estimated = summarizer.summarize(messages, counter=get_counter("chars4"), max_tokens=150)
    assert short.output_tokens <= 150 < long.output_tokens
    assert estimated.text != short.text
