"""`inspect_trim`, `inspect_edit`, `inspect_summary`: inspect_ai's compaction strategies as presets.

Source: UKGovernmentBEIS/inspect_ai as released in inspect_ai 0.3.285:
``src/inspect_ai/model/_compaction/_compaction.py`` (the handler: ``threshold=0.9`` of the model's
input window, ``total_tokens > threshold``, up to 3 more passes while still over it),
``trim.py`` + ``model/_trim.py`` (``CompactionTrim(preserve=0.8)``, ``trim_messages``,
``partition_messages``), ``edit.py`` (``CompactionEdit(keep_tool_uses=3, keep_thinking_turns=1,
keep_tool_inputs=True)``), ``summary.py`` (``CompactionSummary``) and ``model/_tokens.py``
(``count_text_tokens``: o200k_base + 10%, counter ``inspect_o200k``, tool definitions included).

- `inspect_trim`: keep all system messages and the input (everything up to the first user
  message), then the last 80% of the remaining messages; tool results whose call was trimmed are
  dropped (orphan repair) and a trailing assistant message is popped.
- `inspect_edit`: every tool result but those of the last 3 tool calls becomes
  ``(Tool result removed)`` (the calls stay; ``tool_search`` results are never cleared), then
  trailing assistant messages are stripped. Thinking blocks are not in ctxlab's messages, so
  ``keep_thinking_turns`` has nothing to clear.
- `inspect_summary`: the conversation since the last summary (the summary included) is summarized
  with inspect_ai's prompt; the input becomes the system messages, the input messages and the
  summary (a user message between inspect_ai's ``[CONTEXT COMPACTION SUMMARY]`` header and its
  "Please continue" line) — no recent turns.

Simplifications: a first call without a provider baseline is what ctxlab replays (inspect_ai later
adds the provider's count of the previous request); a compaction still over the threshold after
the passes returns the result with ``fits`` false instead of raising; the memory tool integration
and citation stripping are not modelled; ctxlab pins the newest user message (inspect_ai summarizes
it away); system messages stay in place rather than moving to the front; the analysis scratchpad
is cut only when the answer opens with it. ``summary_max_tokens`` (2000) caps an offline summary.
"""

from __future__ import annotations

from ctxlab.strategies.policy import Policy, Source, preset

_TRIGGER = {"trigger": "share", "trigger_share": 0.9, "trigger_counter": "inspect_o200k", "passes": 4}


def _source(files: str) -> Source:
    return Source("UKGovernmentBEIS/inspect_ai", f"src/inspect_ai/model/_compaction/{files}, _compaction.py; "
                  "model/_tokens.py", "inspect_ai 0.3.285")


INSPECT_TRIM = preset("inspect_trim", Policy, {
    **_TRIGGER, "head": "input", "tail": "share", "keep_message_share": 0.8, "repair_orphans": True, "middle": "drop",
}, _source("trim.py (+ model/_trim.py)"),
    "inspect_ai CompactionTrim: over 0.9 of the window (o200k x 1.1), keep system + input and the last 80% "
    "of the conversation, orphans repaired", seed_counter="inspect_o200k")

INSPECT_EDIT = preset("inspect_edit", Policy, {
    **_TRIGGER, "head": "system", "tail": "all", "middle": "mask", "mask_keep": 3,
    "mask_placeholder": "(Tool result removed)", "mask_order": "calls", "strip_trailing_assistant": "all",
}, _source("edit.py"),
    "inspect_ai CompactionEdit: over 0.9 of the window, clear every tool result but the last 3",
    seed_counter="inspect_o200k")

INSPECT_SUMMARY = preset("inspect_summary", Policy, {
    **_TRIGGER, "head": "input", "tail": "none", "middle": "summarize", "voice": "inspect",
    "summary_max_tokens": 2000, "placement": "end",
}, _source("summary.py"),
    "inspect_ai CompactionSummary: over 0.9 of the window, system + input + one summary, no recent turns",
    seed_counter="inspect_o200k")
