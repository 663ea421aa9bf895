"""`letta`: Letta's (MemGPT) sliding-window summarizer, as a policy preset.

Source: letta-ai/letta @ 56ba9c25 (the parent of the commit that archived the V1 server):
``services/summarizer/compact.py``
(``compact_messages``: modes, fallbacks, post-check), ``summarizer_sliding_window.py``
(``summarize_via_sliding_window``), ``summarizer_config.py`` (``CompactionSettings``: mode
``sliding_window``, ``clip_chars`` 50,000, ``prompt_acknowledgement`` off),
``services/summarizer/thresholds.py`` with ``letta/constants.py``
(``SUMMARIZATION_TRIGGER_MULTIPLIER`` 0.9), ``letta/settings.py``
(``partial_evict_summarizer_percentage`` 0.30), ``letta/system.py``
(``package_summarize_message_no_counts``) and ``letta/prompts/summarizer_prompt.py``. The setting:
``CompactionSettings.sliding_window_percentage`` (from
``LETTA_SUMMARIZER_PARTIAL_EVICT_SUMMARIZER_PERCENTAGE``, 0.30), set per agent as
``compaction_settings`` when it is created or modified (``clip_chars`` only clips an LLM's summary,
so it is not a tuned knob).

- Trigger: after a step, its total tokens over ``int(0.9 x context_window)`` (``>``).
- Cutoff: the share of messages evicted starts at ``sliding_window_percentage`` (0.3) and grows by
  0.1 (the first attempt evicts 40%), each cut backed down to the nearest assistant message, until
  the system prompt and the kept messages hold fewer than 70% of the window; none found, or the
  share reaching 1.0: everything after the system prompt is summarized.
- Summary: the evicted messages (an earlier summary among them) with Letta's sliding-window prompt,
  clipped at 50,000 characters (``... [summary truncated to fit]``), as a JSON ``system_alert``
  saying how many messages were hidden, right after the system prompt.
- Post-check: still over the trigger, everything after the system prompt is summarized.

Simplifications: the trigger counts the request with its own counter (Letta reads the step's
reported total, the completion included); the cutoff counts with it too (Letta uses the model's
tokenizer, or bytes/4 x 1.3); the alert has no ``time`` field nor compaction stats, and names the
hidden messages after a summarize-all fallback too (Letta then says "prior messages"); the
fallback uses the sliding-window prompt (Letta switches to its summarize-all prompt); the summary
message is a user message (Letta has a ``summary`` role); the post-check fires above the trigger
(Letta: at it); memory blocks, self-compaction modes and approval requests are not modelled; the
offline summary takes at most ``summary_max_tokens`` (400: the prompt's 300 words, ctxlab's
reading); ``summarizer=llm`` sends Letta's prompt with ctxlab's transcript.
"""

from __future__ import annotations

from ctxlab.strategies.policy import Form, Knob, Policy, Source, Span, preset
from ctxlab.strategies.policy.conversions import param

_SHARE = "compaction_settings.sliding_window_percentage"

LETTA = preset("letta", Policy, {
    "trigger": "share", "trigger_share": 0.9, "trigger_inclusive": False, "head": "system", "tail": "evict",
    "middle": "summarize", "voice": "letta", "summary_max_tokens": 400,
    "summary_max_chars": 50_000, "placement": "after_head", "passes": 2,
}, Source("letta-ai/letta", "letta/services/summarizer/ (compact.py, summarizer_sliding_window.py, "
          "summarizer_config.py, thresholds.py); letta/constants.py; letta/settings.py; letta/system.py; "
          "letta/prompts/summarizer_prompt.py", "56ba9c25", "the archived V1 server"),
    "Letta: over 0.9 of the window, evict the oldest 40%+ of the messages (to an assistant message) until the "
    "rest fits in 70% of the window, into a clipped system_alert summary", agent="Letta", knobs=(
        Knob(_SHARE, "float", "share", default=0.3, sets=param("evict_share", float), allowed=Span(0, 1),
             searched=Span(0.1, 0.8), step=0.05, where="letta/services/summarizer/summarizer_config.py (CompactionSettings)",
             note="the share of messages eviction starts from (the first attempt evicts 0.1 more); what "
                  "is kept must fit in 1 - this of the window"),
    ), forms=(
        Form("json", "the agent's compaction_settings (agent create or modify, REST or SDK)",
             {_SHARE: ("compaction_settings", "sliding_window_percentage")},
             "letta/services/summarizer/summarizer_config.py (CompactionSettings)",
             fixed={("compaction_settings", "mode"): "sliding_window"}),
    ), source_names=(
        ("trigger, trigger_share, trigger_inclusive", "`SUMMARIZATION_TRIGGER_MULTIPLIER`, `total_tokens > threshold`"),
        ("tail, evict_share", "`summarize_via_sliding_window`, `compaction_settings.sliding_window_percentage`"),
        ("summary_max_chars", "`compaction_settings.clip_chars`"),
        ("passes", "the post-check's fallback to mode `all`"),
        ("voice", "`SLIDING_PROMPT`, `package_summarize_message_no_counts`")))
