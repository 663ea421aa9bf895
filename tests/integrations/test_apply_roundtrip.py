"""`ctxlab.apply` on OpenAI and Anthropic lists: messages the policy kept untouched come back as the
very objects given (so byte-identical), changed ones are copies, the input is never mutated, tool
calls and results stay paired, and a list the policy leaves alone comes back whole."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ctxlab
from ctxlab.integrations import anthropic, openai
from ctxlab.integrations.anthropic_render import pieces_of
from tests.integrations.chat_lists import POLICIES, anthropic_lists, openai_lists

WINDOWS = st.sampled_from([1200, 2500, 5000, 20000])
SETTINGS = settings(max_examples=60, deadline=None)


def untouched(state: ctxlab.ApplyState) -> set[str]:
    """Ids of the messages (pieces) the policy sent as they came."""
    assert state.result is not None
    return {m.id for m in state.result.messages if m.mark is None}


@SETTINGS
@given(openai_lists(), st.sampled_from(POLICIES), WINDOWS)
def test_openai_untouched_messages_come_back_as_given(messages: list[dict[str, Any]], policy: str, window: int) -> None:
    before = copy.deepcopy(messages)
    state = ctxlab.ApplyState()
    out = ctxlab.apply(messages, policy, window, state=state)
    assert messages == before, "the input was mutated"
    kept = untouched(state)
    positions = {id(m): i for i, m in enumerate(messages)}
    same = [positions[id(m)] for m in out if id(m) in positions]
    assert {f"m{i}" for i in same} == kept and same == sorted(same)
    openai.parse(out)  # valid again: every tool result follows the call it answers, every call answered


@SETTINGS
@given(anthropic_lists(), st.sampled_from(POLICIES), WINDOWS)
def test_anthropic_untouched_messages_come_back_as_given(messages: list[dict[str, Any]], policy: str,
                                                         window: int) -> None:
    before = copy.deepcopy(messages)
    state = ctxlab.ApplyState()
    out = ctxlab.apply(messages, policy, window, format="anthropic", state=state)
    assert messages == before, "the input was mutated"
    kept = untouched(state)
    whole = [i for i, m in enumerate(messages) if pieces_of(m, i) <= kept]
    positions = {id(m): i for i, m in enumerate(messages)}
    assert [positions[id(m)] for m in out if id(m) in positions] == whole
    anthropic.parse(out)  # valid again: results answer the calls of the message before, all of them
    for m in out:  # a kept assistant message keeps its thinking
        if m["role"] == "assistant" and id(m) not in positions:
            source = next(s for s in messages if s["role"] == "assistant" and _calls(s) == _calls(m))
            assert [b for b in source["content"] if b["type"] == "thinking"] == \
                [b for b in m["content"] if b["type"] == "thinking"]


@SETTINGS
@given(openai_lists(), st.booleans())
def test_a_list_the_policy_leaves_alone_comes_back_whole(messages: list[dict[str, Any]], as_anthropic: bool) -> None:
    from tests.integrations.chat_lists import to_anthropic

    given_list = to_anthropic(messages) if as_anthropic else messages
    out = ctxlab.apply(given_list, "noop", 10**6, format="anthropic" if as_anthropic else "openai")
    assert len(out) == len(given_list) and all(a is b for a, b in zip(out, given_list, strict=True))


def test_a_cut_message_keeps_the_keys_ctxlab_does_not_read() -> None:
    messages = [{"role": "developer", "content": "Be brief."}, {"role": "user", "content": "Read it."},
                {"role": "assistant", "content": None, "refusal": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "x" * 5000, "x-trace": "t1"},
                {"role": "assistant", "content": "Done."}, {"role": "user", "content": "Thanks."}]
    out = ctxlab.apply(messages, "observation_masking:attention_window=0,fallback_window=false", 100_000)
    assert out[0] is messages[0] and out[0]["role"] == "developer"
    cut = out[3]
    assert cut is not messages[3] and cut["x-trace"] == "t1" and cut["tool_call_id"] == "c1"
    assert "omitted" in cut["content"] and len(cut["content"]) < 100


def _calls(message: dict[str, Any]) -> list[str]:
    return [b["id"] for b in message["content"] if b["type"] == "tool_use"]


@pytest.mark.parametrize("policy", [n for n in ctxlab.list_strategies() if n not in ("pipeline", "policy")])
def test_every_policy_marks_what_it_changed(policy: str) -> None:
    """`apply` hands back the caller's own object for every message a policy left unmarked, so no
    policy may change a message without marking it: checked call by call on a sample session."""
    session = next(ctxlab.load_conversations("sample:agent_sessions"))
    given = [m.to_openai() for m in session.messages]
    state = ctxlab.ApplyState()
    for upto in [i for i, m in enumerate(given) if m["role"] == "assistant" and i]:
        history = {m.id: m for m in openai.parse(given[:upto])}
        ctxlab.apply(given[:upto], policy, 3000, state=state, tools=session.tools)
        assert state.result is not None
        assert all(m == history[m.id] for m in state.result.messages if m.mark is None)
