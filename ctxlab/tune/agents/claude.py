"""Knobs of Anthropic's agent and API, for the presets `claude_code`, `anthropic_context_editing`
and `anthropic_compaction` (``ctxlab/strategies/presets/claude_code.py``, ``anthropic.py``): Claude
Code's ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE``, the Messages API's ``context_management`` edits
``clear_tool_uses_20250919`` and ``compact_20260112``.

Sources (documentation, read 2026-11, not code):
- Claude Code settings, environment variables (https://code.claude.com/docs/en/settings; its text
  read through mirrors): "the percentage of context capacity (1-100) at which auto-compaction
  triggers ... Values above the default threshold have no effect"; set in the shell or in the
  ``env`` object of ``~/.claude/settings.json``. The default is not a percentage: about
  window - min(max output, 20k) - 13k (167k of 200k in two real logs); anthropics/claude-code#31806
  reads the override as ``min(floor(effective window x pct / 100), default)``, which the preset's
  share trigger does (``trigger_reserve`` is its ceiling).
  anthropics/claude-code#63186 reports the settings.json ``env`` block not reaching the threshold in
  one version: the shell form is the safe one.
- Context editing (https://platform.claude.com/docs/en/build-with-claude/context-editing):
  ``trigger`` default 100,000 input tokens, ``keep`` default 3 tool uses, ``clear_at_least``
  (no default), ``exclude_tools``, ``clear_tool_inputs`` (default false); beta header
  ``context-management-2025-06-27``.
- Compaction (https://platform.claude.com/docs/en/build-with-claude/compaction): ``trigger`` default
  150,000 tokens, at least 50,000; beta header ``compact-2026-01-12``.
"""

from __future__ import annotations

from ctxlab.tune.convert import Conversion, limit, param, share, typed
from ctxlab.tune.knobs import AgentKnobs, Form, Knob, Ref, Span, W

_CODE = Ref("https://code.claude.com/docs/en/settings", "environment variables", "read 2026-11 (via mirrors)")
_EDITING = Ref("https://platform.claude.com/docs/en/build-with-claude/context-editing", "", "read 2026-11")
_COMPACTION = Ref("https://platform.claude.com/docs/en/build-with-claude/compaction", "", "read 2026-11")
_EDIT = ("context_management", "edits", 0)


def _at_least() -> Conversion:
    """``clear_at_least``: a minimum in tokens (``mask_at_least``); unset is no minimum (0)."""
    return Conversion(encode=lambda value, window: {"mask_at_least": 0 if value is None else int(value)},
                      decode=lambda params, window: params.get("mask_at_least", 0) or None)


def _tools(name: str) -> Conversion:
    """A list of tool names (``exclude_tools``); unset is none."""
    return Conversion(encode=lambda value, window: {name: tuple(value or ())},
                      decode=lambda params, window: tuple(params.get(name) or ()) or None)


CLAUDE_CODE = AgentKnobs(
    preset="claude_code", agent="Claude Code",
    knobs=(
        Knob("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", ("trigger", "trigger_share", "trigger_reserve"), "int", "percent",
             allowed=Span(1, 100), searched=Span(30, 90, "above the default threshold it has no effect"), step=1,
             default=None, source=_CODE,
             **share(percent=True, unset={"trigger": "reserve", "trigger_reserve": 13000}),
             note="unset: window - min(max output, 20k) - 13k; a percentage of the window less min(max output, "
                  "20k), never above that default"),
    ),
    forms=(
        Form("env", "the shell that starts claude", _CODE,
             {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": ("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",)}, text_values=True),
        Form("json", "~/.claude/settings.json (or .claude/settings.json), its env object", _CODE,
             {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": ("env", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")}, text_values=True),
    ),
)

ANTHROPIC_CONTEXT_EDITING = AgentKnobs(
    preset="anthropic_context_editing", agent="Anthropic API context editing (clear_tool_uses_20250919)",
    knobs=(
        Knob("trigger", ("trigger", "trigger_tokens"), "int", "tokens", allowed=Span(1, None),
             searched=Span(W(0.2), W(1.0)), step=256, default={"type": "input_tokens", "value": 100_000},
             source=_EDITING, **typed("input_tokens", limit()),
             write=lambda x: {"type": "input_tokens", "value": int(x)}, number=lambda v, window: v["value"],
             note="clears once the prompt exceeds it"),
        Knob("keep", ("mask_keep",), "int", "tool uses", allowed=Span(0, None), searched=Span(0, 20), step=1,
             default={"type": "tool_uses", "value": 3}, source=_EDITING, **typed("tool_uses", param("mask_keep")),
             write=lambda x: {"type": "tool_uses", "value": int(x)}, number=lambda v, window: v["value"]),
        Knob("clear_at_least", ("mask_at_least",), "int", "tokens", allowed=Span(1, None),
             searched=Span(1024, W(0.25)), step=256, default=None, source=_EDITING, **typed("input_tokens", _at_least()),
             write=lambda x: {"type": "input_tokens", "value": int(x)}, number=lambda v, window: v["value"],
             note="clear at least this many tokens, so the cache write it causes is worth it; unset: no minimum"),
        Knob("exclude_tools", ("mask_exclude",), "names", "", allowed=None, searched=None, step=0, default=None,
             source=_EDITING, **_tools("mask_exclude"), note="tool names never cleared"),
        Knob("clear_tool_inputs", ("mask_inputs",), "bool", "", allowed=None, searched=None, step=0,
             default=False, source=_EDITING, **param("mask_inputs", bool, {"mask_inputs": False}),
             note="also clear the tool calls' parameters"),
    ),
    forms=(
        Form("json", "Messages API request body (header anthropic-beta: context-management-2025-06-27)", _EDITING,
             {name: (*_EDIT, name) for name in ("trigger", "keep", "clear_at_least", "exclude_tools",
                                                 "clear_tool_inputs")},
             fixed={(*_EDIT, "type"): "clear_tool_uses_20250919"}),
    ),
)

ANTHROPIC_COMPACTION = AgentKnobs(
    preset="anthropic_compaction", agent="Anthropic API compaction (compact_20260112)",
    knobs=(
        Knob("trigger", ("trigger", "trigger_tokens"), "int", "tokens", allowed=Span(50_000, None),
             searched=Span(50_000, W(1.0), "the API refuses less than 50,000"), step=256,
             default={"type": "input_tokens", "value": 150_000}, source=_COMPACTION, **typed("input_tokens", limit()),
             write=lambda x: {"type": "input_tokens", "value": int(x)}, number=lambda v, window: v["value"],
             note="compacts when the input exceeds it"),
    ),
    forms=(
        Form("json", "Messages API request body (header anthropic-beta: compact-2026-01-12)", _COMPACTION,
             {"trigger": (*_EDIT, "trigger")}, fixed={(*_EDIT, "type"): "compact_20260112"}),
    ),
)

ENTRIES = (CLAUDE_CODE, ANTHROPIC_CONTEXT_EDITING, ANTHROPIC_COMPACTION)
