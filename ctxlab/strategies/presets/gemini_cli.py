"""`gemini_cli`: Gemini CLI's chat compression with its tool-output masking, as a policy preset.

Source: google-gemini/gemini-cli @ 5411f113: ``packages/core/src/context/chatCompressionService.ts``
and ``toolOutputMaskingService.ts``, ``core/client.ts``
(``processTurn``: compression, then masking, before every request), ``utils/tokenCalculation.ts``
(``estimateTokenCountSync``, counter ``gemini_chars4``), ``utils/fileUtils.ts``
(``formatTruncatedToolOutput``), ``prompts/snippets.ts`` (``getCompressionPrompt``), and for the
settings ``packages/cli/src/config/settingsSchema.ts`` (``model.compressionThreshold``: number,
default 0.5, "the fraction of context usage at which to trigger context compression";
``contextManagement.tools.outputMasking.protectionThresholdTokens`` 50,000,
``minPrunableThresholdTokens`` 30,000 and ``protectLatestTurn`` true, under an experimental
section), in ``~/.gemini/settings.json``. Remote experiment flags can override these settings
(``config.ts``).
``contextManagement.enabled`` (the newer context manager) is off by default, so this is the default
behaviour.

- Masking, every call: newest first over the tool outputs of the history (the request being built
  and the newest history entry, ``protectLatestTurn``, are skipped), ``activate_skill``,
  ``ask_user``, ``enter_plan_mode`` and ``exit_plan_mode`` exempt, outputs already masked passed
  over; the first 50,000 tokens (``gemini_chars4``) are protected, the output crossing that line and
  all older ones are prunable; when they total at least 30,000 each becomes
  ``<tool_output_masked>`` with a preview (a shell command's sections with its output cut to 10 +
  10 lines, else the first and last 250 characters of the response's JSON), where that is smaller.
- Trigger: the prompt reaches 0.5 of the model's limit (``promptTokenCount >= threshold x
  tokenLimit``; ``model.compressionThreshold``).
- Compression: newest first, tool outputs stay whole while they total at most 50,000 tokens; older
  ones are cut to their first 20% and last 80% of ``min(4 x tokens left, 40,000)`` characters
  with a note. The history is then split at the first user message (not a tool result) with at
  least 70% of its JSON characters before it (``findCompressSplitPoint``; none: everything when the
  history ends with a final answer, else the last such message seen; the first: nothing to do).
  The part before the split becomes a ``<state_snapshot>`` (a previous snapshot integrated), sent
  as a user message and answered by the model with "Got it. Thanks for the additional context!";
  the kept part follows (with its outputs cut as above), then the request being built. A
  compression that would make the request larger is not made.

Simplifications: the trigger counts the request with its own counter (the provider's count of the
previous prompt in Gemini CLI, without the messages appended since) and masking runs before the
trigger rather than after compression (the same outputs, one call earlier at a compaction); masked
and cut outputs are not written to files (the placeholder names the file Gemini CLI would write);
after a refused (inflated) compression Gemini CLI only truncates on later calls, while ctxlab,
stateless between calls, tries again; the environment-context message, the plan-preservation
block and remote experiment flags are not modelled; a list-content message is one text part; the
offline summary is capped at ``summary_max_tokens`` (2000: ctxlab's; Gemini CLI sets none) and
``summarizer=llm`` makes Gemini CLI's two calls (the snapshot, then the "probe" that critiques it)
around ctxlab's transcript of the history.
"""

from __future__ import annotations

from ctxlab.strategies.policy import Form, Knob, Policy, Source, Span, W, preset
from ctxlab.strategies.policy.conversions import flag, param, share
from ctxlab.summarize.agent_prompts import GEMINI_MASKED

EXEMPT = ("activate_skill", "ask_user", "enter_plan_mode", "exit_plan_mode")

