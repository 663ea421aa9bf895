"""`pi`: pi-mono's coding-agent compaction, as a policy preset, with its two settings.

Source: badlogic/pi-mono @ 7ddaf150 (2026-03-14), ``packages/coding-agent/``:
``src/core/compaction/compaction.ts`` (``DEFAULT_COMPACTION_SETTINGS``, ``shouldCompact``,
``estimateTokens``, ``findCutPoint``, ``prepareCompaction``, ``compact``), ``compaction/utils.ts``
(serialization, file lists, system prompt), ``src/core/messages.ts`` (the summary message's
wrapper), ``src/core/settings-manager.ts`` and ``docs/settings.md`` (``CompactionSettings``:
numbers, no range check, in ``~/.pi/agent/settings.json`` or ``.pi/settings.json``, nested objects
merged; pi reads no environment variable for them).

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

from ctxlab.strategies.policy import Form, Knob, Policy, Source, Span, W, preset
from ctxlab.strategies.policy.conversions import param, reserve

_CORE = "packages/coding-agent/src/core"
_COMPACTION = f"{_CORE}/compaction/compaction.ts"

PI = preset("pi", Policy, {
    "head": "system", "fold_previous": True, "tail": "recent_tokens", "tail_counter": "pi_chars4", "snap": "valid_cut",
    "split_turns": True, "middle": "summarize", "voice": "pi", "placement": "after_head",
}, Source("badlogic/pi-mono", f"{_COMPACTION}, utils.ts; {_CORE}/messages.ts, settings-manager.ts", "7ddaf150"),
    "pi-mono: over window - 16384, keep ~20k recent chars/4 tokens from a valid cut, summarize the rest "
    "(split-turn prefix, update prompt, file lists)", agent="pi coding agent", knobs=(
        Knob("compaction.reserveTokens", "int", "tokens", default=16384, sets=reserve(summary_caps=True),
             allowed=Span(0, None), searched=Span(W(0.05), W(0.5), "a reserve over half the window compacts a "
                                                                    "session that is half empty"),
             step=256, where=_COMPACTION,
             note="compact when the context is over window - reserveTokens; it also caps the summary (0.8x) "
                  "and a split turn's prefix summary (0.5x). At or above the window pi compacts before every call."),
        Knob("compaction.keepRecentTokens", "int", "tokens", default=20000, sets=param("keep_tokens", int),
             allowed=Span(0, None), searched=Span(W(0.05), W(0.6), "past the trigger nothing is left to summarize"),
             step=256, where=_COMPACTION,
             note="walk back from the newest message summing chars/4 estimates until this many, then cut at a "
                  "valid cut point"),
    ), forms=(
        Form("json", "~/.pi/agent/settings.json (or .pi/settings.json in the project)",
             {"compaction.reserveTokens": ("compaction", "reserveTokens"),
              "compaction.keepRecentTokens": ("compaction", "keepRecentTokens")},
             f"{_CORE}/settings-manager.ts, packages/coding-agent/docs/settings.md",
             fixed={("compaction", "enabled"): True}),
    ), seed_counter="pi_chars4", source_names=(
        ("trigger, trigger_reserve", "`shouldCompact`, `reserveTokens`"),
        ("tail, keep_tokens, tail_counter", "`findCutPoint`, `keepRecentTokens`, `estimateTokens`"),
        ("snap, split_turns", "`findValidCutPoints`, `isSplitTurn`"),
        ("summary_max_tokens, prefix_max_tokens", "`0.8 * reserveTokens`, `0.5 * reserveTokens`")))
