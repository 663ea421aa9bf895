"""Character-share split (the ``char_share`` tail): where the kept share of the history, by
characters, starts; the budget of whole tool outputs; how an output is cut or previewed (Gemini
CLI's chat compression and tool-output masking).

Source: google-gemini/gemini-cli @ 5411f113: ``packages/core/src/context/chatCompressionService.ts``
@ 4a5d5cfc (``findCompressSplitPoint``, ``truncateHistoryToBudget``), ``toolOutputMaskingService.ts``
@ 4a5d5cfc (``formatShellPreview``, ``formatSimplePreview``, the general head and tail preview) and
``packages/core/src/utils/fileUtils.ts`` (``formatTruncatedToolOutput``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from ctxlab.errors import CtxlabError
from ctxlab.messages import Message
from ctxlab.summarize import agent_prompts as ap

SHELL_TOOL = "run_shell_command"
_SECTION = re.compile(r"^(Output|Error|Exit Code|Signal|Background PIDs|Process Group PGID): ", re.MULTILINE)


def split_point(sizes: Sequence[int], splittable: Sequence[bool], fraction: float, final_answer: bool) -> int:
    """``findCompressSplitPoint``: the first splittable entry (a user message that is no tool result)
    with at least ``fraction`` of the characters before it; none: everything (``len(sizes)``) when
    the history ends with a final answer (a model message without calls), else the last splittable
    entry seen (0: nothing to compress).

    Raises:
        CtxlabError: a fraction outside (0, 1).
    """
    if not 0 < fraction < 1:
        raise CtxlabError("the compressed fraction must be between 0 and 1")
    target = sum(sizes) * fraction
    last = cumulative = 0
    for i, size in enumerate(sizes):
        if splittable[i]:
            if cumulative >= target:
                return i
            last = i
        cumulative += size
    return len(sizes) if final_answer else last


def truncated_output(text: str, max_chars: int, path: str) -> str:
    """``formatTruncatedToolOutput``: the first 20% and the last 80% of `max_chars` characters with a
    note (the text itself when it is no longer)."""
    if len(text) <= max_chars:
        return text
    head = max(0, max_chars) * 2 // 10
    tail = max(0, max_chars) - head
    return ap.GEMINI_TRUNCATED.format(head=head, tail=tail, path=path, first=text[:head],
                                      omitted=len(text) - head - tail, last=text[len(text) - tail:])


def budget_cuts(messages: Sequence[Message], indices: Sequence[int], count: Callable[[str], int], budget: int,
                max_chars: int) -> dict[int, Message]:
    """``truncateHistoryToBudget``: newest first, tool outputs stay whole while their running total
    is within `budget`; every other is cut to `max_chars` (its cut size then counting toward it)."""
    used = 0
    out: dict[int, Message] = {}
    for i in sorted(indices, reverse=True):
        text = messages[i].text
        tokens = count(text)
        if used + tokens <= budget:
            used += tokens
            continue
        cut = truncated_output(text, max_chars, f"tool-outputs/{messages[i].tool_call_id}.txt")
        used += count(cut)
        if cut != text:
            out[i] = messages[i].with_text(cut)
    return out


def preview(tool: str, text: str) -> str:
    """What a masked output keeps: a shell command's sections (its ``Output:`` cut to 10 + 10 lines),
    or the first and last 250 characters of the response's JSON (all of it up to 500)."""
    if tool == SHELL_TOOL:
        return _shell_preview(text)
    content = json.dumps({"output": text}, indent=2, ensure_ascii=False)
    return content if len(content) <= 500 else f"{content[:250]}\n... [TRUNCATED] ...\n{content[-250:]}"


def _shell_preview(text: str) -> str:
    parts = _SECTION.split(text)
    if len(parts) < 3:
        return _lines_preview(text)
    shown = [_lines_preview(parts[0].strip())] if parts[0].strip() else []
    for name, body in zip(parts[1::2], parts[2::2], strict=False):
        shown.append(f"Output: {_lines_preview(body.strip())}" if name == "Output" else f"{name}: {body.strip()}")
    return "\n".join(shown)


def _lines_preview(text: str) -> str:
    lines = text.split("\n")
    if len(lines) <= 20:
        return text
    head, tail = "\n".join(lines[:10]), "\n".join(lines[-10:])
    return f"{head}\n\n... [{len(lines) - 20} lines omitted] ...\n\n{tail}"


__all__ = ["SHELL_TOOL", "budget_cuts", "preview", "split_point", "truncated_output"]
