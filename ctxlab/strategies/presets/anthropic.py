"""`anthropic_context_editing` and `anthropic_compaction`: the Claude API's own context management
(``context_management.edits`` of the Messages API), as policy presets.

Sources (documentation, read 2026-11-25 through the docs corpus; the settings are the request
body's, their defaults and ranges from the same pages): Anthropic's
https://platform.claude.com/docs/en/build-with-claude/context-editing (its configuration table as
mirrored in patrickcarmichael/claude-docs ``486-configuration-options-for-tool-result-clearing.md``
@ a9add268, from llms-full.txt of 2025-11-08; the SDKs' ``BetaClearToolUses20250919Edit``, e.g.
anthropics/anthropic-sdk-php ``src/Beta/Messages/BetaClearToolUses20250919Edit.php``) and
https://platform.claude.com/docs/en/build-with-claude/compaction.

`anthropic_context_editing` (``clear_tool_uses_20250919``, beta ``context-management-2025-06-27``):

- Applied by the server to each request before the model sees it; the client keeps the full,
  unedited history (``stateless``: a per-turn replay edits the full history at every call).
- Trigger: once the prompt (system, tools, messages) exceeds ``trigger`` (100,000 input tokens).
- The oldest tool uses are cleared first, the newest ``keep`` (3) kept; a cleared result's content
  becomes a placeholder, its call stays; ``exclude_tools`` are never cleared (nor counted);
  ``clear_tool_inputs`` clears the cleared calls' inputs too.
- ``clear_at_least``: when the clearing would free fewer tokens than that, nothing is cleared
  (so the cache write it causes is worth it).
- Thinking (``clear_thinking_20251015``; without it the API keeps the last assistant turn's
  thinking): ctxlab's messages carry no thinking blocks, so there is nothing to clear.
- Cache: clearing changes the prompt from the first cleared result on, so that part is a new
  prefix, written to the cache again: ``ctxlab replay --price-model`` prices it so.

`anthropic_compaction` (``compact_20260112``, beta ``compact-2026-01-12``):

- Trigger: the request's input tokens exceed ``trigger`` (150,000; the API refuses less than
  50,000, and so does the preset).
- The API first samples a summary of the whole conversation, with its default prompt or the
  request's ``instructions`` instead (``summary_instructions``), and returns it as a compaction
  block; later requests drop every message before that block. So the summary replaces everything
  (the newest user message included: ``drops_pinned``, reported) but the system prompt, and an
  earlier compaction block is summarized again with the rest.
- Billing: the summarization is an extra sampling iteration of the same model, billed apart from
  the answer (``usage.iterations``). ctxlab reports it as a ``summary_call`` event: the LLM's own
  usage with ``summarizer=llm``; offline, an estimate (input: the context it summarized, output:
  the summary; ``estimated: true``) for the request's ``model``, which pricing bills.

Simplifications: tokens are ctxlab's counter's, not Anthropic's tokenizer's. The placeholder of a
cleared result is ctxlab's (``[Tool result cleared by context editing]``): the API's text is not
published and never reaches the client. ``clear_tool_inputs`` as a list of tool names, the
``tool_uses`` trigger type, server tools re-checking the trigger mid-request, ``pause_after_compaction``
and the later on-demand compaction (``compact-2026-09-04``) are not modelled. The compaction block
goes in as a summary message after the system prompt, not as the first block of an assistant
reply. Offline the summary is ctxlab's extractive stand-in, in ctxlab's sections; with
``summarizer=llm`` the prompt is ctxlab's wording of the documented default (Anthropic's docs are
not openly licensed), the text inside its ``<summary>`` tags the summary; ``summary_max_tokens``
(2000) is ctxlab's cap (the API documents none). The estimated billing prices the pass as uncached
input, where the API may read the conversation's cached prefix.
"""

from __future__ import annotations

from ctxlab.strategies.policy import Form, Knob, Policy, Source, Span, W, preset
from ctxlab.strategies.policy.conversions import Conversion, limit, param, typed

_EDITING = "https://platform.claude.com/docs/en/build-with-claude/context-editing"
_COMPACTION = "https://platform.claude.com/docs/en/build-with-claude/compaction"
_READ = "read 2026-11-25"
_EDIT = ("context_management", "edits", 0)
_EDITS = ("trigger", "keep", "clear_at_least", "exclude_tools", "clear_tool_inputs")


def _at_least() -> Conversion:
    """``clear_at_least``: a minimum in tokens (``mask_at_least``); unset is no minimum (0)."""
    return Conversion(lambda value, window: {"mask_at_least": 0 if value is None else int(value)},
                      lambda params, window: params.get("mask_at_least", 0) or None, ("mask_at_least",))


