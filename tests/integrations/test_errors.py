"""Every bad input to `ctxlab.apply` and the middleware stops with one clear line (a CtxlabError)."""

from __future__ import annotations

from typing import Any

import pytest

import ctxlab
from ctxlab.errors import CtxlabError, InvalidInputError, UnknownNameError
from ctxlab.integrations import StateMismatchError, WindowTooSmallError

SYSTEM = {"role": "system", "content": "You are a careful coding agent. " * 40}
CALL = {"role": "assistant", "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]}
RESULT = {"role": "tool", "tool_call_id": "c1", "content": "ok"}
USE = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {}}]}


def tool_result(call_id: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "ok"}]}


CASES = [
    # (messages, policy, window, format, error type, what the message says)
    ([SYSTEM, {"role": "user", "content": "hi"}], "no_such_policy", 8000, "openai", UnknownNameError,
     "unknown strategy 'no_such_policy'; valid: "),
    ([SYSTEM, {"role": "user", "content": "hi"}], "pi:keep_tokenz=5", 8000, "openai", UnknownNameError,
     "unknown parameter"),
    ([SYSTEM, {"role": "user", "content": "hi"}], "recommended", 8000, "gemini", UnknownNameError,
     "unknown message format 'gemini'; valid: anthropic, openai"),
    ([SYSTEM, {"role": "user", "content": "hi"}], "recommended", 100, "openai", WindowTooSmallError,
     "window 100 is smaller than the system prompt and tool definitions (2"),
    ([SYSTEM, {"role": "user", "content": "hi"}], "recommended", 0, "openai", CtxlabError,
     "window must be a positive number of tokens, not 0"),
    ([SYSTEM, {"role": "user", "content": "hi"}, {"role": "bot", "content": "x"}], "recommended", 8000, "openai",
     InvalidInputError, "message 2 has unknown role 'bot'"),
    ([SYSTEM, {"role": "user"}], "recommended", 8000, "openai", InvalidInputError, "message 1 (user) has no content"),
    ([SYSTEM, {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}], "recommended", 8000,
     "openai", InvalidInputError, "message 1 has an unsupported content part ('image_url'; only text parts)"),
    ({"role": "user", "content": "hi"}, "recommended", 8000, "openai", InvalidInputError,
     "messages must be a list of message objects, not dict"),
    ([SYSTEM, {"role": "user", "content": "hi"}, RESULT], "recommended", 8000, "openai", InvalidInputError,
     "message 2 is an orphan tool result (no call 'c1' before it)"),
    ([SYSTEM, {"role": "user", "content": "hi"}, CALL, {"role": "user", "content": "?"}], "recommended", 8000, "openai",
     InvalidInputError, "message 3: tool call(s) ['c1'] were never answered"),
    ([SYSTEM, {"role": "user", "content": "hi"}, tool_result("t9")], "recommended", 8000, "anthropic",
     InvalidInputError, "message 2 block 0: tool_result for 't9' has no tool_use in the assistant message before it"),
    ([{"role": "user", "content": "hi"}, USE, {"role": "user", "content": "go on"}], "recommended", 8000, "anthropic",
     InvalidInputError, "message 1: tool_use ['t1'] not answered by a tool_result in the message after it"),
    ([{"role": "user", "content": "hi"}, SYSTEM], "recommended", 8000, "anthropic", InvalidInputError,
     "message 1: only the first message may be the system prompt"),
    ([{"role": "user", "content": [{"type": "image", "source": {}}]}], "recommended", 8000, "anthropic",
     InvalidInputError, "message 0 block 0: a 'image' block is not supported"),
    ([{"role": "user", "content": "hi"}, USE, {"role": "user", "content": [{"type": "text", "text": "x"},
                                                                           tool_result("t1")["content"][0]]}],
     "recommended", 8000, "anthropic", InvalidInputError, "message 2 block 1: a 'tool_result' block comes after text"),
    ([{"role": "user", "content": 7}], "recommended", 8000, "anthropic", InvalidInputError,
     "message 0: content must be text or a list of typed blocks"),
]


@pytest.mark.parametrize(("messages", "policy", "window", "fmt", "error", "says"), CASES,
                         ids=[f"{c[3]}-{c[4].__name__}-{i}" for i, c in enumerate(CASES)])
def test_bad_input_is_one_clear_line(messages: Any, policy: str, window: int, fmt: str, error: type, says: str) -> None:
    with pytest.raises(error) as caught:
        ctxlab.apply(messages, policy, window, format=fmt)
    assert isinstance(caught.value, CtxlabError)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_a_state_is_for_one_format() -> None:
    state = ctxlab.ApplyState()
    ctxlab.apply([{"role": "user", "content": "hi"}], "recommended", 8000, state=state)
    with pytest.raises(StateMismatchError, match=r"not recommended at 8,000 tokens by o200k_base \(anthropic\)"):
        ctxlab.apply([{"role": "user", "content": "hi"}], "recommended", 8000, state=state, format="anthropic")
