"""`codex`: OpenAI Codex CLI's local compaction (the inline auto-compact task), as a policy preset,
with its one setting.

Source: openai/codex ``codex-rs/core/src/compact.rs`` @ 0100b103 (``run_compact_task_inner``,
``collect_user_messages``, ``build_compacted_history_with_limit``, ``COMPACT_USER_MESSAGE_MAX_TOKENS``),
``codex-rs/core/templates/compact/prompt.md`` @ 11baefb5 and ``summary_prefix.md`` @ 50a53333,
``codex-rs/protocol/src/openai_models.rs`` @ 8db07003 (``auto_compact_token_limit``: 90% of the
context window), ``codex-rs/core/src/models_manager/model_info.rs`` @ 2f83b5db
(``with_config_overrides``: ``model_auto_compact_token_limit`` in ``~/.codex/config.toml`` becomes
the model's limit) and ``codex-rs/utils/string/src/truncate.rs`` @ b24d7f3c (``approx_token_count``,
``truncate_middle_with_token_budget``); the config reference
(developers.openai.com/codex/config-reference). Each file at its own commit: the repository is over
this machine's fetch limit, so no one commit could be checked for all of them. ``-c key=value``
overrides a config key on the command line; Codex reads no environment variable for it. Later
releases take the smaller of the configured value and 90% of the window (as read by others from
rust-v0.154.0, not confirmed here), so ctxlab searches at or below 90%.

- Trigger: the token usage the provider reports reaches ``context_window * 9 / 10``
  (``total_usage_tokens >= auto_compact_limit``): the request's own counter, inclusive.
- Rebuild: the initial context (here the system prompt), then the real user messages (no earlier
  summary) from the newest back while they fit in 20,000 tokens counted as ``ceil(bytes / 4)``
  (``codex_bytes4``), the one that overflows truncated to the remainder (``…N tokens truncated…``),
  in their original order, then the hand-off summary as a user message: Codex's summary prefix,
  a newline, the summary. Every assistant message, tool call and tool output is dropped.
- Summary: the whole history (earlier summaries included) summarized with Codex's compaction prompt.

Simplifications: the newest user message is pinned whole (Codex truncates it too when it alone
exceeds the cap). Codex lets the model write as long a summary as it likes; ctxlab caps it at
``summary_max_tokens`` (2000). Ghost snapshots and the remote (``/responses/compact``) path are not
modelled; a list-content user message is counted with its parts joined without a separator.
"""

from __future__ import annotations

from ctxlab.strategies.policy import Form, Knob, Policy, Source, Span, W, preset
from ctxlab.strategies.policy.conversions import limit

_DOCS = Source("https://developers.openai.com/codex/config-reference", "model_auto_compact_token_limit", "read 2026-11")
_LIMIT = "model_auto_compact_token_limit"

CODEX = preset("codex", Policy, {
    "trigger_inclusive": True, "head": "system", "tail": "user_messages", "keep_tokens": 20000,
    "tail_counter": "codex_bytes4", "middle": "summarize", "voice": "codex", "summary_max_tokens": 2000,
    "placement": "end",
}, Source("openai/codex", "codex-rs/core/src/compact.rs; core/templates/compact/; protocol/src/openai_models.rs; "
          "core/src/models_manager/model_info.rs; utils/string/src/truncate.rs",
          "0100b103 (compact.rs), 11baefb5/50a53333 (templates), 8db07003 (openai_models.rs), "
          "2f83b5db (model_info.rs), b24d7f3c (truncate.rs)"),
    "Codex: at 90% of the window, keep the user messages (20k bytes/4 tokens, newest first) and a "
    "hand-off summary; drop every assistant message and tool exchange", agent="OpenAI Codex CLI", knobs=(
        Knob(_LIMIT, "int", "tokens", default=None, sets=limit(unset={"trigger": "share", "trigger_share": 0.9}),
             allowed=Span(1, None), searched=Span(W(0.3), W(0.9), "later releases cap it at 90% of the window"),
             step=256, where=Source("openai/codex", "codex-rs/protocol/src/openai_models.rs (auto_compact_token_limit)",
                                    "8db07003"),
             note="unset: 90% of the context window (context_window * 9 / 10); compacts when the reported "
                  "usage reaches it (>=)"),
    ), forms=(
        Form("toml", "~/.codex/config.toml (top-level key, before any table)", {_LIMIT: (_LIMIT,)}, _DOCS,
             template="# ~/.codex/config.toml"),
        Form("cli", "one run, on the command line", {_LIMIT: ("-c", _LIMIT)},
             Source("openai/codex", "codex-rs/core/src/models_manager/model_info.rs (with_config_overrides)",
                    "2f83b5db"), template="codex"),
    ), seed_counter="codex_bytes4", source_names=(
        ("trigger, trigger_share, trigger_inclusive", "`auto_compact_token_limit()`, `>=`"),
        ("tail, keep_tokens, tail_counter", "`COMPACT_USER_MESSAGE_MAX_TOKENS`, `approx_token_count`"),
        ("placement, voice", "`build_compacted_history`, `SUMMARY_PREFIX`")))
