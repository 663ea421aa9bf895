"""LangChain's three context policies as presets: `langchain_trim`, `langchain_summarization`,
`langchain_clear_tool_uses`.

Sources: langchain-ai/langchain ``libs/core/langchain_core/messages/utils.py`` as released in
langchain-core 1.7.2 (``trim_messages``, ``count_tokens_approximately``), and
``libs/langchain_v1/langchain/agents/middleware/summarization.py`` and ``context_editing.py`` as
released in langchain 1.5.0. LangChain counts with ``count_tokens_approximately``
(``langchain_approx``; ``langchain_approx_claude``, 3.3 characters per token, is what
SummarizationMiddleware picks for Anthropic models).

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

from ctxlab.strategies.policy import Policy, Source, preset

_CORE = "langchain-core 1.7.2"
_V1 = "langchain 1.5.0"

LANGCHAIN_TRIM = preset("langchain_trim", Policy, {
    "trigger": "always", "head": "first_system", "tail": "fit", "tail_counter": "langchain_approx",
    "start_on_user": True, "middle": "drop",
}, Source("langchain-ai/langchain", "libs/core/langchain_core/messages/utils.py (trim_messages)", _CORE),
    "LangChain trim_messages(strategy='last', include_system=True, start_on='human'): the newest messages "
    "that fit, no tool-pair repair", breaks_tool_pairs=True, drops_pinned=True, seed_counter="langchain_approx",
    source_names=(("head", "`include_system=True`"), ("tail", '`strategy="last"`, `max_tokens` = the window'),
                  ("start_on_user", '`start_on="human"`'), ("tail_counter", "`count_tokens_approximately`")))

LANGCHAIN_SUMMARIZATION = preset("langchain_summarization", Policy, {
    "trigger": "share", "trigger_share": 0.8, "trigger_inclusive": True, "trigger_counter": "langchain_approx",
    "head": "system", "tail": "recent_messages", "keep_messages": 20, "snap": "owner", "middle": "summarize",
    "voice": "langchain", "summary_input_tokens": 4000, "summary_max_tokens": 2000, "placement": "after_head",
}, Source("langchain-ai/langchain", "libs/langchain_v1/langchain/agents/middleware/summarization.py", _V1,
          "trigger 0.8 of the window is ctxlab's choice"),
    "LangChain SummarizationMiddleware: keep the last 20 messages (cut moved to the calling AI message), "
    "summarize the rest's last 4,000 tokens", seed_counter="langchain_approx",
    source_names=(("trigger, trigger_share", '`trigger` (none by default; ("fraction", 0.8) from its docstring)'),
                  ("tail, keep_messages", '`keep=("messages", 20)`'), ("snap", "`_find_safe_cutoff_point`"),
                  ("summary_input_tokens", "`_DEFAULT_TRIM_TOKEN_LIMIT`")))

LANGCHAIN_CLEAR_TOOL_USES = preset("langchain_clear_tool_uses", Policy, {
    "trigger": "tokens", "trigger_tokens": 100000, "trigger_counter": "langchain_approx", "head": "system",
    "tail": "all", "middle": "mask", "mask_keep": 3, "mask_placeholder": "[cleared]", "mask_order": "results",
}, Source("langchain-ai/langchain", "libs/langchain_v1/langchain/agents/middleware/context_editing.py", _V1),
    "LangChain ClearToolUsesEdit: over 100,000 tokens, every tool result but the last 3 becomes '[cleared]'",
    seed_counter="langchain_approx", source_names=(("trigger, trigger_tokens", "`trigger` (100,000 tokens)"),
                                                   ("middle", "`ClearToolUsesEdit` (`keep=3`, `placeholder='[cleared]'`: "
                                                              "the policy model's own mask defaults)")))
