"""`goose`: goose's automatic compaction, as a policy preset.

Source: block/goose ``crates/goose/src/context_mgmt/mod.rs`` @ 331a8429
(``DEFAULT_COMPACTION_THRESHOLD``, ``check_if_compaction_needed``, ``compact_messages``,
``do_compact``, ``filter_tool_responses``, the continuation texts) and
``crates/goose/src/prompts/compaction.md`` as stored @ 11453df8 (the repository is too large to
fetch whole: files read one by one from the source index).

- Trigger: the last call's total tokens over the context limit above ``GOOSE_AUTO_COMPACT_THRESHOLD``
  (0.8; ``>``; at or below 0, or at or above 1, auto-compaction is off).
- Compaction: every message goose's model sees (not the system prompt) is summarized with its
  compaction template (Goal / Constraints & Preferences / Progress / Key Decisions / Next Steps /
  Critical Context); should that request exceed the summarizer's context, it is retried without
  10%, 20%, 50%, then 100% of the tool responses, removed from the middle outward.
- Result: the summary (a user message), an assistant continuation ("...Just continue the
  conversation naturally..." when the newest user message ended the conversation, "...Continue
  calling tools as necessary..." in the middle of a tool loop), then the newest user message's text
  again. Nothing else is kept.

Simplifications: the trigger counts the request with its own counter (goose reads the last call's
reported total, its output included, not the messages appended since); the summarizer's context
is ``summary_input_tokens`` (0: the window, where the removal never triggers; goose's fast model
may have a smaller one); when even 100% removal does not fit goose fails, ctxlab summarizes what is
left; the background summarization of old tool call pairs (``GOOSE_TOOL_PAIR_SUMMARIZATION``) and
the context strategies after a failure are not modelled; the newest user message is kept as it is
(goose re-appends its text only); the offline summary takes at most ``summary_max_tokens`` (2000:
ctxlab's; goose sets none); ``summarizer=llm`` renders goose's template with ctxlab's transcript.
"""

from __future__ import annotations

from ctxlab.strategies.policy import Policy, Source, preset

GOOSE = preset("goose", Policy, {
    "trigger": "share", "trigger_share": 0.8, "trigger_inclusive": False, "head": "system", "tail": "none_body",
    "middle": "summarize", "voice": "goose", "summary_max_tokens": 2000, "summary_input_reduce": "middle_out",
    "placement": "after_head",
}, Source("block/goose", "crates/goose/src/context_mgmt/mod.rs; crates/goose/src/prompts/compaction.md",
          "331a8429 (mod.rs), 11453df8 (compaction.md)"),
    "goose: over 0.8 of the window, summarize everything (tool responses dropped middle-out if the summarizer "
    "overflows), then a continuation and the newest user message", source_names=(
        ("trigger, trigger_share, trigger_inclusive", "`GOOSE_AUTO_COMPACT_THRESHOLD` (0.8), `usage_ratio > threshold`"),
        ("tail", "`compact_messages`: every agent-visible message"),
        ("summary_input_reduce, summary_input_tokens", "`filter_tool_responses`, `removal_percentages`"),
        ("voice", "`compaction.md`, `CONVERSATION_CONTINUATION_TEXT`, `TOOL_LOOP_CONTINUATION_TEXT`")))
