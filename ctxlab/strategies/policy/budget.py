"""The ``budget`` tail: bring the context down to a share of the window, cheapest losses first.

Where the other tails keep a fixed amount (20k tokens, 20 messages, 80%), this one keeps as much
as fits in ``tail_value`` of the window (the target), and pays for the rest in three steps, each
only as far as needed:

1. clear the oldest tool outputs, keeping their details (`trail.digest`), but never the newest
   ``mask_keep`` (observation masking, oldest first, stopping as soon as the context fits);
2. fold the oldest whole tool groups after the head into the summary (earlier summaries with
   them, so a merging voice updates one running summary), keeping the newest groups that fit what
   the head and ``min(summary_max_tokens, target / 4)`` for the summary leave;
3. shrink the largest tool outputs still kept to head and tail, the cut middle's details in
   the marker (`trail.shrink`), when even the newest group does not fit. The exchange the agent
   is working on may be over the target alone: then the target gives way to the trigger threshold
   (the window at most), so the newest output is cut only as far as that needs, and the history
   around it is not folded for its sake.

The summary may then use up to ``summary_max_tokens``, more than the target planned for it, but
never more than the window leaves (`Selection.summary_cap`): measured on the bundled agent sessions,
the summary's size matters most to what a compacted context still holds, because its details
section is the densest record of what the folded turns named.

Cuts fall between tool groups (`tool_groups`), so no call is parted from its result. Counts are
the ``tail_counter``'s, message overhead and tool definitions included.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ctxlab.messages import Message
from ctxlab.strategies.mechanics import Span, call_names, drop_oldest_turns, tool_groups
from ctxlab.strategies.policy import trail
from ctxlab.strategies.policy.fit import recount
from ctxlab.strategies.policy.job import Job, Selection
from ctxlab.strategies.policy.voices import VOICES
from ctxlab.tokens import TokenCounter

_JOINS = 8  # tokens a summary may count more inside its wrapper than alone (merges at the seams)
_MIN_SHRUNK = 64  # tokens a shrunk output keeps at least (its note), so nothing vanishes silently


def fit_budget(job: Job, head: int, start: int) -> Selection | None:
    """The ``budget`` tail (see the module docstring); None when the context already fits."""
    p, messages = job.policy, job.messages
    counter = job.counter(p.tail_counter)
    counts = list(job.counts(p.tail_counter))
    fixed = counter.overhead(job.request.tools)
    target = int(job.window * p.tail_value) - fixed
    names = call_names(messages)
    cleared = clear_oldest(messages, counts, counter, names, sum(counts) - target, start, p.mask_keep)
    counts = recount(counts, cleared, counter)
    if sum(counts) <= target:
        return Selection(tuple(range(len(messages))), replaced=cleared) if cleared else None
    cut, room = _fold_cut(job, counts, head, start, target, fixed)
    shrunk = shrink_largest(messages, counts, counter, names, range(cut, len(messages)), sum(counts[cut:]) - room,
                            cleared)
    counts = recount(counts, shrunk, counter)
    kept = sum(counts[:head]) + sum(counts[cut:]) + sum(counts[i] for i in job.pinned if head <= i < cut)
    # The summary may take more than its share of the target (its details are the densest record
    # of the folded turns) but never more than the window leaves.
    wrapper = counter.count_message(Message("user", VOICES[p.voice].wrapper.format(summary=""))) + _JOINS
    cap = max(1, min(p.summary_max_tokens, job.window - fixed - wrapper - kept))
    replaced = {i: m for i, m in {**cleared, **shrunk}.items() if i >= cut or i < head}
    return Selection((*range(head), *range(cut, len(messages))), fold=tuple(range(start, cut)), replaced=replaced,
                     summary_cap=cap)


def _fold_cut(job: Job, counts: Sequence[int], head: int, start: int, target: int, fixed: int) -> tuple[int, int]:
    """Where the kept groups begin, and the room they have (pinned messages before the cut paid)."""
    p, messages = job.policy, job.messages
    reserve = min(p.summary_max_tokens, target // 4)
    room = target - sum(counts[:head]) - reserve
    if sum(counts[_newest_group(messages, start):]) > room:
        # The exchange the agent is working on is over the target alone: it is cut only as far as
        # the trigger threshold (the window at most) needs, and the history kept within that too.
        room = int(job.window * min(p.trigger_value, 1.0)) - fixed - sum(counts[:head]) - reserve
    cut = newest_groups(messages, counts, start, room)
    return cut, room - sum(counts[i] for i in job.pinned if head <= i < cut)


def clear_oldest(messages: Sequence[Message], counts: Sequence[int], counter: TokenCounter, names: dict[str, str],
                 excess: int, start: int, keep_newest: int) -> dict[int, Message]:
    """Digests of the oldest tool outputs after `start` that save `excess` tokens (fewer when the
    outputs run out), never one of the newest `keep_newest` nor one already cleared or cut."""
    out: dict[int, Message] = {}
    for i in _clearable(messages, start, keep_newest):
        if excess <= 0:
            break
        message = messages[i]
        cleared = trail.digest(message, names.get(message.tool_call_id or "", "tool"))
        saved = counts[i] - counter.count_message(cleared)
        if saved > 0:
            out[i] = cleared
            excess -= saved
    return out


def _clearable(messages: Sequence[Message], start: int, keep_newest: int) -> Iterator[int]:
    results = [i for i in range(start, len(messages)) if messages[i].role == "tool"]
    old = results[:-keep_newest] if keep_newest > 0 else results
    return (i for i in old if messages[i].mark is None)


def _newest_group(messages: Sequence[Message], start: int) -> int:
    groups = tool_groups(messages[start:])
    return start + groups[-1].start if groups else start


def newest_groups(messages: Sequence[Message], counts: Sequence[int], start: int, room: int) -> int:
    """Where the kept part begins: the start of the newest whole tool groups after `start` that fit
    in `room` (the newest group at least)."""
    groups = [Span(a + start, b + start) for a, b in tool_groups(messages[start:])]
    if not groups:
        return start
    first = min(drop_oldest_turns(groups, counts, room), len(groups) - 1)
    return groups[first].start


def shrink_largest(messages: Sequence[Message], counts: Sequence[int], counter: TokenCounter, names: dict[str, str],
                   kept: Sequence[int], excess: int, current: dict[int, Message]) -> dict[int, Message]:
    """Head+tail cuts of the largest kept tool outputs, largest first, saving `excess` tokens."""
    out: dict[int, Message] = {}
    for i in sorted((i for i in kept if messages[i].role == "tool"), key=lambda i: -counts[i]):
        if excess <= 0:
            break
        message = current.get(i, messages[i])
        allowed = max(counts[i] - excess, _MIN_SHRUNK)
        cut = trail.shrink(message, allowed, counter, names.get(message.tool_call_id or "", "tool"))
        saved = counts[i] - counter.count_message(cut)
        if saved > 0:
            out[i] = cut
            excess -= saved
    return out
