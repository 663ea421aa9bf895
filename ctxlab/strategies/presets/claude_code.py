"""`claude_code` and `claude_code_microcompact`: Claude Code's automatic compaction, and its
time-based micro-compaction (unofficial), as policy presets.

Claude Code is closed source. Sources (read 2026-11-25): its documentation,
https://code.claude.com/docs/en/env-vars (``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE``, ``DISABLE_AUTO_COMPACT``,
``CLAUDE_CODE_AUTO_COMPACT_WINDOW``, ``CLAUDE_CODE_MAX_OUTPUT_TOKENS``) and
https://code.claude.com/docs/en/context-window (what survives compaction, ``/compact``);
third-party readings of its code, facts only: anthropics/claude-code issues #31806 (the threshold
function) and #12004 (its constants 13,000 and 20,000), zhanghandong, *Harness engineering from CC
to AI coding*, ch. 9 (``autoCompact.ts``) and ch. 11 (``microCompact.ts``); and Claude Code's own
logs, two 2.1.39 sessions published by marot/spotter (MIT) in ``../shared/reallogs/claude_code``.

`claude_code` (auto-compact):

- Trigger: before each request, when ``window - min(max output, 20000) - 13000`` is reached
  (``>=``; 167,000 of 200,000): kind ``reserve``, ``trigger_reserve`` 13,000 and ``trigger_reply``
  20,000, capped by the model's max output tokens when ``model`` is set. The count is Claude
  Code's ``tokenCountWithEstimation``: the prompt the provider reported for the previous call
  (input + cache read + cache creation) plus an estimate of every message after it, that call's own
  reply included (``trigger_recorded="prompt+tail"``), when the request carries recorded usage (a
  replayed agent log); the request's own counter on the whole request otherwise. The
  ``trigger.fired`` event says which signal it compacted on. On the two real sessions it fires at
  the very call where Claude Code compacted (tests/strategies/test_preset_claude_code.py).
- Compaction: everything is summarized, nothing kept verbatim but the system prompt: the summary
  replaces the history, an earlier summary included (rolling). The summary is one user message
  after the system prompt, in Claude Code's shape: a header saying the session continues an
  earlier one that ran out of context, the summary, and an instruction to carry on with the last
  task without asking the user (ctxlab's paraphrase of the wrapper the logs show). With
  ``summarizer=llm`` the model gets inspect_ai's prompt (MIT), which asks for the same nine
  sections (Primary Request and Intent ... Optional Next Step) and the same ``<analysis>``
  scratchpad as Claude Code's proprietary prompt; the reply is formatted as Claude Code formats
  it (``Analysis:``/``Summary:``, the analysis kept); ``summary_instructions`` are appended as
  ``/compact <instructions>`` are. Offline, the extractive summarizer writes those sections.

`claude_code_microcompact` (unofficial; no Anthropic documentation describes it): when the newest
message (the request) comes more than ``trigger_idle_minutes`` (60) after the newest assistant
message, every result of a compactable tool (Read, Bash, Grep, Glob, WebFetch, WebSearch, Edit,
Write) but the newest ``mask_keep`` (5) becomes ``[Old tool result content cleared]``; the calls
stay. Sources, all third-party readings of ``services/compact/microCompact.ts`` and
``timeBasedMCConfig.ts``: zhanghandong ch. 11 and the claudskills.com
"time-based-microcompact-trigger" skill (gap since the last main-thread assistant message, keep the
newest ``max(1, keepRecent)`` compactable results, the placeholder), a Hacker News comment by
d4rkp4ttern (item 47614091: the config's defaults, keep 5, one hour, ``enabled: false``) and
gentic.news "How Claude Code's 3-tier..." (an hour idle, the 5 most recent kept). It is a remote
(GrowthBook) feature, off by default: the real 2.1.39 logs show no clearing after idle gaps of 19
and 251 minutes, so this preset does NOT reproduce them. It needs message timestamps (Claude Code
logs have them); without them it never fires and says so (``trigger.untimed``). Chain it before
auto-compact with ``pipeline:steps=claude_code_microcompact+claude_code``.

Simplifications (`claude_code`): closed source, reconstructed from documentation, third-party
readings and two logs of one version (2.1.39); later versions' changes are not followed. The
messages after the last recorded call are counted with the trigger's counter (the request's by
default), where Claude Code estimates characters / 4: on the two real sessions the two differ by
tens of tokens and fire at the same call. Recorded usage applies only while the context is the log's
own history: after a compaction (ctxlab's or the agent's) the counter counts the whole request,
without the system prompt and tool definitions the log leaves out. The newest user message is
summarized away, as in Claude Code (``drops_pinned``, reported). What Claude Code re-injects after a
compaction (CLAUDE.md, up to five recently read files of at most 5,000 tokens each, hook output,
the todo list, invoked skills) is not in ctxlab's messages, so ctxlab's context after a compaction
is smaller (by 7-10k tokens on the real logs). The transcript-path sentence of Claude Code's
wrapper is left out (ctxlab has no transcript file to name). ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`` is
``trigger=share`` with ``trigger_share`` the percentage / 100 of ``window - trigger_reply``, at most
the default threshold (``trigger_reserve`` stays the ceiling), as in Claude Code. The setting
(https://code.claude.com/docs/en/settings, read through mirrors): "the percentage of context
capacity (1-100) at which auto-compaction triggers ... Values above the default threshold have no
effect", set in the shell or in the ``env`` object of ``~/.claude/settings.json``
(anthropics/claude-code#63186 reports that block not reaching the threshold in one version: the
shell form is the safe one).
``DISABLE_AUTO_COMPACT`` is ctxlab's ``noop``. Subagent and session-memory compaction, the failure
circuit breaker and the prompt-too-long retry are not modelled. ``summary_max_tokens`` (20,000) is
Claude Code's cap on the summary reply; the logs' summaries are about 4,000 tokens.

Simplifications (`claude_code_microcompact`): the parameters are remote config; 5 results and 60
minutes are the defaults third parties read in the code, not observed behaviour. The request's time
is the newest message's timestamp. Cached micro-compaction (``cache_edits``) and session-memory
compaction are not modelled. Tool names are Claude Code's: on other logs set ``mask_include`` (or
clear it to mask every tool).
"""

