"""LangChain's three context policies as presets, with their settings: `langchain_trim`,
`langchain_summarization`, `langchain_clear_tool_uses`.

Sources: langchain-ai/langchain ``libs/core/langchain_core/messages/utils.py`` as released in
langchain-core 1.7.2 (``trim_messages``, ``count_tokens_approximately``), and
``libs/langchain_v1/langchain/agents/middleware/summarization.py`` and ``context_editing.py`` as
released in langchain 1.5.0. LangChain counts with ``count_tokens_approximately``
(``langchain_approx``; ``langchain_approx_claude``, 3.3 characters per token, is what
SummarizationMiddleware picks for Anthropic models). The settings, written as the Python that builds
them: ``ContextSize`` is ``("fraction", f)`` with ``0 < f <= 1`` of the model profile's
``max_input_tokens``, ``("tokens", n)`` or ``("messages", n)`` with ``n > 0``
(``_validate_context_size``); ``SummarizationMiddleware``'s ``keep`` defaults to ``("messages",
20)``; ``ClearToolUsesEdit``'s ``trigger``, ``keep`` and ``clear_at_least`` are unchecked ints;
``trim_messages`` requires ``max_tokens``. ctxlab models a ``keep`` in messages only, and
``clear_at_least`` not at all, so those are not searched.

`langchain_trim`: ``trim_messages(strategy="last", include_system=True, start_on="human",
token_counter=count_tokens_approximately, max_tokens=<window>)`` before every model call: the
longest suffix that fits, then the oldest kept messages dropped until a human message opens it.
Faithful, so it declares what ctxlab's invariants forbid: with ``start_on_user=false`` a kept suffix
can open with tool results whose call was trimmed (``breaks_tool_pairs``), and when everything after
the newest user message does not fit (a long tool loop) the result is the system message alone
(``drops_pinned``); both are reported in events. ``include_system`` keeps the first message only.

`langchain_summarization`: ``SummarizationMiddleware(trigger=("fraction", 0.8),
keep=("messages", 20))``: LangChain has no default trigger (None never summarizes); 0.8 of the
window is ctxlab's choice, from the middleware's own docstring example. Above it, everything but
the last 20 messages is summarized; a cut on tool results moves back to the AI message that made
the calls (``_find_safe_cutoff_point``). The summarizer input is first trimmed to its last 4,000
tokens (``trim_messages(..., start_on="human", allow_partial=True, include_system=True)``); the
summary is a human message "Here is a summary of the conversation to date:" placed first (after
the system prompt, which LangChain keeps outside the messages). An earlier summary is summarized
again with the rest (rolling). Not modelled: the provider-reported token check, usage-metadata
scaling (ctxlab messages carry no usage), the overflow retry and ``TriggerClause`` combinations.

`langchain_clear_tool_uses`: ``ContextEditingMiddleware(edits=[ClearToolUsesEdit()])`` with the
defaults ``trigger=100_000``, ``keep=3``, ``clear_at_least=0``, ``clear_tool_inputs=False``,
``placeholder="[cleared]"``: once the messages count more than 100,000 tokens, every tool result
but the last 3 is replaced by the placeholder (a result is cleared only when the AI message before
it made the call). LangChain applies the edit to a copy for each model call; ctxlab's per-turn
replay carries the cleared copies forward, which clears the same results.

All three count the system prompt too (LangChain's agent keeps it outside the counted messages).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxlab.errors import CtxlabError
from ctxlab.strategies.policy import Form, Knob, Policy, Source, Span, W, preset
from ctxlab.strategies.policy.conversions import Conversion, fraction_or_tokens, limit, param

_CORE = "langchain-core 1.7.2"
_V1 = "langchain 1.5.0"
_MIDDLEWARE = "libs/langchain_v1/langchain/agents/middleware"


def _keep_messages() -> Conversion:
    def encode(value: Any, window: int) -> dict[str, Any]:
        kind, amount = value
        if kind != "messages":
            raise CtxlabError(f"keep=({kind!r}, ...): ctxlab's langchain_summarization keeps messages only")
        return {"tail": "recent_messages", "keep_messages": int(amount)}

    def decode(params: Mapping[str, Any], window: int) -> Any:
        return ("messages", int(params["keep_messages"]))

    return Conversion(encode, decode, ("tail", "keep_messages"))


def _max_tokens() -> Conversion:
    # keep_tokens 0 stands for "the window", which is what ctxlab passes as max_tokens
    return Conversion(lambda value, window: {"keep_tokens": 0 if value is None else int(value)},
                      lambda params, window: int(params["keep_tokens"]) or window, ("keep_tokens",))


def _middleware(cls: str, file: str, template: str) -> Form:
    """The Python that adds a middleware whose ``trigger`` and ``keep`` are the knobs."""
    return Form("python", "agent middleware (langchain >= 1.0)", {"trigger": (cls, "trigger"), "keep": (cls, "keep")},
                f"{_MIDDLEWARE}/{file}", template=template)


LANGCHAIN_TRIM = preset("langchain_trim", Policy, {
    "trigger": "always", "head": "first_system", "tail": "fit", "tail_counter": "langchain_approx",
    "start_on_user": True, "middle": "drop",
}, Source("langchain-ai/langchain", "libs/core/langchain_core/messages/utils.py (trim_messages)", _CORE),
    "LangChain trim_messages(strategy='last', include_system=True, start_on='human'): the newest messages "
    "that fit, no tool-pair repair", agent="LangChain trim_messages", knobs=(
        Knob("max_tokens", "int", "tokens", default=None, sets=_max_tokens(), allowed=Span(0, None),
             searched=Span(W(0.2), W(1.0)), step=256, where="libs/core/langchain_core/messages/utils.py (trim_messages)",
             note="required by trim_messages; the preset passes the window"),
    ), forms=(
        Form("python", "before each model call", {"max_tokens": ("trim_messages", "max_tokens")},
             "libs/core/langchain_core/messages/utils.py (trim_messages)",
             template="from langchain_core.messages import trim_messages\n"
                      "from langchain_core.messages.utils import count_tokens_approximately\n\n"
                      "messages = trim_messages(messages, {trim_messages}, strategy=\"last\", "
                      "token_counter=count_tokens_approximately, include_system=True, start_on=\"human\")"),
    ), breaks_tool_pairs=True, drops_pinned=True, seed_counter="langchain_approx",
    source_names=(("head", "`include_system=True`"), ("tail", '`strategy="last"`, `max_tokens` = the window'),
                  ("start_on_user", '`start_on="human"`'), ("tail_counter", "`count_tokens_approximately`")))

LANGCHAIN_SUMMARIZATION = preset("langchain_summarization", Policy, {
    "trigger_inclusive": True, "trigger_counter": "langchain_approx", "head": "system", "snap": "owner",
    "middle": "summarize", "voice": "langchain", "summary_input_tokens": 4000, "summary_max_tokens": 2000,
    "placement": "after_head",
}, Source("langchain-ai/langchain", f"{_MIDDLEWARE}/summarization.py", _V1,
          "trigger 0.8 of the window is ctxlab's choice"),
    "LangChain SummarizationMiddleware: keep the last 20 messages (cut moved to the calling AI message), "
    "summarize the rest's last 4,000 tokens", agent="LangChain SummarizationMiddleware", knobs=(
        Knob("trigger", "float", "share", default=None, sets=fraction_or_tokens(), allowed=Span(0, 1),
             searched=Span(0.3, 0.95), step=0.05, where=f"{_MIDDLEWARE}/summarization.py",
             write=lambda x: ("fraction", x), number=lambda v, window: v[1] if v[0] == "fraction" else v[1] / window,
             note='("fraction", f) of max_input_tokens or ("tokens", n); reached when the count is >= it. '
                  "Unset (the default) never summarizes: the preset's 0.8 is the middleware docstring's example.",
             replayed=("fraction", 0.8)),
        Knob("keep", "int", "messages", default=("messages", 20), sets=_keep_messages(), allowed=Span(1, None),
             searched=Span(2, 60), step=1, where=f"{_MIDDLEWARE}/summarization.py",
             write=lambda x: ("messages", int(x)), number=lambda v, window: v[1],
             note="the last n messages stay; a cut on tool results moves back to the AI message that called them"),
    ), forms=(
        _middleware("SummarizationMiddleware", "summarization.py",
                    "from langchain.agents.middleware import SummarizationMiddleware\n\n"
                    "# model: your chat model; its profile's max_input_tokens is what a fraction is of\n"
                    "middleware = [SummarizationMiddleware(model=model, {SummarizationMiddleware})]"),
    ), seed_counter="langchain_approx",
    source_names=(("trigger, trigger_share", '`trigger` (none by default; ("fraction", 0.8) from its docstring)'),
                  ("tail, keep_messages", '`keep=("messages", 20)`'), ("snap", "`_find_safe_cutoff_point`"),
                  ("summary_input_tokens", "`_DEFAULT_TRIM_TOKEN_LIMIT`")))

LANGCHAIN_CLEAR_TOOL_USES = preset("langchain_clear_tool_uses", Policy, {
    "trigger_counter": "langchain_approx", "head": "system", "tail": "all", "middle": "mask",
    "mask_placeholder": "[cleared]", "mask_order": "results",
}, Source("langchain-ai/langchain", f"{_MIDDLEWARE}/context_editing.py", _V1),
    "LangChain ClearToolUsesEdit: over 100,000 tokens, every tool result but the last 3 becomes '[cleared]'",
    agent="LangChain ContextEditingMiddleware(ClearToolUsesEdit)", knobs=(
        Knob("trigger", "int", "tokens", default=100_000, sets=limit(), allowed=Span(0, None),
             searched=Span(W(0.2), W(1.0)), step=256, where=f"{_MIDDLEWARE}/context_editing.py",
             note="clears once the counted tokens are over it (>)"),
        Knob("keep", "int", "tool results", default=3, sets=param("mask_keep"), allowed=Span(0, None),
             searched=Span(0, 20), step=1, where=f"{_MIDDLEWARE}/context_editing.py",
             note="the newest tool results left whole"),
    ), forms=(
        _middleware("ClearToolUsesEdit", "context_editing.py",
                    "from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware\n\n"
                    "middleware = [ContextEditingMiddleware(edits=[ClearToolUsesEdit({ClearToolUsesEdit})])]"),
    ), seed_counter="langchain_approx", source_names=(
        ("trigger, trigger_tokens", "`trigger` (100,000 tokens)"),
        ("middle", "`ClearToolUsesEdit` (`keep=3`, `placeholder='[cleared]'`: the policy model's own mask defaults)")))
