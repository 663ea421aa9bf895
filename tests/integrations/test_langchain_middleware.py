"""`ContextPolicyMiddleware` beyond the replay match: what it reports, the async path, recorded
usage, a history another middleware rewrote, and its errors."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from langchain.agents.middleware import before_model
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import RemoveMessage, convert_to_openai_messages

from ctxlab.errors import CtxlabError, InvalidInputError, UnknownNameError
from ctxlab.integrations import WindowTooSmallError
from ctxlab.integrations.langchain import ContextPolicyMiddleware
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies.base import FIRED
from tests.integrations.agent_script import THREAD, agent, arun, conversation, run


class Events(BaseCallbackHandler):
    """Collects LangChain custom events."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        self.seen.append((name, data))


def test_every_call_is_reported_as_an_event_and_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    events = Events()
    with caplog.at_level(logging.INFO, logger="ctxlab.integrations"):
        run([ContextPolicyMiddleware("observation_masking", window=6000)], [events])
    records = [data for name, data in events.seen if name == "ctxlab_context"]
    assert [r["call"] for r in records] == list(range(1, 41))
    masked = [r for r in records if any(e["name"] == "observation_masking.masked" for e in r["events"])]
    assert masked and all(r["truncated_ids"] for r in masked)
    lines = [r.getMessage() for r in caplog.records if r.name == "ctxlab.integrations"]
    changed = [r for r in records if r["dropped_ids"] or r["truncated_ids"]]
    assert len(lines) == len(changed) and "observation_masking sent" in lines[-1] and "events " in lines[-1]


def test_ainvoke_sends_what_invoke_sends() -> None:
    policy = "pi:trigger_reserve=2000,keep_tokens=2500"
    sync_model, _ = run([ContextPolicyMiddleware(policy, window=8000)])
    async_model, _ = asyncio.run(arun([ContextPolicyMiddleware(policy, window=8000)]))
    assert [convert_to_openai_messages(s) for s in async_model.seen] == \
        [convert_to_openai_messages(s) for s in sync_model.seen]


def test_recorded_usage_is_read_as_the_replay_reads_a_log() -> None:
    # Claude Code's trigger reads the provider's usage of the previous call (here scripted, far below the
    # real size), as long as what was sent is still the thread's own history.
    policy, window = "claude_code:trigger_reserve=1000,trigger_reply=1000", 8000
    middleware = ContextPolicyMiddleware(policy, window=window)
    model, history = run([middleware], usage=True)
    conv = conversation(history)
    assert len(conv.meta["provider_calls"]) == 40
    steps = list(replay_steps(middleware.runner.strategy, conv, window, middleware.runner.counter, "per-turn"))
    for seen, step in zip(model.seen, steps, strict=True):
        assert convert_to_openai_messages(seen) == [m.to_openai() for m in step.result.messages]
    fired = [e.payload for s in steps for e in s.result.events if e.name == FIRED]
    assert fired and fired[0]["signal"] == "recorded usage"


def test_a_rewritten_history_starts_the_policy_again(caplog: pytest.LogCaptureFixture) -> None:
    @before_model
    def forget_the_first_request(state: dict[str, Any], runtime: Any) -> dict[str, Any] | None:
        first = state["messages"][0]
        if len(state["messages"]) > 40 and "Request 0" in str(first.content):
            return {"messages": [RemoveMessage(id=m.id) for m in state["messages"][:9]]}
        return None

    with caplog.at_level(logging.WARNING, logger="ctxlab.integrations"):
        model, history = run([forget_the_first_request, ContextPolicyMiddleware("observation_masking", window=50_000)])
    warned = [r for r in caplog.records if "starting again from the whole history" in r.getMessage()]
    assert len(warned) == 1 and len(model.seen) == 40
    # Carried on, the policy would still send the first request (at this window it drops nothing).
    mentions = [any("Request 0" in str(m.content) for m in seen) for seen in model.seen]
    assert mentions[0] and not mentions[-1] and mentions == sorted(mentions, reverse=True)
    assert "Request 1" in str(history[0].content)


def test_bad_input_stops_with_one_line() -> None:
    with pytest.raises(UnknownNameError, match="unknown strategy 'nope'"):
        ContextPolicyMiddleware("nope", window=8000)
    with pytest.raises(CtxlabError, match="window must be a positive number of tokens"):
        ContextPolicyMiddleware("pi", window=-1)
    _, small = agent([ContextPolicyMiddleware("recommended", window=50)])
    with pytest.raises(WindowTooSmallError, match=r"window 50 is smaller than the system prompt and tool definitions"):
        small.invoke({"messages": [{"role": "user", "content": "hi"}]}, THREAD)
    _, graph = agent([ContextPolicyMiddleware("recommended", window=8000)])
    image = [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]
    with pytest.raises(InvalidInputError, match=r"message 1 has an unsupported content part \('image_url'"):
        graph.invoke({"messages": [{"role": "user", "content": image}]}, THREAD)