from __future__ import annotations

from ctxlab.strategies.policy import Form, Knob, Policy, Source, Span, preset
from ctxlab.strategies.policy.conversions import share

_DOCS = "https://code.claude.com/docs/en/env-vars, /context-window (read 2026-11-25)"
_SETTINGS = Source("https://code.claude.com/docs/en/settings", "environment variables", "read 2026-11 (via mirrors)")
_PCT = "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"
COMPACTABLE = ("Read", "Bash", "Grep", "Glob", "WebFetch", "WebSearch", "Edit", "Write")

CLAUDE_CODE = preset("claude_code", Policy, {
    "trigger_reply": 20000, "trigger_inclusive": True,
    "trigger_recorded": "prompt+tail", "head": "system", "tail": "none", "middle": "summarize",
    "voice": "claude_code", "summary_max_tokens": 20000, "placement": "after_head",
}, Source("Claude Code (closed source)", _DOCS,
          "2.1.39 (logs, marot/spotter 53a088d2/0c7102a3)",
          "threshold from anthropics/claude-code #31806 and #12004, zhanghandong ch. 9; pinned by the logs"),
    "Claude Code auto-compact: at window - min(max output, 20k) - 13k (recorded usage + the messages "
    "since), summarize everything into one continuation message", agent="Claude Code", knobs=(
        Knob(_PCT, "int", "percent", default=None, sets=share(percent=True, unset={"trigger": "reserve",
                                                                                  "trigger_reserve": 13000}),
             allowed=Span(1, 100), searched=Span(30, 90, "above the default threshold it has no effect"), step=1,
             where=_SETTINGS, note="unset: window - min(max output, 20k) - 13k; a percentage of the window less "
                                   "min(max output, 20k), never above that default"),
    ), forms=(
        Form("env", "the shell that starts claude", {_PCT: (_PCT,)}, _SETTINGS, text_values=True),
        Form("json", "~/.claude/settings.json (or .claude/settings.json), its env object", {_PCT: ("env", _PCT)},
             _SETTINGS, text_values=True),
    ), drops_pinned=True, source_names=(
        ("trigger, trigger_reserve", "`AUTOCOMPACT_BUFFER_TOKENS` (13,000) below the effective window"),
        ("trigger_reply", "`min(maxOutputTokens, 20000)`; `CLAUDE_CODE_MAX_OUTPUT_TOKENS`"),
        ("trigger_inclusive", "`tokenCount >= threshold`"),
        ("trigger_recorded", "`tokenCountWithEstimation`: the last response's usage + an estimate of what followed"),
        ("tail", "nothing kept: the summary replaces the history"),
        ("voice", "the nine-section summary, `isCompactSummary` user message"),
        ("summary_max_tokens", "`MAX_OUTPUT_TOKENS_FOR_SUMMARY`"),
        ("trigger_share", "`CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` / 100, with `trigger=share` (of the window less "
                          "`trigger_reply`; never above the default threshold)"),
        ("context_window", "the model's window (200,000; 1,000,000 with `[1m]`), `CLAUDE_CODE_AUTO_COMPACT_WINDOW`; "
                           "0: the replay's budget"),
        ("summary_instructions", "`/compact <instructions>`, `## Compact Instructions` in CLAUDE.md")))

CLAUDE_CODE_MICROCOMPACT = preset("claude_code_microcompact", Policy, {
    "trigger": "idle", "trigger_idle_minutes": 60.0, "head": "system", "tail": "all", "middle": "mask",
    "mask_keep": 5, "mask_placeholder": "[Old tool result content cleared]", "mask_order": "calls",
    "mask_include": COMPACTABLE,
}, Source("Claude Code (closed source; unofficial)", "services/compact/microCompact.ts, timeBasedMCConfig.ts "
          "as third parties read them", "read 2026-11-25",
          "zhanghandong ch. 11; claudskills.com time-based-microcompact-trigger; HN item 47614091; "
          "gentic.news; off by default, not seen in the 2.1.39 logs"),
    "Claude Code time-based micro-compaction (unofficial): over an hour after the last assistant message, "
    "clear all but the 5 newest compactable tool results",
    untunable="its thresholds (gapThresholdMinutes, keepRecent) are Anthropic's remote config, not settings a "
              "Claude Code user can change", minimums=(("mask_keep", 1, "Claude Code keeps at least the newest result: max(1, keepRecent)"),), source_names=(
        ("trigger, trigger_idle_minutes", "`gapThresholdMinutes` (remote config; 60 by default per third parties)"),
        ("mask_keep", "`keepRecent` (remote config; 5 by default per third parties)"),
        ("mask_include", "`COMPACTABLE_TOOLS`"),
        ("mask_placeholder", "the cleared result's text")))
