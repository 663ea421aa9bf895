"""`pi`: pi-mono's coding-agent compaction, as a policy preset.

Source: badlogic/pi-mono ``packages/coding-agent/src/core/compaction/compaction.ts`` @ 0430917881c8
(``DEFAULT_COMPACTION_SETTINGS``, ``shouldCompact``, ``estimateTokens``, ``findCutPoint``,
``prepareCompaction``, ``compact``; the same logic at 430d8328), ``compaction/utils.ts`` @ fc4b8ad2
(serialization, file lists, system prompt) and ``src/core/messages.ts`` @ 288f0d28 (the summary
message's wrapper).

- Trigger: ``contextTokens > contextWindow - reserveTokens`` (16384). pi reads ``contextTokens``
  from the provider's usage, so the preset counts with the request's own counter.
- Cut: walk back from the newest message summing ``estimateTokens`` (``ceil(chars / 4)``,
  counter ``pi_chars4``) until ``keepRecentTokens`` (20000) is reached, then cut at the first valid
  cut point at or after that message (any message but a tool result). A cut that is not a user
  message splits its turn: the turn's prefix gets its own summary (turn-prefix prompt, capped at
  ``0.5 * reserveTokens``), joined to the history summary under ``**Turn Context (split turn):**``.
- Summary: the messages before the cut, capped at ``0.8 * reserveTokens`` (13107); with an earlier
  summary the update prompt merges it; read/modified file lists (``<read-files>``,
  ``<modified-files>``) are appended and carried forward. It replaces everything before the cut as
  one user message right after the system prompt, wrapped in pi's ``<summary>`` text.

Simplifications: pi summarizes the messages since its previous compaction entry, while the
messages that entry kept are not summarized again; ctxlab sees a flat context, so everything after
the previous summary is in range. A compaction with nothing new to summarize is skipped (pi would
re-summarize the previous summary alone). The newest user message is pinned: when the cut splits
the newest turn, it stays verbatim before the kept suffix. File lists come from ctxlab's tool-call
classifier (pi only reads ``read``/``write``/``edit`` calls' ``path``). ``summarizer=llm`` sends pi's
prompts around ctxlab's transcript (tool outputs clipped to the summarizer's ``tool_output_tokens``;
pi clips them to 2000 characters).
"""

from __future__ import annotations

from ctxlab.strategies.policy import Policy, Source, preset

PI = preset("pi", Policy, {
    "trigger": "reserve", "trigger_reserve": 16384, "head": "system", "fold_previous": True,
    "tail": "recent_tokens", "keep_tokens": 20000, "tail_counter": "pi_chars4", "snap": "valid_cut",
    "split_turns": True, "middle": "summarize", "voice": "pi", "summary_max_tokens": 13107,
    "prefix_max_tokens": 8192, "placement": "after_head",
}, Source("badlogic/pi-mono", "packages/coding-agent/src/core/compaction/compaction.ts, utils.ts; "
          "src/core/messages.ts", "0430917881c8 (compaction.ts), fc4b8ad2 (utils.ts), 288f0d28 (messages.ts)"),
    "pi-mono: over window - 16384, keep ~20k recent chars/4 tokens from a valid cut, summarize the rest "
    "(split-turn prefix, update prompt, file lists)", seed_counter="pi_chars4", source_names=(
        ("trigger, trigger_reserve", "`shouldCompact`, `reserveTokens`"),
        ("tail, keep_tokens, tail_counter", "`findCutPoint`, `keepRecentTokens`, `estimateTokens`"),
        ("snap, split_turns", "`findValidCutPoints`, `isSplitTurn`"),
        ("summary_max_tokens, prefix_max_tokens", "`0.8 * reserveTokens`, `0.5 * reserveTokens`")))
