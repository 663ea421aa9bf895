"""Kept head and cut snapping: where the kept part may start without breaking a tool exchange.

Heads (how many leading messages are never compacted):

- ``system``: the leading system messages;
- ``first_system``: the first message if it is a system message (LangChain ``include_system``);
- ``input``: the system prompt and the sample's input, everything up to the first user message
  (inspect_ai ``partition_messages``; a summary message ends the input early);
- ``none``.

Snaps (where a cut at index `i` really lands):

- ``valid_cut``: pi-mono ``findCutPoint``: the first valid cut point at or after `i`, a valid point
  being any message but a tool result; with none after `i`, the first valid point of the range;
- ``owner``: LangChain ``_find_safe_cutoff_point``: a cut on a tool result moves back to the AI
  message that made the call (forward past the results when no such message is found);
- ``group_start``: back out of a tool exchange to the assistant message that made the calls (the
  start of the tool group; what `compaction` does with a token cut);
- ``none``: the cut stays (a faithful policy that breaks pairs reports it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ctxlab.errors import CtxlabError
from ctxlab.messages import Message
from ctxlab.registry import Registry
from ctxlab.strategies.mechanics.context import real_user, system_prefix

HEADS = ("system", "first_system", "input", "none")
Snap = Callable[[Sequence[Message], int, int], int]  # (messages, cut, start) -> where the cut lands
SNAPS: Registry[Snap] = Registry("snap")


def head_end(messages: Sequence[Message], kind: str) -> int:
    """How many leading messages the head `kind` keeps.

    Raises:
        CtxlabError: an unknown head kind.
    """
    if kind == "system":
        return system_prefix(messages)
    if kind == "first_system":
        return 1 if messages and messages[0].role == "system" else 0
    if kind == "input":
        return _input_end(messages)
    if kind == "none":
        return 0
    raise CtxlabError(f"unknown head {kind!r} (valid: {', '.join(HEADS)})")


def _input_end(messages: Sequence[Message]) -> int:
    """inspect_ai: without an explicit input, the input runs up to and including the first user
    message; a summary message is conversation, so it ends the input before it."""
    i = system_prefix(messages)
    while i < len(messages) and messages[i].mark != "summary":
        i += 1
        if messages[i - 1].role == "user":
            break
    return i


@SNAPS.register("none")
def snap_none(messages: Sequence[Message], cut: int, start: int) -> int:
    """The cut stays where it is."""
    return cut


@SNAPS.register("valid_cut")
def snap_valid_cut(messages: Sequence[Message], cut: int, start: int) -> int:
    """pi-mono: the first message at or after `cut` that is not a tool result."""
    valid = [i for i in range(start, len(messages)) if messages[i].role != "tool"]
    after = [i for i in valid if i >= cut]
    if after:
        return after[0]
    return valid[0] if valid else start


@SNAPS.register("owner")
def snap_owner(messages: Sequence[Message], cut: int, start: int) -> int:
    """LangChain: a cut on tool results moves back to the AI message that called them."""
    if cut >= len(messages) or messages[cut].role != "tool":
        return cut
    ids, end = set(), cut
    while end < len(messages) and messages[end].role == "tool":
        ids.add(messages[end].tool_call_id)
        end += 1
    for i in range(cut - 1, start - 1, -1):
        if messages[i].role == "assistant" and ids & {c.id for c in messages[i].tool_calls}:
            return i
    return end


@SNAPS.register("group_start")
def snap_group_start(messages: Sequence[Message], cut: int, start: int) -> int:
    """Back out of a tool exchange: from a tool result to the message before the run of results, the
    assistant message that made the calls (the start of its tool group), never before `start`."""
    if cut >= len(messages):
        return cut
    while cut > start and messages[cut].role == "tool":
        cut -= 1
    return cut


def snap(kind: str, messages: Sequence[Message], cut: int, start: int) -> int:
    """Apply the snap `kind` to a cut at `cut` within ``messages[start:]``.

    Raises:
        UnknownNameError: an unknown snap kind.
    """
    return SNAPS.get(kind)(messages, cut, start)


def newest_tokens(counts: Sequence[int], keep: float, start: int) -> int | None:
    """pi-mono ``findCutPoint``'s walk: the index where the messages from the newest back, summed,
    reach `keep` tokens; None when everything after `start` holds fewer."""
    total = 0
    for i in range(len(counts) - 1, start - 1, -1):
        total += counts[i]
        if total >= keep:
            return i
    return None


def turn_start(messages: Sequence[Message], cut: int, start: int) -> int | None:
    """pi-mono ``findTurnStartIndex``: the user message opening the turn a cut falls in (a cut at the
    end falls in the last turn), or None when the cut itself opens a turn or no user message precedes
    it in ``messages[start:]``. A summary message opens no turn."""
    if cut < len(messages) and real_user(messages[cut]):
        return None
    for i in range(min(cut, len(messages) - 1), start - 1, -1):
        if real_user(messages[i]):
            return i
    return None


__all__ = ["HEADS", "SNAPS", "head_end", "newest_tokens", "snap", "snap_group_start", "snap_none", "snap_owner",
           "snap_valid_cut", "turn_start"]
