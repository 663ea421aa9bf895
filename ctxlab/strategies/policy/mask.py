"""Clearing old tool results: every result but the newest `keep` replaced by a placeholder.

Two agents, two orders:

- ``results`` (LangChain ``ClearToolUsesEdit.apply``, langchain 1.5.0 ``context_editing.py``): the
  tool messages in order; a result is cleared only when the nearest AI message before it made the
  call; one already cleared is skipped.
- ``calls`` (inspect_ai ``CompactionEdit.compact``, 0.3.285 ``_compaction/edit.py``): the tool calls
  of the assistant messages in order, each with its result; ``tool_search`` results (tool
  definitions, not output) are never cleared.

The orders differ only when a parallel batch's results come back in another order than the calls.
A cleared message keeps its id, role and call id (marked truncated), so the exchange stays valid.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxlab.errors import CtxlabError
from ctxlab.messages import Message

ORDERS = ("results", "calls")
_NEVER_CLEARED = {"tool_search"}  # inspect_ai TOOL_SEARCH_NAME


def clear_tool_results(messages: Sequence[Message], keep: int, placeholder: str, order: str = "results"
                       ) -> dict[int, Message]:
    """Replacements for the cleared tool results (index -> cleared copy).

    Raises:
        CtxlabError: an unknown order.
    """
    if order == "results":
        candidates = [i for i, m in enumerate(messages) if m.role == "tool"]
    elif order == "calls":
        candidates = _by_calls(messages)
    else:
        raise CtxlabError(f"unknown mask order {order!r} (valid: {', '.join(ORDERS)})")
    cleared = candidates if keep <= 0 else candidates[:-keep] if keep < len(candidates) else []
    if order == "results":
        owned = _owned(messages)
        cleared = [i for i in cleared if i in owned]
    return {i: messages[i].with_text(placeholder) for i in cleared if messages[i].text != placeholder}


def _owned(messages: Sequence[Message]) -> set[int]:
    """LangChain: results whose nearest AI message before them made their call."""
    owned, owner = set(), None
    for i, m in enumerate(messages):
        if m.role == "assistant":
            owner = m
        elif m.role == "tool" and owner is not None and any(c.id == m.tool_call_id for c in owner.tool_calls):
            owned.add(i)
    return owned


def _by_calls(messages: Sequence[Message]) -> list[int]:
    result_at = {m.tool_call_id: i for i, m in enumerate(messages) if m.role == "tool"}
    return [result_at[c.id] for i, m in enumerate(messages) if m.role == "assistant" for c in m.tool_calls
            if c.name not in _NEVER_CLEARED and result_at.get(c.id, -1) > i]
