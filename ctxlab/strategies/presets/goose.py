"""`goose`: goose's automatic compaction, as a policy preset.

Source: block/goose ``crates/goose/src/context_mgmt/mod.rs`` @ 331a8429
(``DEFAULT_COMPACTION_THRESHOLD``, ``check_if_compaction_needed``, ``compact_messages``,
``do_compact``, ``filter_tool_responses``, the continuation texts) and
``crates/goose/src/prompts/compaction.md`` as stored @ 11453df8 (the repository is too large to
fetch whole: files read one by one from the source index). The setting is read with
``get_param("GOOSE_AUTO_COMPACT_THRESHOLD")``: the environment variable first, then ``config.yaml``;
at or below 0, or at or above 1, auto-compaction is off, which ctxlab's trigger cannot say: the
tuner searches inside.

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

from ctxlab.strategies.policy import Form, Knob, Policy, Source, Span, preset
from ctxlab.strategies.policy.conversions import share

_THRESHOLD = "GOOSE_AUTO_COMPACT_THRESHOLD"
_MOD = Source("block/goose", "crates/goose/src/context_mgmt/mod.rs", "331a8429")

GOOSE = preset("goose", Policy, {
    "head": "system", "tail": "none_body",
    "middle": "summarize", "voice": "goose", "summary_max_tokens": 2000, "summary_input_reduce": "middle_out",
    "placement": "after_head",
}, Source("block/goose", "crates/goose/src/context_mgmt/mod.rs; crates/goose/src/prompts/compaction.md",
          "331a8429 (mod.rs), 11453df8 (compaction.md)"),
    "goose: over 0.8 of the window, summarize everything (tool responses dropped middle-out if the summarizer "
    "overflows), then a continuation and the newest user message", agent="goose", knobs=(
        Knob(_THRESHOLD, "float", "share", default=0.8, sets=share(inclusive=False), allowed=Span(0, 1),
             searched=Span(0.3, 0.95), step=0.05, where=_MOD,
             note="compact when usage / context limit is over it (>); 0 or 1 turn it off"),
    ), forms=(
        Form("env", "the environment goose starts in", {_THRESHOLD: (_THRESHOLD,)}, _MOD,
             text_values=True),
        Form("yaml", "~/.config/goose/config.yaml", {_THRESHOLD: (_THRESHOLD,)}, _MOD),
    ), source_names=(
        ("trigger, trigger_share, trigger_inclusive", "`GOOSE_AUTO_COMPACT_THRESHOLD` (0.8), `usage_ratio > threshold`"),
        ("tail", "`compact_messages`: every agent-visible message"),
        ("summary_input_reduce, summary_input_tokens", "`filter_tool_responses`, `removal_percentages`"),
        ("voice", "`compaction.md`, `CONVERSATION_CONTINUATION_TEXT`, `TOOL_LOOP_CONTINUATION_TEXT`")))
