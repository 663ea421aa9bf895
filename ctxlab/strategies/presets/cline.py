"""`cline`: Cline's agentic context compaction (the SDK's default strategy), as a policy preset.

Source: cline/cline @ 21cb8d25 (release v0.0.78), ``sdk/packages/core/src/extensions/context/``:
``compaction.ts`` (``createContextCompactionPrepareTurn``: the trigger and targets,
before every model request), ``compaction-shared.ts`` (ratios, ``findCutIndex``,
``buildSummaryRequest``, ``ensureFilesSection``, ``buildSummaryMessage``), ``agentic-compaction.ts``
(``runAgenticCompaction``, ``generateSummary``) and ``sdk/packages/shared/src/llms/tokens.ts``
(``estimateTokens``: ``max(1, ceil(JSON chars / 3))``, counter ``cline_json3``); the setting in
``sdk/packages/core/src/types/config.ts`` (``CoreCompactionConfig``: ``enabled``, ``strategy``
(``agentic``, ``basic``), ``preserveRecentTokens``) and ``compaction-shared.ts``
(``DEFAULT_PRESERVE_RECENT_TOKENS`` 20,000); the SDK session config is code, written here as the
``compaction`` object's JSON.

- Trigger: the request's estimate reaches 0.9 of the max input (``>=``); the max input is the
  model's input limit, or 0.9 of its context window when only the window is known (always the case
  here, the budget playing the window): 0.81 of the window.
- Kept part: walking back from the newest message until ``preserveRecentTokens`` (20,000) are
  reached, at most what the target leaves for messages (0.7 of the trigger, or half the max input
  once the conversation has 5 exchanges and the model's max output is known and smaller, less the
  request's overhead); never past the newest typed user message (that turn stays whole); the cut
  backed to an assistant message or a typed user message, never a tool result.
- Summary: the messages after the previous summary and before the cut, tool results cut to 2,000
  characters (``...[truncated N chars]``), summarized into Goal / State / Highlights / Next / Files
  with the previous summary handed over; ``## Files`` lists the files read and modified when the
  summary has none; at most 4,096 tokens; sent as a user message ``Context summary:`` first.

Simplifications: Cline estimates the request as one ceiling over its JSON (here the sum of the
messages', at most a token more per message) and the messages in its Anthropic-style shape
(`ctxlab.tokens.agent_shapes.cline_shape`); the summarizer input's budget projection is reduced to
the 2,000-character cut; the appended ``## Files`` block also carries the previous summary's
lists (Cline leaves those to the model); the ``basic`` strategy and overflow recovery are not
modelled; the newest user message is pinned; ``summarizer=llm`` sends Cline's request around
ctxlab's transcript.
"""

from __future__ import annotations

from ctxlab.strategies.policy import Form, Knob, Policy, Source, Span, W, preset
from ctxlab.strategies.policy.conversions import param

_CONFIG = "sdk/packages/core/src/types/config.ts (CoreCompactionConfig)"

CLINE = preset("cline", Policy, {
    "trigger": "share", "trigger_share": 0.81, "trigger_inclusive": True, "trigger_counter": "cline_json3",
    "head": "system", "fold_previous": True, "tail": "safe_cut", "tail_counter": "cline_json3",
    "middle": "summarize", "voice": "cline", "summary_max_tokens": 4096, "placement": "after_head",
}, Source("cline/cline", "sdk/packages/core/src/extensions/context/compaction.ts, compaction-shared.ts, "
          "agentic-compaction.ts; sdk/packages/shared/src/llms/tokens.ts; sdk/packages/core/src/types/config.ts",
          "21cb8d25"),
    "Cline: at 0.9 of 0.9 of the window (JSON/3), keep the newest 20k tokens from a safe boundary (the newest "
    "typed turn whole), summarize the rest into a Context summary with its files", agent="Cline (SDK)", knobs=(
        Knob("compaction.preserveRecentTokens", "int", "tokens", default=20_000, sets=param("keep_tokens"),
             allowed=Span(0, None), searched=Span(W(0.02), W(0.5), "the kept part never exceeds the compaction target"),
             step=256, where=_CONFIG, note="the newest tokens kept verbatim (at most what the compaction target leaves)"),
    ), forms=(
        Form("json", "the Cline SDK session config's compaction object (CoreSessionConfig)",
             {"compaction.preserveRecentTokens": ("compaction", "preserveRecentTokens")}, _CONFIG,
             fixed={("compaction", "enabled"): True, ("compaction", "strategy"): "agentic"}),
    ), seed_counter="cline_json3", source_names=(
        ("trigger, trigger_share, trigger_inclusive", "`COMPACTION_TRIGGER_RATIO` x `CONTEXT_WINDOW_INPUT_RATIO`, `>=`"),
        ("trigger_counter, tail_counter", "`estimateTokens` (`CHARS_PER_TOKEN` 3)"),
        ("tail, keep_tokens", "`findCutIndex`, `compaction.preserveRecentTokens`"),
        ("fold_previous", "`previousSummary`"),
        ("summary_max_tokens", "`DEFAULT_SUMMARY_MAX_OUTPUT_TOKENS`, `compaction.summarizer.maxOutputTokens`"),
        ("voice", "`buildSummaryRequest`, `buildSummaryMessage`, `TOOL_RESULT_CHAR_LIMIT`")))
