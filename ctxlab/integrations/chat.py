"""`ctxlab.apply`: run a ctxlab policy on a plain OpenAI or Anthropic message list before a model call.

    state = ctxlab.ApplyState()
    send = ctxlab.apply(history, "recommended", 128_000, state=state)   # history: what the agent keeps
    reply = client.chat.completions.create(model=..., messages=send)

Without a state every call compresses the list it is given from scratch. With one, each call
hands the policy what it sent last time plus the messages appended since, as ctxlab's per-turn
replay does (`ctxlab.integrations.session`), so a compaction's summary stays the prefix of what is
sent; the list given must then be the same history as last time plus new messages.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from ctxlab.errors import UnknownNameError
from ctxlab.integrations import anthropic, anthropic_render, openai, report, stored
from ctxlab.integrations.session import START, PolicyLike, Runner, StateMismatchError, Tools
from ctxlab.messages import Message
from ctxlab.strategies import CompressionResult
from ctxlab.tokens import TokenCounter


class Format(NamedTuple):
    """How one API's message lists are read for a policy and written back."""

    parse: Callable[[Sequence[Any]], tuple[Message, ...]]
    render: Callable[[Sequence[Message], Sequence[Any]], list[Any]]
    tools: Callable[[Sequence[Mapping[str, Any]]], Tools]


def _anthropic_tools(tools: Sequence[Mapping[str, Any]]) -> Tools:
    """Anthropic tool definitions in the OpenAI function form ctxlab's counters read."""
    return [{"type": "function", "function": {"name": t.get("name", ""), "description": t.get("description", ""),
                                              "parameters": t.get("input_schema") or {}}} for t in tools]


FORMATS = {"openai": Format(openai.parse, openai.render, list),
           "anthropic": Format(anthropic.parse, anthropic_render.render, _anthropic_tools)}


class ApplyState:
    """What `apply` carries from one call to the next for one conversation; `apply` updates it.

    Mutable on purpose: it is the conversation's running state, handed to every call. It remembers
    the policy, window, counter and format it was first used with and refuses others.

    Attributes:
        result: the latest call's `CompressionResult` (None before the first): its ``events`` say
            what the policy did.
        calls: how many calls it has carried.
    """

    def __init__(self) -> None:
        self.result: CompressionResult | None = None
        self.calls = 0
        self._made_for: dict[str, str] | None = None
        self._stored: dict[str, Any] | None = None

    def to_json(self) -> str:
        """The state as JSON, to keep between requests (`from_json`); messages the policy sent
        untouched are stored as references to the history, not copied."""
        return json.dumps({"made_for": self._made_for, "calls": self.calls, "carry": self._stored})

    @classmethod
    def from_json(cls, text: str) -> ApplyState:
        """A state `to_json` wrote (its `result` is not kept)."""
        data = json.loads(text)
        state = cls()
        state._made_for, state.calls, state._stored = data["made_for"], data["calls"], data["carry"]
        return state

    def _bind(self, runner: Runner, format: str) -> None:
        made_for = {"runner": runner.label, "format": format}
        if self._made_for not in (None, made_for):
            raise StateMismatchError(f"this state was made for another policy, window, counter or format, not "
                                     f"{runner.strategy.name} at {runner.window:,} tokens by {runner.counter.name} "
                                     f"({format}); use a new ApplyState")
        self._made_for = made_for

def apply(messages: Sequence[Any], policy: PolicyLike, window: int, *, format: str = "openai",
          state: ApplyState | None = None, counter: str | TokenCounter | None = None,
          tools: Sequence[Mapping[str, Any]] | None = None) -> list[Any]:
    """What `policy` sends at a `window`-token model for `messages`, in the same API format.

    Args:
        messages: an OpenAI Chat Completions or Anthropic Messages list (for Anthropic, the system
            prompt as an optional first ``{"role": "system"}`` message, see
            `ctxlab.integrations.anthropic`).
        policy: any spec `ctxlab.get_strategy` takes (``"recommended"``, ``"pi:keep_tokens=12000"``,
            ``"recommended:summarizer=llm"``) or a strategy object.
        window: the model's context window in tokens.
        format: ``openai`` or ``anthropic``.
        state: an `ApplyState` carrying the policy across calls (None: compress from scratch).
        counter: the counter the window is measured with (default: the policy's own, else o200k_base).
        tools: the tool definitions sent with the request, in the format's own form (counted).

    Returns:
        The messages to send: untouched ones are the very objects given; cut ones are copies;
        summaries and markers are new.

    Raises:
        UnknownNameError: an unknown policy, parameter, counter or format.
        InvalidInputError: a malformed message (its index and why) or a tool result without its call.
        WindowTooSmallError: the window cannot hold the system prompt and tool definitions.
        StateMismatchError: `state` was made for another policy, window, counter or format, or
            `messages` is not the history it saw plus new messages.
    """
    if format not in FORMATS:
        raise UnknownNameError("message format", format, list(FORMATS))
    how = FORMATS[format]
    runner = Runner.build(policy, window, counter)
    history = how.parse(messages)
    if state is not None:
        state._bind(runner, format)
    tracked = START if state is None or state._stored is None else stored.load(state._stored, history)
    if tracked is None:
        raise StateMismatchError("the messages are not the history this state saw plus new messages "
                                 f"({len(history)} now); use a new ApplyState for another conversation")
    result, after = runner.step(history, how.tools(tools or ()), tracked.carry)
    calls = state.calls + 1 if state is not None else 1
    report.log(result, calls)
    if state is not None:
        state.result, state.calls, state._stored = result, calls, stored.dump(after)
    return how.render(result.messages, messages)


__all__ = ["FORMATS", "ApplyState", "Format", "apply"]
