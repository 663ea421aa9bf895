"""Knobs of Anthropic's agent and API, for presets the late-2026 agents issue adds (not registered
yet, so ``pending``): Claude Code's ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE``, the Messages API's
``context_management`` edits ``clear_tool_uses_20250919`` and ``compact_20260112``.

Sources (documentation, read 2026-11, not code):
- Claude Code settings, environment variables (https://code.claude.com/docs/en/settings; its text
  read through mirrors): "the percentage of context capacity (1-100) at which auto-compaction
  triggers ... Values above the default threshold have no effect"; set in the shell or in the
  ``env`` object of ``~/.claude/settings.json``. The default is not a percentage: about
  window - min(max output, 20k) - 13k (the preset issue's reading, 167k of 200k in two real logs);
  anthropics/claude-code#31806 reads the override as ``min(floor(window x pct / 100), default)``.
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

from typing import Any

from ctxlab.tune.convert import added, limit, param, share, typed
from ctxlab.tune.knobs import AgentKnobs, Form, Knob, Ref, Span, W

_CODE = Ref("https://code.claude.com/docs/en/settings", "environment variables", "read 2026-11 (via mirrors)")
_EDITING = Ref("https://platform.claude.com/docs/en/build-with-claude/context-editing", "", "read 2026-11")
_COMPACTION = Ref("https://platform.claude.com/docs/en/build-with-claude/compaction", "", "read 2026-11")
_EDIT = ("context_management", "edits", 0)


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _tools(value: Any) -> tuple[str, ...] | None:
    return tuple(value) if value else None


CLAUDE_CODE = AgentKnobs(
    preset="claude_code", agent="Claude Code", pending=True,
    knobs=(
        Knob("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", ("trigger", "trigger_share", "trigger_reserve"), "int", "percent",
             allowed=Span(1, 100), searched=Span(30, 90, "above the default threshold it has no effect"), step=1,
             default=None, source=_CODE,
             **share(percent=True, unset={"trigger": "reserve", "trigger_reserve": 33000}),
             note="unset: about window - min(max output, 20k) - 13k (33k below a window when max output is "
                  "20k or more)"),
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
    pending=True, adds=("clear_at_least", "exclude_tools", "clear_tool_inputs"),
    knobs=(
        Knob("trigger", ("trigger", "trigger_tokens"), "int", "tokens", allowed=Span(1, None),
             searched=Span(W(0.2), W(1.0)), step=256, default={"type": "input_tokens", "value": 100_000},
             source=_EDITING, **typed("input_tokens", limit()),
             write=lambda x: {"type": "input_tokens", "value": int(x)}, number=lambda v, window: v["value"],
             note="clears once the prompt exceeds it"),
        Knob("keep", ("mask_keep",), "int", "tool uses", allowed=Span(0, None), searched=Span(0, 20), step=1,
             default={"type": "tool_uses", "value": 3}, source=_EDITING, **typed("tool_uses", param("mask_keep")),
             write=lambda x: {"type": "tool_uses", "value": int(x)}, number=lambda v, window: v["value"]),
        Knob("clear_at_least", ("clear_at_least",), "int", "tokens", allowed=Span(0, None),
             searched=Span(0, W(0.25)), step=256, default=None, source=_EDITING,
             **typed("input_tokens", added("clear_at_least", _optional_int, None)),
             write=lambda x: {"type": "input_tokens", "value": int(x)}, number=lambda v, window: v["value"],
             note="clear at least this many tokens, so the cache write it causes is worth it; unset: no minimum"),
        Knob("exclude_tools", ("exclude_tools",), "names", "", allowed=None, searched=None, step=0, default=None,
             source=_EDITING, **added("exclude_tools", _tools, None), note="tool names never cleared"),
        Knob("clear_tool_inputs", ("clear_tool_inputs",), "bool", "", allowed=None, searched=None, step=0,
             default=False, source=_EDITING, **added("clear_tool_inputs", bool, False),
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
    preset="anthropic_compaction", agent="Anthropic API compaction (compact_20260112)", pending=True,
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
