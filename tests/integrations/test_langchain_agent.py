"""A LangChain agent with `ContextPolicyMiddleware` hands its model, at every one of 40 calls,
exactly what ctxlab's per-turn replay sends for the same conversation, policy and window."""

from __future__ import annotations

import pytest
from langchain_core.messages import convert_to_openai_messages

from ctxlab.integrations.langchain import ContextPolicyMiddleware
from ctxlab.replay.steps import replay_steps
from tests.integrations.agent_script import conversation, run

# Windows small enough that each policy compresses the 40-call session (19k o200k tokens at the end).
CASES = [
    ("recommended", 6000),
    ("pi:trigger_reserve=2000,keep_tokens=2500", 8000),
    ("observation_masking", 6000),
]


@pytest.mark.parametrize(("policy", "window"), CASES, ids=[c[0].split(":")[0] for c in CASES])
def test_the_model_receives_what_the_replay_sends(policy: str, window: int) -> None:
    middleware = ContextPolicyMiddleware(policy, window=window)
    model, history = run([middleware])
    conv, counter = conversation(history), middleware.runner.counter
    steps = list(replay_steps(middleware.runner.strategy, conv, window, counter, "per-turn"))
    assert len(model.seen) == len(steps) == 40
    for k, (seen, step) in enumerate(zip(model.seen, steps, strict=True)):
        assert step.error is None
        assert convert_to_openai_messages(seen) == [m.to_openai() for m in step.result.messages], f"call {k}"
    # The policy had to compress, and did: the whole history is over the window, every call fits.
    assert counter.count_messages(conv.messages, conv.tools) > window
    assert any(s.result.dropped_ids or s.result.truncated_ids for s in steps)
    assert all(s.result.fits for s in steps) and len(model.seen[-1]) < len(history)


def test_the_stored_history_stays_whole() -> None:
    _, plain = run()
    _, compressed = run([ContextPolicyMiddleware("observation_masking", window=6000)])
    assert convert_to_openai_messages(compressed) == convert_to_openai_messages(plain)


def test_a_summary_stays_the_prefix_of_what_is_sent() -> None:
    model, _ = run([ContextPolicyMiddleware("pi:trigger_reserve=2000,keep_tokens=2500", window=8000)])
    summaries = [[m.content for m in seen if "<summary>" in str(m.content)] for seen in model.seen]
    first = next(k for k, found in enumerate(summaries) if found)
    assert first > 0 and all(summaries[k] for k in range(first, len(summaries)))
    # Calls that do not compact again send the previous call's summary unchanged, right after the system prompt.
    kept = [k for k in range(first + 1, len(summaries)) if summaries[k] == summaries[k - 1]]
    assert kept and all("<summary>" in str(model.seen[k][1].content) for k in kept)
