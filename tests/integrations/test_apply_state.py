"""With a state, `ctxlab.apply` called before each model call of a session sends what ctxlab's
per-turn replay sends at that call, in both formats; the state refuses another conversation."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import ctxlab
from ctxlab.integrations import anthropic, openai
from ctxlab.integrations.ids import origin
from ctxlab.messages import Conversation, Message
from ctxlab.replay.steps import replay_steps
from tests.integrations.chat_lists import to_anthropic

SESSIONS = list(itertools.islice(ctxlab.load_conversations("sample:agent_sessions"), 3))
# observation_masking and the pi variant compress from the first calls on at this window;
# anthropic_context_editing is stateless (it edits the whole history at every call).
POLICIES = ("recommended", "pi:trigger_reserve=1500,keep_tokens=1200", "observation_masking",
            "anthropic_context_editing:trigger_tokens=2500", "compaction")
WINDOW = 4000


def steps(policy: str, messages: tuple[Message, ...], tools: Any) -> list:
    replayed = list(replay_steps(ctxlab.get_strategy(policy), Conversation("s", messages, tools), WINDOW,
                                 ctxlab.get_counter("o200k_base"), "per-turn"))
    assert all(s.error is None for s in replayed)
    return replayed


def anthropic_tools(tools: Any) -> list[dict[str, Any]]:
    return [{"name": t["function"]["name"], "description": t["function"]["description"],
             "input_schema": t["function"]["parameters"]} for t in tools]


def calls(given: list[dict[str, Any]]) -> list[int]:
    """Where the agent called the model: before each assistant message."""
    return [i for i, m in enumerate(given) if m["role"] == "assistant" and i]


def shape(m: Message) -> tuple:
    """A message as a provider sees it (ids and marks are ctxlab's bookkeeping)."""
    return m.role, m.text, m.tool_calls, m.tool_call_id


@pytest.mark.parametrize("policy", POLICIES)
def test_openai_calls_send_what_the_replay_sends(policy: str) -> None:
    compressed = 0
    for conv in SESSIONS:
        given = [m.to_openai() for m in conv.messages]
        state = ctxlab.ApplyState()
        for step in steps(policy, openai.parse(given), conv.tools):
            out = ctxlab.apply(given[:step.turn], policy, WINDOW, state=state, counter="o200k_base", tools=conv.tools)
            assert out == [m.to_openai() for m in step.result.messages], f"{conv.id} call at {step.turn}"
            compressed += bool(step.result.dropped_ids or step.result.truncated_ids)
    assert compressed, "the window should make the policy compress"


@pytest.mark.parametrize("policy", POLICIES)
def test_anthropic_calls_send_what_the_replay_sends(policy: str) -> None:
    for conv in SESSIONS:
        given = to_anthropic([m.to_openai() for m in conv.messages], thinking=True)
        parsed = anthropic.parse(given)
        state = ctxlab.ApplyState()
        for step in steps(policy, parsed, conv.tools):
            upto = origin(parsed[step.turn].id)[0]
            out = ctxlab.apply(given[:upto], policy, WINDOW, format="anthropic", state=state,
                               counter="o200k_base", tools=anthropic_tools(conv.tools))
            assert [shape(m) for m in anthropic.parse(out)] == [shape(m) for m in step.result.messages]


def test_the_state_refuses_another_policy_or_history() -> None:
    given = [m.to_openai() for m in SESSIONS[0].messages]
    first, second = calls(given)[:2]
    state = ctxlab.ApplyState()
    ctxlab.apply(given[:first], "recommended", WINDOW, state=state)
    with pytest.raises(ctxlab.integrations.StateMismatchError, match="not pi at 4,000 tokens by pi_chars4"):
        ctxlab.apply(given[:second], "pi", WINDOW, state=state)
    changed = [given[0], {"role": "user", "content": "something else"}, *given[2:second]]
    with pytest.raises(ctxlab.integrations.StateMismatchError, match="not the history this state saw"):
        ctxlab.apply(changed, "recommended", WINDOW, state=state)


def test_the_state_survives_json() -> None:
    given = [m.to_openai() for m in SESSIONS[1].messages]
    policy = "pi:trigger_reserve=1500,keep_tokens=1200"
    live, kept = ctxlab.ApplyState(), ctxlab.ApplyState()
    for upto in calls(given):
        expected = ctxlab.apply(given[:upto], policy, WINDOW, state=live)
        kept = ctxlab.ApplyState.from_json(kept.to_json())
        assert ctxlab.apply(given[:upto], policy, WINDOW, state=kept) == expected
    assert kept.calls == live.calls and "<summary>" in kept.to_json()
