"""Clearing old tool results: every result but the newest `keep` replaced by a placeholder.

Two agents, two orders:

- ``results`` (LangChain ``ClearToolUsesEdit.apply``, langchain 1.5.0 ``context_editing.py``): the
  tool messages in order; a result is cleared only when the nearest AI message before it made the
  call; one already cleared is skipped.
- ``calls`` (inspect_ai ``CompactionEdit.compact``, 0.3.285 ``_compaction/edit.py``): the tool calls
  of the assistant messages in order, each with its result; ``tool_search`` results (tool
  definitions, not output) are never cleared.

The orders differ only when a parallel batch's results come back in another order than the calls.

Which tools' results may be cleared (`Clearable`): all of them, only ``include`` (Claude Code's
micro-compaction clears Read, Bash, Grep, Glob, WebFetch, WebSearch, Edit and Write results), never
``exclude`` (Anthropic ``exclude_tools``); the newest `keep` are counted among the clearable ones.
Anthropic's context editing adds two rules, each its own function: `at_least` (``clear_at_least``:
clear only when that many tokens go, else nothing) and `clear_inputs` (``clear_tool_inputs``: the
cleared calls' arguments go too).

`mask_old_turns` counts model calls instead of results (JetBrains "The Complexity Trap": outputs
older than the last M turns are masked; ctxlab's `observation_masking`): every output before the
newest `keep_turns` assistant messages and longer than `min_chars` becomes a placeholder filled from
a template (``{tool}``, ``{call_id}``, ``{chars}``), never a longer one, and an output that already
is one stays as it is (masking twice keeps the first size).

A cleared message keeps its id, role and call id (marked truncated), so the exchange stays valid.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.messages import Message
from ctxlab.strategies.mechanics.context import call_names

ORDERS = ("results", "calls")
_NEVER_CLEARED = {"tool_search"}  # inspect_ai TOOL_SEARCH_NAME
CLEARED_ARGUMENTS = "{}"  # a cleared call's input: an empty JSON object, so the call stays well-formed


class Clearable(NamedTuple):
    """Which tools' results may be cleared: only `include` (empty: every tool), never `exclude`."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def allows(self, tool: str) -> bool:
        return (not self.include or tool in self.include) and tool not in self.exclude


EVERY_TOOL = Clearable()


def clear_tool_results(messages: Sequence[Message], keep: int, placeholder: str, order: str = "results",
                       tools: Clearable = EVERY_TOOL) -> dict[int, Message]:
    """Replacements for the cleared tool results (index -> cleared copy): every result of a tool
    `tools` allows but the newest `keep` of them.

    Raises:
        CtxlabError: an unknown order.
    """
    if order == "results":
        candidates = [i for i, m in enumerate(messages) if m.role == "tool"]
    elif order == "calls":
        candidates = _by_calls(messages)
    else:
        raise CtxlabError(f"unknown mask order {order!r} (valid: {', '.join(ORDERS)})")
    if tools != EVERY_TOOL:
        names = call_names(messages)
        candidates = [i for i in candidates if tools.allows(_tool(messages[i], names))]
    cleared = candidates if keep <= 0 else candidates[:-keep] if keep < len(candidates) else []
    if order == "results":
        owned = _owned(messages)
        cleared = [i for i in cleared if i in owned]
    return {i: messages[i].with_text(placeholder) for i in cleared if messages[i].text != placeholder}


def clear_inputs(messages: Sequence[Message], cleared: Iterable[int]) -> dict[int, Message]:
    """Replacements for the assistant messages whose calls' results are `cleared` (indices of tool
    results): those calls' arguments become `CLEARED_ARGUMENTS`, their id and name kept (Anthropic
    ``clear_tool_inputs``), the message marked truncated."""
    ids = {messages[i].tool_call_id for i in cleared}
    out = {}
    for i, m in enumerate(messages):
        if m.role == "assistant" and any(c.id in ids and c.arguments != CLEARED_ARGUMENTS for c in m.tool_calls):
            calls = tuple(replace(c, arguments=CLEARED_ARGUMENTS) if c.id in ids else c for c in m.tool_calls)
            out[i] = replace(m, tool_calls=calls, mark="truncated", source_ids=m.source_ids or (m.id,))
    return out


def at_least(replaced: Mapping[int, Message], sizes: Sequence[int], count: Callable[[Message], int],
             minimum: int) -> dict[int, Message]:
    """`replaced` when it saves at least `minimum` tokens (``sizes[i] - count(new)`` summed), else
    nothing (Anthropic ``clear_at_least``: below that minimum the edit is not applied at all)."""
    saved = sum(sizes[i] - count(m) for i, m in replaced.items())
    return dict(replaced) if saved >= minimum else {}


def _owned(messages: Sequence[Message]) -> set[int]:
    """LangChain: results whose nearest AI message before them made their call."""
    owned, owner = set(), None
    for i, m in enumerate(messages):
        if m.role == "assistant":
            owner = m
        elif m.role == "tool" and owner is not None and any(c.id == m.tool_call_id for c in owner.tool_calls):
            owned.add(i)
    return owned


def _tool(result: Message, names: Mapping[str, str]) -> str:
    """The tool a result answers: its own name, else its call's."""
    return result.name or names.get(result.tool_call_id or "", "")


def _by_calls(messages: Sequence[Message]) -> list[int]:
    result_at = {m.tool_call_id: i for i, m in enumerate(messages) if m.role == "tool"}
    return [result_at[c.id] for i, m in enumerate(messages) if m.role == "assistant" for c in m.tool_calls
            if c.name not in _NEVER_CLEARED and result_at.get(c.id, -1) > i]


def mask_old_turns(messages: Sequence[Message], keep_turns: int, template: str, min_chars: int = 0
                   ) -> dict[int, Message]:
    """Replacements for the tool outputs before the newest `keep_turns` turns (index -> masked copy).

    Args:
        messages: the context.
        keep_turns: how many of the newest assistant messages keep their outputs (0: none does).
        template: the placeholder, formatted with ``tool`` (the result's name, else its call's,
            else ``tool``), ``call_id`` and ``chars`` (the output's length).
        min_chars: only outputs longer than this are masked.
    """
    out: dict[int, Message] = {}
    names: dict[str, str] | None = None
    for i in range(turns_start(messages, keep_turns)):
        m = messages[i]
        if m.role != "tool" or len(original := m.text) <= min_chars or is_placeholder(original, template):
            continue
        names = call_names(messages) if names is None else names
        tool = m.name or names.get(m.tool_call_id or "", "tool")
        text = template.format(tool=tool, call_id=m.tool_call_id, chars=len(original))
        if len(text) < len(original):  # never swap a short output for a longer placeholder
            out[i] = m.with_text(text)
    return out


def turns_start(messages: Sequence[Message], turns: int) -> int:
    """Index of the oldest of the newest `turns` assistant messages (0 when there are fewer turns;
    ``len(messages)`` when `turns` is 0 or less)."""
    if turns <= 0:
        return len(messages)
    seen = 0
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "assistant":
            seen += 1
            if seen == turns:
                return i
    return 0


def is_placeholder(text: str, template: str) -> bool:
    """Whether `text` could be `template` filled in: it starts with the template's text before its
    first field and ends with its text after its last."""
    return text.startswith(template.split("{", 1)[0]) and text.endswith(template.rsplit("}", 1)[-1])