_SCHEMA = "packages/cli/src/config/settingsSchema.ts"
_COMPRESSION = "packages/core/src/context/chatCompressionService.ts"
_MASKING = ("contextManagement", "tools", "outputMasking")

GEMINI_CLI = preset("gemini_cli", Policy, {
    "prune": True, "prune_inclusive": True, "prune_exempt": EXEMPT, "prune_counter": "gemini_chars4",
    "prune_placeholder": GEMINI_MASKED, "head": "system", "tail": "char_share", "keep_char_share": 0.3,
    "results_budget_tokens": 50_000, "results_cut_chars": 40_000, "tail_counter": "gemini_chars4",
    "middle": "summarize", "voice": "gemini", "summary_max_tokens": 2000, "placement": "after_head",
    "refuse_growth": True,
}, Source("google-gemini/gemini-cli", "packages/core/src/context/chatCompressionService.ts, "
          "toolOutputMaskingService.ts; core/client.ts; utils/tokenCalculation.ts; utils/fileUtils.ts; "
          "prompts/snippets.ts; cli/src/config/settingsSchema.ts", "5411f113"),
    "Gemini CLI: mask old tool outputs past the newest 50k tokens when 30k+ would go; at 0.5 of the window "
    "keep the newest 30% of the history (JSON characters, from a user message) after a <state_snapshot>",
    agent="Gemini CLI", knobs=(
        Knob("model.compressionThreshold", "float", "share", default=0.5, sets=share(inclusive=True),
             allowed=Span(0, 1), searched=Span(0.2, 0.9), step=0.05, where=_COMPRESSION,
             note="compress once the prompt reaches this share of the model's limit"),
        Knob("protectionThresholdTokens", "int", "tokens", default=50_000, sets=param("prune_protect_tokens"),
             allowed=Span(0, None), searched=Span(W(0.05), W(0.5)), step=256, where=_SCHEMA,
             note="the newest tool output tokens never masked"),
        Knob("minPrunableThresholdTokens", "int", "tokens", default=30_000, sets=param("prune_min_tokens"),
             allowed=Span(0, None), searched=Span(0, W(0.3)), step=256, where=_SCHEMA,
             note="mask only when at least this much would go"),
        Knob("protectLatestTurn", "bool", "", default=True, sets=flag("prune_skip_messages", 2, 1), allowed=None,
             searched=None, step=0, where=_SCHEMA,
             note="never mask the newest history entry (the request being built is never masked)"),
    ), forms=(
        Form("json", "~/.gemini/settings.json (or .gemini/settings.json)",
             {"model.compressionThreshold": ("model", "compressionThreshold"),
              **{name: (*_MASKING, name) for name in ("protectionThresholdTokens", "minPrunableThresholdTokens",
                                                      "protectLatestTurn")}}, _SCHEMA),
    ), seed_counter="gemini_chars4", source_names=(
        ("trigger, trigger_share, trigger_inclusive", "`model.compressionThreshold` (0.5), `>=`"),
        ("prune_protect_tokens", "`contextManagement.tools.outputMasking.protectionThresholdTokens`"),
        ("prune_min_tokens, prune_inclusive", "`...outputMasking.minPrunableThresholdTokens`, `<` skips"),
        ("prune_skip_messages", "`...outputMasking.protectLatestTurn` (2 with it, 1 without)"),
        ("prune_exempt", "`EXEMPT_TOOLS`"),
        ("prune_counter, tail_counter", "`estimateTokenCountSync`"),
        ("prune_placeholder", "`formatMaskedSnippet`"),
        ("tail, keep_char_share", "`findCompressSplitPoint`, `COMPRESSION_PRESERVE_THRESHOLD`"),
        ("results_budget_tokens, results_cut_chars",
         "`COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET`, `truncateToolOutputThreshold`"),
        ("voice", "`getCompressionPrompt`, `<state_snapshot>`"),
        ("refuse_growth", "`COMPRESSION_FAILED_INFLATED_TOKEN_COUNT`")))
