"""Pruning old tool outputs behind a protected budget, on every call: Gemini CLI's tool-output
masking and opencode's prune are one procedure with other numbers.

Scanning from the newest message back (past the messages the agent never touches, `scan_end`),
every tool output that is not exempt is counted; the first ``protect`` tokens are protected, the
output that crosses that line and every older one are prunable; they are all replaced when their
total reaches ``minimum`` (``>=`` when `inclusive`, else ``>``), and none is otherwise:

- Gemini CLI (google-gemini/gemini-cli ``packages/core/src/context/toolOutputMaskingService.ts`` @
  4a5d5cfc): protect 50,000 tokens, mask when at least 30,000 are prunable; the request being
  built and the newest history ``Content`` are skipped (``protectLatestTurn``); ``activate_skill``,
  ``ask_user``, ``enter_plan_mode`` and ``exit_plan_mode`` outputs are exempt; an output already
  masked is passed over; a masked output keeps a preview (`char_share.preview`) and is used only
  when it is smaller.
- opencode (anomalyco/opencode ``packages/opencode/src/session/compaction.ts`` @ fd78ec63,
  ``prune``): protect 40,000 tokens, erase when more than 20,000 would go; it runs when a turn
  ends, so it sees the history before the newest user message and skips its 2 newest user turns;
  ``skill`` outputs are exempt; the scan stops at an output already erased or at a summary.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from ctxlab.messages import Message
from ctxlab.strategies.mechanics.char_share import preview
from ctxlab.strategies.mechanics.context import call_names, newest_user


def scan_end(messages: Sequence[Message], skip_messages: int = 0, skip_turns: int = 0) -> int:
    """Where the newest-first scan starts (exclusive end of what it sees).

    Args:
        messages: the request.
        skip_messages: Gemini CLI: the newest this many messages are never touched, a run of tool
            results counting as one (one ``Content``): 2 skips the request being built and the
            newest history entry.
        skip_turns: opencode: the history before the newest user message, less its newest this
            many user turns (0: the whole history before the newest user message).
    """
    end = len(messages)
    if skip_turns:
        current = newest_user(messages)
        end = current if current is not None else end
        seen = 0
        while end > 0 and seen < skip_turns:
            end -= 1
            seen += messages[end].role == "user"
        return end if seen == skip_turns else 0
    for _ in range(skip_messages):
        end -= 1
        while end > 0 and messages[end].role == "tool" and messages[end - 1].role == "tool":
            end -= 1
        end = max(end, 0)
    return end


def protected_prune(messages: Sequence[Message], counts: Sequence[int], end: int, *, protect: int, minimum: int,
                    inclusive: bool, exempt: Collection[str], stop_at_pruned: bool,
                    pruned: Callable[[Message], bool]) -> list[int]:
    """Indices of the tool outputs to prune in ``messages[:end]`` (newest first; [] when under `minimum`).

    Args:
        counts: per-message tokens under the agent's counter.
        protect: the newest this many output tokens stay (the output crossing it does not).
        minimum: prune only when the prunable outputs reach this many tokens.
        inclusive: at `minimum` itself (``>=``), not only above it.
        exempt: tool names never pruned nor counted.
        stop_at_pruned: the scan ends at an output already pruned or at a summary (opencode);
            otherwise such an output is passed over (Gemini CLI).
        pruned: whether an output is already a placeholder.
    """
    names = call_names(messages)
    total = prunable = 0
    chosen: list[int] = []
    for i in range(min(end, len(messages)) - 1, -1, -1):
        m = messages[i]
        if stop_at_pruned and m.mark == "summary":
            break
        if m.role != "tool" or (m.name or names.get(m.tool_call_id or "", "")) in exempt:
            continue
        if pruned(m):
            if stop_at_pruned:
                break
            continue
        total += counts[i]
        if total > protect:
            chosen.append(i)
            prunable += counts[i]
    enough = prunable >= minimum if inclusive else prunable > minimum
    return chosen if enough else []


def placeholder(template: str, message: Message, tool: str) -> str:
    """`template` filled for one output: ``{preview}`` (Gemini CLI's preview), ``{path}`` (where
    the agent saves the whole output; ctxlab saves nothing) and ``{tool}``."""
    fields = {"tool": tool, "path": f"tool-outputs/{tool}_{message.tool_call_id}.txt", "preview": ""}
    if "{preview}" in template:
        fields["preview"] = preview(tool, message.text)
    return template.format(**fields)


__all__ = ["placeholder", "protected_prune", "scan_end"]
