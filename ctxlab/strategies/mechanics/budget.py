"""Bringing a context down to a share of its window, cheapest losses first (`Policy`'s ``budget`` tail).

Where the other tails keep a fixed amount (20k tokens, 20 messages, 80%), this one keeps as much
as fits in the target (a share of the window), and pays for the rest in three steps, each only as
far as needed:

1. clear the oldest tool outputs to the lines that later messages of the history so far name
   (`trail.lines`: what the agent went back to), oldest first, stopping as soon as the context
   fits; never the newest `Budget.keep_outputs`, nor one in the newest groups within
   `RECENT_SHARE` of the target (the outputs the agent is working with stay whole);
2. fold the oldest whole tool groups after the head into the summary (earlier summaries with
   them, so a merging voice updates one running summary), keeping the newest groups that fit what
   the head and ``min(summary_max, target / 4)`` for the summary leave; over `Budget.events`
   events (OpenHands' count: a tool call or a message each), also everything but the newest
   `EVENTS_KEPT` of that many, so the context is compacted every few dozen events, not only when
   it is full;
3. shrink the largest tool outputs still kept to head and tail, the cut middle's details in
   the marker (`trail.shrink`), when even the newest group does not fit. The exchange the agent
   is working on may be over the target alone: then the target gives way to the trigger threshold
   (the window at most), so the newest output is cut only as far as that needs, and the history
   around it is not folded for its sake.

The summary may then use up to `Budget.summary_max`, more than the target planned for it, but
never more than the window leaves (`Selection.summary_cap`).

Cuts fall between tool groups (`tool_groups`), so no call is parted from its result. Counts are
those of one counter, message overhead and tool definitions (`Budget.fixed`) included.

With a `rescue.Rescue` (the `learned` policy), the outputs a learned model ranks highest are kept
out of step 2's fold, within a share of the target (`rescue.rescue_before`); without one (every
other policy) nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.mechanics import trail
from ctxlab.strategies.mechanics.context import Selection, Span, call_names, tool_groups
from ctxlab.strategies.mechanics.fit import newest_groups, recount
from ctxlab.strategies.mechanics.refs import last_named, named_later
from ctxlab.strategies.mechanics.rescue import Rescue, Rescued, clearing_order, rescue_before
from ctxlab.strategies.trigger import event_sizes
from ctxlab.tokens import TokenCounter

# Measured on the tuning half of ../shared/reallogs (docs/quality.md): outputs among the newest
# groups within half the target stay whole (the agent is working with them), and over the event
# limit the newest 0.6 of it stay whole, the rest folding into the summary.
RECENT_SHARE = 0.5
EVENTS_KEPT = 0.6
_JOINS = 8  # tokens a summary may count more inside its wrapper than alone (merges at the seams)
_MIN_SHRUNK = 64  # tokens a shrunk output keeps at least (its note), so nothing vanishes silently


class Budget(NamedTuple):
    """What the budget tail aims at, in tokens of its counter.

    Attributes:
        window: the window.
        target: the request's tokens to come down to (a share of the window).
        ceiling: how far an exchange over the target alone is cut: the trigger's threshold, the
            window at most.
        fixed: the counter's overhead (tool definitions, reply priming), in every request.
        summary_max: the summary's cap.
        wrapper: the summary message's content around ``{summary}`` (the policy's voice).
        keep_outputs: the newest tool outputs step 1 never clears.
        events: over this many events, step 2 folds all but the newest `EVENTS_KEPT` of them
            (0: no event limit).
    """

    window: int
    target: int
    ceiling: int
    fixed: int
    summary_max: int
    wrapper: str
    keep_outputs: int
    events: int = 0


def fit_budget(messages: Sequence[Message], counts: Sequence[int], counter: TokenCounter, budget: Budget, head: int,
               start: int, pinned: Collection[int], rescue: Rescue | None = None) -> Selection | None:
    """Keep ``messages[:head]`` and as much after it as the target holds (see the module docstring);
    `pinned` messages before the cut are paid for too, and `rescue` keeps the outputs its model ranks
    highest out of the fold. None when the context already fits."""
    target, original = budget.target - budget.fixed, counts
    names = call_names(messages)
    sizes = event_sizes(messages)
    over_events = bool(budget.events) and sum(sizes) > budget.events
    recent = newest_groups(messages, counts, start, int(RECENT_SHARE * target))
    cleared = clear_oldest(messages, counts, counter, names, sum(counts) - target, start, budget.keep_outputs, recent,
                           (lambda found: clearing_order(messages, counts, found, rescue)) if rescue else None)
    counts = recount(counts, cleared, counter)
    if sum(counts) <= target and not over_events:
        return Selection(tuple(range(len(messages))), replaced=cleared) if cleared else None
    held = [i for i in pinned if head <= i]
    cut, room = _fold_cut(messages, counts, budget, head, start, target, held)
    if over_events:
        cut = max(cut, newest_groups(messages, sizes, start, int(budget.events * EVENTS_KEPT)))
    saved = (rescue_before(messages, original, counter, names, Span(start, cut), target, budget.events, rescue)
             if rescue else Rescued(frozenset(), {}, 0))
    if saved.events and budget.events:  # rescued events come out of the newest the rule keeps
        cut = max(cut, newest_groups(messages, sizes, start, max(0, int(budget.events * EVENTS_KEPT) - saved.events)))
    room -= saved.tokens
    shrunk = shrink_largest(messages, counts, counter, names, range(cut, len(messages)), sum(counts[cut:]) - room,
                            cleared)
    counts = recount(counts, shrunk, counter)
    kept = sum(counts[:head]) + sum(counts[cut:]) + sum(counts[i] for i in held if i < cut) + saved.tokens
    # The summary may take more than its share of the target (its details are the densest record
    # of the folded turns) but never more than the window leaves.
    wrapper = counter.count_message(Message("user", budget.wrapper.format(summary=""))) + _JOINS
    cap = max(1, min(budget.summary_max, budget.window - budget.fixed - wrapper - kept))
    replaced = {i: m for i, m in {**cleared, **shrunk}.items() if i >= cut or i < head} | saved.replaced
    return Selection((*range(head), *sorted(saved.keep), *range(cut, len(messages))),
                     fold=tuple(i for i in range(start, cut) if i not in saved.keep), replaced=replaced, summary_cap=cap)


def _fold_cut(messages: Sequence[Message], counts: Sequence[int], budget: Budget, head: int, start: int, target: int,
              held: Sequence[int]) -> tuple[int, int]:
    """Where the kept groups begin, and the room they have (pinned messages before the cut paid)."""
    reserve = min(budget.summary_max, target // 4)
    room = target - sum(counts[:head]) - reserve
    if sum(counts[_newest_group(messages, start):]) > room:
        # The exchange the agent is working on is over the target alone: it is cut only as far as
        # the trigger threshold (the window at most) needs, and the history kept within that too.
        room = budget.ceiling - budget.fixed - sum(counts[:head]) - reserve
    cut = newest_groups(messages, counts, start, room)
    return cut, room - sum(counts[i] for i in held if i < cut)


def clear_oldest(messages: Sequence[Message], counts: Sequence[int], counter: TokenCounter, names: dict[str, str],
                 excess: int, start: int, keep_newest: int, stop: int | None = None,
                 order: Callable[[list[int]], list[int]] | None = None) -> dict[int, Message]:
    """The oldest tool outputs after `start` (and before `stop`) cleared to the lines later messages
    name (`trail.lines`) until `excess` tokens are saved (fewer when the outputs run out), never one
    of the newest `keep_newest` nor one already cleared or cut; `order` reorders them (a learned
    ranking, least needed first)."""
    out: dict[int, Message] = {}
    last = last_named(messages)
    candidates = [i for i in _clearable(messages, start, keep_newest) if stop is None or i < stop]
    for i in order(candidates) if order is not None else candidates:
        if excess <= 0:
            break
        message = messages[i]
        cleared = trail.lines(message, named_later(messages, i, last), names.get(message.tool_call_id or "", "tool"))
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


__all__ = ["Budget", "clear_oldest", "fit_budget", "shrink_largest"]
