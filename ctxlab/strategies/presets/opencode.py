"""`opencode`: opencode's overflow compaction and tool-output prune (the classic session code), as a
policy preset.

Source: anomalyco/opencode ``packages/opencode/src/session/compaction.ts`` @ fd78ec63
(``isOverflow``, ``prune`` with ``PRUNE_PROTECT`` 40,000, ``PRUNE_MINIMUM`` 20,000,
``PRUNE_PROTECTED_TOOLS``, ``process`` with the default prompt and the auto-continue message),
``session/message-v2.ts`` (``toModelMessage``: a pruned output is sent as "[Old tool result content
cleared]" @ c4794191; in the versions with a compaction part, ``toModelMessages`` sends that part
as "What did we do so far?"), ``session/prompt.ts`` (``prune`` when the loop ends; the overflow
check on the last finished step before the next) and ``util/token.ts`` (``Token.estimate``:
``max(0, round(chars / 4))``, counter ``opencode_chars4``). The source index holds no single commit
with every file (the repository is too large to fetch whole); these are the versions read.

- Prune, when a turn ends (here: every call, over the history before the newest user message):
  newest first, the 2 newest user turns skipped, ``skill`` outputs exempt, the scan ending at an
  output already cleared or at a summary; the first 40,000 output tokens are protected, the
  output crossing that line and all older ones are collected; when they total more than 20,000
  each becomes "[Old tool result content cleared]".
- Trigger: the last step's usage reaches the input limit less ``min(20,000, max output)``
  (``compaction.reserved``); here the window plays the input limit and the reply's room is at
  most the model's max output tokens.
- Compaction: the whole conversation (not the system prompt) is summarized with opencode's prompt
  (Goal / Instructions / Discoveries / Accomplished / Relevant files / directories); the model then
  sees the compaction request "What did we do so far?", the summary as its own (assistant)
  answer, and "Continue if you have next steps, or stop and ask for clarification if you are
  unsure how to proceed."; nothing older is kept. A later compaction summarizes from the previous
  summary on.

Not modelled: newer opencode (sst/opencode ``compaction.ts`` @ 3df4a255) keeps a verbatim tail of
recent turns (``tail_turns``, ``preserve_recent_tokens``), summarizes with another template
(Objective / Important Details / Work State / Next Move / Relevant Files) and prunes only when
``compaction.prune`` is set; overflow retries and plugin hooks. Simplifications: the trigger counts
the request with its own counter (opencode reads the last step's usage, its output included, and
not the messages appended since); the pruned state is recomputed on each call from ctxlab's
messages (opencode stores it); ctxlab keeps the newest user message (opencode summarizes it away),
before the compaction request; the offline summary is capped at ``summary_max_tokens`` (2000:
ctxlab's; opencode sets none); ``summarizer=llm`` sends opencode's prompt after ctxlab's transcript.
"""

from __future__ import annotations

from ctxlab.strategies.policy import Form, Knob, Policy, Source, Span, W, preset
from ctxlab.strategies.policy.conversions import flag, reserve
from ctxlab.summarize.agent_prompts import OPENCODE_PLACEHOLDER

_COMPACTION = Source("anomalyco/opencode", "packages/opencode/src/session/compaction.ts (compaction config)", "fd78ec63")

OPENCODE = preset("opencode", Policy, {
    "trigger_inclusive": True, "prune_protect_tokens": 40_000, "prune_min_tokens": 20_000, "prune_inclusive": False,
    "prune_skip_turns": 2, "prune_exempt": ("skill",), "prune_counter": "opencode_chars4",
    "prune_placeholder": OPENCODE_PLACEHOLDER, "prune_stop_at_pruned": True, "head": "system",
    "tail": "none_body", "middle": "summarize", "voice": "opencode", "summary_max_tokens": 2000, "placement": "end",
}, Source("anomalyco/opencode", "packages/opencode/src/session/compaction.ts; session/message-v2.ts; "
          "session/prompt.ts; util/token.ts", "fd78ec63 (compaction.ts), c4794191 (message-v2.ts placeholder)",
          "the classic session code; newer opencode keeps a recent tail"),
    "opencode: prune tool outputs past the newest 40k tokens (2 user turns skipped) when over 20k would go; "
    "at the input limit less min(20k, max output), summarize everything into the model's answer",
    agent="opencode", knobs=(
        Knob("compaction.reserved", "int", "tokens", default=None,
             sets=reserve(unset={"trigger": "reserve", "trigger_reserve": 0, "trigger_reply": 20_000},
                          replaces_reply=True), allowed=Span(0, None), searched=Span(W(0.05), W(0.5)), step=256,
             where=_COMPACTION, note="unset: min(20000, the model's max output) tokens below the input limit"),
        Knob("compaction.prune", "bool", "", default=True, sets=flag("prune", True, False), allowed=None,
             searched=None, step=0, where=_COMPACTION,
             note="erase old tool outputs past the newest 40,000 tokens when more than 20,000 would go"),
    ), forms=(
        Form("json", "opencode.json (project) or ~/.config/opencode/opencode.json",
             {"compaction.reserved": ("compaction", "reserved"), "compaction.prune": ("compaction", "prune")},
             _COMPACTION, fixed={("$schema",): "https://opencode.ai/config.json", ("compaction", "auto"): True}),
    ), seed_counter="opencode_chars4", source_names=(
        ("trigger, trigger_reply, trigger_reserve", "`isOverflow`: `min(COMPACTION_BUFFER, maxOutputTokens)`; "
         "`compaction.reserved`"),
        ("prune", "`compaction.prune`"),
        ("prune_protect_tokens", "`PRUNE_PROTECT`"),
        ("prune_min_tokens, prune_inclusive", "`PRUNE_MINIMUM`, `pruned > PRUNE_MINIMUM`"),
        ("prune_skip_turns", "`if (turns < 2) continue`"),
        ("prune_exempt", "`PRUNE_PROTECTED_TOOLS`"),
        ("prune_counter", "`Token.estimate`"),
        ("prune_stop_at_pruned", "`if (part.state.time.compacted) break loop`"),
        ("voice, placement", "`process`: default prompt, `What did we do so far?`, auto-continue text")))
