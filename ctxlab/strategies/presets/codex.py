"""`codex`: OpenAI Codex CLI's local compaction (the inline auto-compact task), as a policy preset.

Source: openai/codex ``codex-rs/core/src/compact.rs`` @ 0100b103 (``run_compact_task_inner``,
``collect_user_messages``, ``build_compacted_history_with_limit``, ``COMPACT_USER_MESSAGE_MAX_TOKENS``),
``codex-rs/core/templates/compact/prompt.md`` @ 11baefb5 and ``summary_prefix.md`` @ 50a53333,
``codex-rs/protocol/src/openai_models.rs`` @ 8db07003 (``auto_compact_token_limit``: 90% of the
context window) and ``codex-rs/utils/string/src/truncate.rs`` @ b24d7f3c (``approx_token_count``,
``truncate_middle_with_token_budget``).

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

from ctxlab.strategies.policy import Policy, Source, preset

CODEX = preset("codex", Policy, {
    "trigger": "share", "trigger_share": 0.9, "trigger_inclusive": True, "head": "system",
    "tail": "user_messages", "keep_tokens": 20000, "tail_counter": "codex_bytes4", "middle": "summarize",
    "voice": "codex", "summary_max_tokens": 2000, "placement": "end",
}, Source("openai/codex", "codex-rs/core/src/compact.rs; core/templates/compact/; protocol/src/openai_models.rs; "
          "utils/string/src/truncate.rs", "0100b103 (compact.rs), 11baefb5/50a53333 (templates), "
          "8db07003 (openai_models.rs), b24d7f3c (truncate.rs)"),
    "Codex: at 90% of the window, keep the user messages (20k bytes/4 tokens, newest first) and a "
    "hand-off summary; drop every assistant message and tool exchange", seed_counter="codex_bytes4", source_names=(
        ("trigger, trigger_share, trigger_inclusive", "`auto_compact_token_limit()`, `>=`"),
        ("tail, keep_tokens, tail_counter", "`COMPACT_USER_MESSAGE_MAX_TOKENS`, `approx_token_count`"),
        ("placement, voice", "`build_compacted_history`, `SUMMARY_PREFIX`")))
