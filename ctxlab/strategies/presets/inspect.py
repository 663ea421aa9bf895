"""`inspect_trim`, `inspect_edit`, `inspect_summary`: inspect_ai's compaction strategies as presets,
with their settings (``threshold``, ``preserve``, ``keep_tool_uses``).

Source: UKGovernmentBEIS/inspect_ai as released in inspect_ai 0.3.285:
``src/inspect_ai/model/_compaction/_compaction.py`` (the handler: ``threshold=0.9`` of the model's
input window, ``total_tokens > threshold``, up to 3 more passes while still over it),
``trim.py`` + ``model/_trim.py`` (``CompactionTrim(preserve=0.8)``, ``trim_messages``,
``partition_messages``), ``edit.py`` (``CompactionEdit(keep_tool_uses=3, keep_thinking_turns=1,
keep_tool_inputs=True)``), ``summary.py`` (``CompactionSummary``) and ``model/_tokens.py``
(``count_text_tokens``: o200k_base + 10%, counter ``inspect_o200k``, tool definitions included).
The settings, from ``_compaction/types.py`` (``threshold: int | float = 0.9``), ``_compaction.py``
(``_resolve_threshold``: an int or a float above 1.0 is ``int(threshold)`` tokens, a float up to
1.0 a share of the model's input window), ``model/_trim.py`` (``preserve`` in [0, 1]) and
``edit.py`` (0 clears every tool result); passed as ``react(..., compaction=...)``; no environment
variable or CLI option sets them (read in the repository @ 499e6152, the same as the release).

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

from ctxlab.strategies.policy import Form, Knob, Policy, Source, Span, preset
from ctxlab.strategies.policy.conversions import int_or_share, param

_COUNTER = {"trigger_counter": "inspect_o200k", "passes": 4}
_COMPACTION = "src/inspect_ai/model/_compaction"


def _source(files: str) -> Source:
    return Source("UKGovernmentBEIS/inspect_ai", f"{_COMPACTION}/{files}, _compaction.py; "
                  "model/_tokens.py", "inspect_ai 0.3.285")


def _threshold() -> Knob:
    return Knob("threshold", "float", "share", default=0.9, sets=int_or_share(), allowed=Span(0, None),
                searched=Span(0.3, 0.95), step=0.05, where=f"{_COMPACTION}/types.py, _compaction.py (_resolve_threshold)",
                write=float, number=lambda v, window: v if isinstance(v, float) and v <= 1.0 else int(v) / window,
                note="a float up to 1.0 is a share of the model's input window, an int (or a float above 1.0) "
                     "tokens; compaction when the count is over it (>)")


def _form(cls: str, where: str, names: tuple[str, ...]) -> Form:
    return Form("python", "the react() agent's compaction (or a custom agent's)", {name: (cls, name) for name in names},
                where, template=f"from inspect_ai.model import {cls}\n\n"
                                f"compaction = {cls}({{{cls}}})  # react(..., compaction=compaction)")


INSPECT_TRIM = preset("inspect_trim", Policy, {
    **_COUNTER, "head": "input", "tail": "share", "repair_orphans": True, "middle": "drop",
}, _source("trim.py (+ model/_trim.py)"),
    "inspect_ai CompactionTrim: over 0.9 of the window (o200k x 1.1), keep system + input and the last 80% "
    "of the conversation, orphans repaired", agent="inspect_ai CompactionTrim", knobs=(
        _threshold(),
        Knob("preserve", "float", "share", default=0.8, sets=param("keep_message_share", float), allowed=Span(0, 1),
             searched=Span(0.1, 0.95), step=0.05, where=f"{_COMPACTION}/trim.py, model/_trim.py",
             note="the share of the conversation's messages kept (after system and input messages)"),
    ), forms=(_form("CompactionTrim", f"{_COMPACTION}/trim.py", ("threshold", "preserve")),),
    seed_counter="inspect_o200k")

INSPECT_EDIT = preset("inspect_edit", Policy, {
    **_COUNTER, "head": "system", "tail": "all", "middle": "mask", "mask_placeholder": "(Tool result removed)",
    "mask_order": "calls", "strip_trailing_assistant": "all",
}, _source("edit.py"),
    "inspect_ai CompactionEdit: over 0.9 of the window, clear every tool result but the last 3",
    agent="inspect_ai CompactionEdit", knobs=(
        _threshold(),
        Knob("keep_tool_uses", "int", "tool uses", default=3, sets=param("mask_keep"), allowed=Span(0, None),
             searched=Span(0, 20), step=1, where=f"{_COMPACTION}/edit.py",
             note="the newest tool use/result pairs left whole; 0 clears them all"),
    ), forms=(_form("CompactionEdit", f"{_COMPACTION}/edit.py", ("threshold", "keep_tool_uses")),),
    seed_counter="inspect_o200k")

INSPECT_SUMMARY = preset("inspect_summary", Policy, {
    **_COUNTER, "head": "input", "tail": "none", "middle": "summarize", "voice": "inspect",
    "summary_max_tokens": 2000, "placement": "end",
}, _source("summary.py"),
    "inspect_ai CompactionSummary: over 0.9 of the window, system + input + one summary, no recent turns",
    agent="inspect_ai CompactionSummary", knobs=(_threshold(),),
    forms=(_form("CompactionSummary", f"{_COMPACTION}/summary.py", ("threshold",)),), seed_counter="inspect_o200k")