def _tools(name: str) -> Conversion:
    """A list of tool names (``exclude_tools``); unset is none."""
    return Conversion(lambda value, window: {name: tuple(value or ())},
                      lambda params, window: tuple(params.get(name) or ()) or None, (name,))


def _typed_tokens(name: str, default: int, least: int, note: str) -> Knob:
    """A ``{"type": "input_tokens", "value": n}`` trigger of at least `least` tokens."""
    return Knob(name, "int", "tokens", default={"type": "input_tokens", "value": default},
                sets=typed("input_tokens", limit()), allowed=Span(least, None),
                searched=Span(least if least > 1 else W(0.2), W(1.0),
                              "the API refuses less than 50,000" if least > 1 else ""),
                step=256, where="", write=lambda x: {"type": "input_tokens", "value": int(x)},
                number=lambda v, window: v["value"], note=note)


ANTHROPIC_CONTEXT_EDITING = preset("anthropic_context_editing", Policy, {
    "head": "system", "tail": "all", "middle": "mask", "mask_placeholder": "[Tool result cleared by context editing]",
    "mask_order": "calls",
}, Source("Anthropic API docs", f"{_EDITING} (clear_tool_uses_20250919, clear_thinking_20251015)", _READ,
          "the placeholder is ctxlab's: the API's is not published"),
    "Claude API context editing: over 100,000 input tokens, clear every tool result but the 3 newest "
    "(server-side, on the full history at each call)", agent="Anthropic API context editing (clear_tool_uses_20250919)",
    knobs=(
        _typed_tokens("trigger", 100_000, 1, "clears once the prompt exceeds it"),
        Knob("keep", "int", "tool uses", default={"type": "tool_uses", "value": 3},
             sets=typed("tool_uses", param("mask_keep")), allowed=Span(0, None), searched=Span(0, 20), step=1,
             where="", write=lambda x: {"type": "tool_uses", "value": int(x)}, number=lambda v, window: v["value"]),
        Knob("clear_at_least", "int", "tokens", default=None, sets=typed("input_tokens", _at_least()),
             allowed=Span(1, None), searched=Span(1024, W(0.25)), step=256, where="",
             write=lambda x: {"type": "input_tokens", "value": int(x)}, number=lambda v, window: v["value"],
             note="clear at least this many tokens, so the cache write it causes is worth it; unset: no minimum"),
        Knob("exclude_tools", "names", "", default=None, sets=_tools("mask_exclude"), allowed=None, searched=None,
             step=0, where="", note="tool names never cleared"),
        Knob("clear_tool_inputs", "bool", "", default=False, sets=param("mask_inputs", bool, {"mask_inputs": False}),
             allowed=None, searched=None, step=0, where="", note="also clear the tool calls' parameters"),
    ), forms=(
        Form("json", "Messages API request body (header anthropic-beta: context-management-2025-06-27)",
             {name: (*_EDIT, name) for name in _EDITS}, "", fixed={(*_EDIT, "type"): "clear_tool_uses_20250919"}),
    ), stateless=True, source_names=(
        ("trigger, trigger_tokens", '`trigger` `{"type": "input_tokens", "value": 100000}`'),
        ("mask_keep", '`keep` `{"type": "tool_uses", "value": 3}`'),
        ("middle, mask_order", "`clear_tool_uses_20250919`: oldest tool uses first"),
        ("mask_placeholder", "the placeholder text (not published)"),
        ("mask_at_least", '`clear_at_least` `{"type": "input_tokens", "value": n}` (none by default)'),
        ("mask_exclude", "`exclude_tools`"), ("mask_inputs", "`clear_tool_inputs`")))

ANTHROPIC_COMPACTION = preset("anthropic_compaction", Policy, {
    "head": "system", "tail": "none", "middle": "summarize", "voice": "anthropic", "placement": "after_head",
}, Source("Anthropic API docs", f"{_COMPACTION} (compact_20260112)", _READ),
    "Claude API compaction: over 150,000 input tokens, one compaction block replaces everything before it "
    "(the summarization pass billed)", agent="Anthropic API compaction (compact_20260112)", knobs=(
        _typed_tokens("trigger", 150_000, 50_000, "compacts when the input exceeds it"),
    ), forms=(
        Form("json", "Messages API request body (header anthropic-beta: compact-2026-01-12)",
             {"trigger": (*_EDIT, "trigger")}, "", fixed={(*_EDIT, "type"): "compact_20260112"}),
    ), drops_pinned=True, bills_summary=True,
    minimums=(("trigger_tokens", 50000, "the API refuses a compaction trigger under 50,000 tokens"),), source_names=(
        ("trigger, trigger_tokens", '`trigger` `{"type": "input_tokens", "value": 150000}` (at least 50,000)'),
        ("tail, middle", "the compaction block replaces every message before it"),
        ("voice", "the compaction block holds the summary alone"),
        ("summary_instructions", "`instructions` (replaces the default summarization prompt)")))
