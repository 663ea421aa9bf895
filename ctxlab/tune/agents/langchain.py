"""LangChain's knobs: ``SummarizationMiddleware(trigger=, keep=)``, ``ClearToolUsesEdit(trigger=,
keep=)`` and ``trim_messages(max_tokens=)``, written as the Python that builds them.

Sources: ``langchain/agents/middleware/summarization.py`` and ``context_editing.py`` as released in
langchain 1.5.0 (``ContextSize``: ``("fraction", f)`` with ``0 < f <= 1`` of the model profile's
``max_input_tokens``, ``("tokens", n)`` or ``("messages", n)`` with ``n > 0`` (``_validate_context_size``);
``trigger`` defaults to None, which never summarizes; ``keep`` to ``("messages", 20)``;
``ClearToolUsesEdit`` fields ``trigger=100_000``, ``keep=3``, ``clear_at_least=0``, unchecked ints,
clearing once the count is over ``trigger``), and ``langchain_core/messages/utils.py`` as released
in langchain-core 1.7.2 (``trim_messages``: ``max_tokens`` required). ctxlab's presets model a
``keep`` in messages only, and ``clear_at_least`` not at all, so those are not searched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxlab.errors import CtxlabError
from ctxlab.tune.convert import Conversion, fraction_or_tokens, limit, param
from ctxlab.tune.knobs import AgentKnobs, Form, Knob, Ref, Span, W

_SUMMARY = Ref("langchain-ai/langchain", "libs/langchain_v1/langchain/agents/middleware/summarization.py",
               "langchain 1.5.0")
_EDITING = Ref("langchain-ai/langchain", "libs/langchain_v1/langchain/agents/middleware/context_editing.py",
               "langchain 1.5.0")
_TRIM = Ref("langchain-ai/langchain", "libs/core/langchain_core/messages/utils.py (trim_messages)",
            "langchain-core 1.7.2")


def _keep_messages() -> Conversion:
    def encode(value: Any, window: int) -> dict[str, Any]:
        kind, amount = value
        if kind != "messages":
            raise CtxlabError(f"keep=({kind!r}, ...): ctxlab's langchain_summarization keeps messages only")
        return {"tail": "recent_messages", "keep_messages": int(amount)}

    def decode(params: Mapping[str, Any], window: int) -> Any:
        return ("messages", int(params["keep_messages"]))

    return Conversion(encode=encode, decode=decode)


def _max_tokens() -> Conversion:
    # the preset's 0 stands for "the window", which is what ctxlab passes as max_tokens
    return Conversion(encode=lambda value, window: {"keep_tokens": window if value is None else int(value)},
                      decode=lambda params, window: int(params["keep_tokens"]) or window)


LANGCHAIN_SUMMARIZATION = AgentKnobs(
    preset="langchain_summarization", agent="LangChain SummarizationMiddleware",
    knobs=(
        Knob("trigger", ("trigger", "trigger_share", "trigger_tokens"), "float", "share", allowed=Span(0, 1), searched=Span(0.3, 0.95),
             step=0.05, default=None, source=_SUMMARY, **fraction_or_tokens(),
             write=lambda x: ("fraction", x), number=lambda v, window: v[1] if v[0] == "fraction" else v[1] / window,
             note='("fraction", f) of max_input_tokens or ("tokens", n); reached when the count is >= it. '
                  "Unset (the default) never summarizes: the preset's 0.8 is the middleware docstring's example."),
        Knob("keep", ("tail", "keep_messages"), "int", "messages", allowed=Span(1, None), searched=Span(2, 60), step=1,
             default=("messages", 20), source=_SUMMARY, **_keep_messages(),
             write=lambda x: ("messages", int(x)), number=lambda v, window: v[1],
             note="the last n messages stay; a cut on tool results moves back to the AI message that called them"),
    ),
    forms=(
        Form("python", "agent middleware (langchain >= 1.0)", _SUMMARY,
             {"trigger": ("SummarizationMiddleware", "trigger"), "keep": ("SummarizationMiddleware", "keep")},
             template="from langchain.agents.middleware import SummarizationMiddleware\n\n"
                      "# model: your chat model; its profile's max_input_tokens is what a fraction is of\n"
                      "middleware = [SummarizationMiddleware(model=model, {SummarizationMiddleware})]"),
    ),
)

LANGCHAIN_CLEAR_TOOL_USES = AgentKnobs(
    preset="langchain_clear_tool_uses", agent="LangChain ContextEditingMiddleware(ClearToolUsesEdit)",
    knobs=(
        Knob("trigger", ("trigger", "trigger_tokens"), "int", "tokens", allowed=Span(0, None),
             searched=Span(W(0.2), W(1.0)), step=256, default=100_000, source=_EDITING, **limit(),
             note="clears once the counted tokens are over it (>)"),
        Knob("keep", ("mask_keep",), "int", "tool results", allowed=Span(0, None), searched=Span(0, 20), step=1,
             default=3, source=_EDITING, **param("mask_keep"), note="the newest tool results left whole"),
    ),
    forms=(
        Form("python", "agent middleware (langchain >= 1.0)", _EDITING,
             {"trigger": ("ClearToolUsesEdit", "trigger"), "keep": ("ClearToolUsesEdit", "keep")},
             template="from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware\n\n"
                      "middleware = [ContextEditingMiddleware(edits=[ClearToolUsesEdit({ClearToolUsesEdit})])]"),
    ),
)

LANGCHAIN_TRIM = AgentKnobs(
    preset="langchain_trim", agent="LangChain trim_messages",
    knobs=(
        Knob("max_tokens", ("keep_tokens",), "int", "tokens", allowed=Span(0, None), searched=Span(W(0.2), W(1.0)),
             step=256, default=None, source=_TRIM, **_max_tokens(),
             note="required by trim_messages; the preset passes the window"),
    ),
    forms=(
        Form("python", "before each model call", _TRIM, {"max_tokens": ("trim_messages", "max_tokens")},
             template="from langchain_core.messages import trim_messages\n"
                      "from langchain_core.messages.utils import count_tokens_approximately\n\n"
                      "messages = trim_messages(messages, {trim_messages}, strategy=\"last\", "
                      "token_counter=count_tokens_approximately, include_system=True, start_on=\"human\")"),
    ),
)

ENTRIES = (LANGCHAIN_SUMMARIZATION, LANGCHAIN_CLEAR_TOOL_USES, LANGCHAIN_TRIM)
