"""Properties of pricing over random sessions: appends, rewrites of an earlier message, dropped
history, changed tools and pauses, on every cache family."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab.cost import Prompt, price_call, price_prompts
from tests.cost.sessions import RATES, WORDS, msg, pricing, system

TOOLS = ({"type": "function", "function": {"name": "a"}}, {"type": "function", "function": {"name": "b"}})

step = st.tuples(st.sampled_from(["append", "rewrite", "drop", "tools", "pause"]), st.integers(0, 40),
                 st.integers(1, 900))


def sessions(steps: list[tuple[str, int, int]]) -> list[Prompt]:
    """Prompts built by applying `steps` to a growing conversation (ids make every message distinct)."""
    messages, tools, now, prompts = [system(1200), msg("u0", 50)], TOOLS[:1], 0.0, []
    for n, (kind, where, size) in enumerate(steps):
        where = 1 + where % len(messages)
        if kind == "rewrite" and where < len(messages):
            messages[where] = msg(f"x{n}", size)
        elif kind == "drop" and where < len(messages):
            del messages[where]
        elif kind == "tools":
            tools = TOOLS[: 1 + size % 2]
        now += 400.0 if kind == "pause" else 30.0
        messages.append(msg(f"m{n}", size))
        prompts.append(Prompt(list(messages), tools, output_tokens=size % 50, timestamp=now))
    return prompts


@pytest.mark.parametrize("family", ["anthropic", "openai", "gemini", "none"])
@settings(max_examples=40, deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=12))
def test_every_call_splits_its_whole_prompt_and_reads_only_what_the_previous_call_left(family, steps):
    pm = pricing(family, **({"min_tokens": 0} if family == "none" else {}))
    prompts = sessions(steps)
    calls = price_prompts(pm, WORDS, prompts).calls
    previous = None
    for prompt, call in zip(prompts, calls, strict=True):
        # The running totals reused from the previous call equal a fresh count of the prompt.
        assert call.prompt_tokens == WORDS.count_messages(prompt.messages, prompt.tools)
        assert call.input_tokens + call.cache_read_tokens + call.cache_write_tokens == call.prompt_tokens
        assert min(call) >= 0
        assert call.cost_usd == pytest.approx(
            call.input_tokens * RATES.input + call.cache_read_tokens * RATES.cache_read
            + call.cache_write_tokens * RATES.cache_write + call.output_tokens * RATES.output)
        if previous is None or prompt.timestamp - previous[0].timestamp > pm.cache.lifetime_s:
            assert call.cache_read_tokens == 0
        else:
            assert call.cache_read_tokens <= previous[1].prompt_tokens
        if family != "anthropic":
            assert call.cache_write_tokens == 0 and call.cache_read_tokens % pm.cache.increment == 0
        if family == "none":
            assert call.input_tokens == call.prompt_tokens
        previous = (prompt, call)


@settings(max_examples=30, deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=10))
def test_anthropic_reads_the_whole_previous_prompt_the_system_prompt_or_nothing(steps):
    prompts = sessions(steps)
    state = None
    for prompt in prompts:
        before = state
        cost, state = price_call(pricing(), WORDS, prompt, state)
        allowed = {0} if before is None else {0, before.cumulative[-1], before.cumulative[before.system_count]}
        assert cost.cache_read_tokens in allowed
