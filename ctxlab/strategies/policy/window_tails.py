"""The tails that size the kept part from the window or the trigger's threshold (`tails.TAILS`
lists them with the others), each on its mechanic:

- ``events``: OpenHands' forgotten range over events (the trigger's event and token limits),
  forgetting at least ``min_progress`` of them (`forgotten_events`);
- ``budget``: as much as fits in ``target_share`` of the window, old tool outputs cleared to their
  details first, the oldest groups folded next, the largest outputs cut last (`budget`);
- ``char_share``: Gemini CLI: the newest ``keep_char_share`` of the history by JSON characters,
  from a real user message (`char_share.split_point`), its older tool outputs cut to the room the
  window leaves once the newest ``results_budget_tokens`` are spent (`char_share.budget_cuts`);
  the request being built (what follows the newest assistant message) is always kept;
- ``safe_cut``: Cline: the newest ``keep_tokens`` (at most what the compaction target, a share of
  the trigger's threshold, leaves for messages), the newest typed user turn whole, the cut backed
  to an assistant or typed user message (`safe_cut`);
- ``history_half``: Aider: the completed exchanges split at under half the trigger's threshold
  (`half_split`, the recursion depth being the pass), the summarizer reading the head up to
  ``summary_input_tokens``; the current exchange is kept; an earlier ``Ok.`` (a marker) is dropped,
  not summarized again;
- ``evict``: Letta: the oldest messages evicted, from ``evict_share`` up by tenths, until the rest
  fits in ``1 - evict_share`` of the window (`evict`); everything after the head when no cut is
  found, and on a later pass (Letta's fallback when the result is still over the trigger).
"""

from __future__ import annotations

from itertools import accumulate

from ctxlab.strategies.mechanics.budget import Budget, fit_budget
from ctxlab.strategies.mechanics.char_share import budget_cuts, split_point
from ctxlab.strategies.mechanics.context import Selection, real_user
from ctxlab.strategies.mechanics.evict import evict_cutoff
from ctxlab.strategies.mechanics.forgotten_events import forgotten
from ctxlab.strategies.mechanics.half_split import half_split, head_read
from ctxlab.strategies.mechanics.safe_cut import (
    TRIGGER_RATIO,
    find_cut,
    preserve_tokens,
    request_target,
    user_assistant_pairs,
)
from ctxlab.strategies.mechanics.voices import VOICES
from ctxlab.strategies.policy.job import Job
from ctxlab.strategies.policy.parts import Parts
from ctxlab.tokens.agent_shapes import gemini_content_chars


def events(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    trigger, messages = parts.trigger, job.messages
    forget = forgotten(
        messages, job.counts(trigger.counter), keep_first=parts.head.keep_first, max_size=trigger.events or None,
        max_tokens=trigger.threshold(job.window), min_progress=parts.tail.min_progress,
        total=job.total(trigger.counter))
    if forget is None:
        return None
    span = range(forget.start, forget.stop)
    return Selection(tuple(i for i in range(len(messages)) if i not in span), fold=tuple(span), anchor=forget.start)


def budget(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    tail, window = parts.tail, job.window
    counter = job.counter(tail.counter)
    ceiling = parts.trigger.threshold(window)
    aim = Budget(window, int(window * tail.target_share), window if ceiling is None else min(ceiling, window),
                 counter.overhead(job.request.tools), parts.summary.max_tokens,
                 VOICES[parts.summary.voice].wrapper, parts.middle.mask_keep, parts.trigger.events)
    return fit_budget(job.messages, job.counts(tail.counter), counter, aim, head, start, job.pinned, parts.rescue)


def char_share(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    tail, messages = parts.tail, job.messages
    end = next((i + 1 for i in range(len(messages) - 1, start - 1, -1) if messages[i].role == "assistant"), start)
    history = range(start, end)
    cuts = {}
    if tail.results_budget:
        # formatTruncatedToolOutput's limit: 4 characters per token left in the window, at most the cap
        room = 4 * (job.window - job.total(parts.trigger.counter))
        limit = max(0, min(room, tail.results_cut_chars) if tail.results_cut_chars else room)
        cuts = budget_cuts(messages, [i for i in history if messages[i].role == "tool"],
                                          job.counter(tail.counter).count, tail.results_budget, limit)
    sizes = [gemini_content_chars(cuts.get(i, messages[i])) for i in history]
    splittable = [messages[i].role == "user" for i in history]
    final = end > start and not messages[end - 1].tool_calls
    split = start + split_point(sizes, splittable, 1 - tail.keep_char_share, final)
    if split <= start:
        return None
    return Selection((*range(head), *range(split, len(messages))), fold=tuple(range(start, split)),
                     replaced={i: m for i, m in cuts.items() if i >= split})


def safe_cut(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    tail, messages = parts.tail, job.messages
    counts = job.counts(tail.counter)
    trigger = float(parts.trigger.threshold(job.window) or job.window)
    overhead = sum(counts[:head]) + job.counter(tail.counter).overhead(job.request.tools)
    target = request_target(trigger / TRIGGER_RATIO, trigger, user_assistant_pairs(messages[head:]), tail.max_output)
    cut = find_cut(messages, counts, preserve_tokens(tail.keep_tokens, target, overhead), head)
    if cut is None or cut <= start:
        return None
    return Selection((*range(head), *range(cut, len(messages))), fold=tuple(range(start, cut)))


def history_half(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    messages = job.messages
    current = next((i for i in range(len(messages) - 1, start - 1, -1) if real_user(messages[i])), len(messages))
    if current <= start:
        return None
    counts = job.counts(parts.tail.counter)
    sizes, roles = counts[start:current], [m.role for m in messages[start:current]]
    split = half_split(sizes, roles, parts.trigger.threshold(job.window) or job.window, job.depth)
    read = head_read(sizes[:split], parts.summary.input_tokens) if split and parts.summary.input_tokens else split
    fold = tuple(i for i in range(start, start + (read if split else current - start)) if messages[i].mark != "marker")
    return Selection((*range(head), *range(start + split if split else current, len(messages))), fold=fold)


def evict(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    messages = job.messages
    counts = job.counts(parts.tail.counter)
    offset = head - 1  # Letta's messages[0] is the system prompt: here the head's last message
    suffix = [*reversed(list(accumulate(reversed(counts)))), 0]
    system = sum(counts[:head])
    roles = ["system", *(m.role for m in messages[head:])]
    cutoff = None if job.depth else evict_cutoff(roles, lambda k: system + suffix[offset + k], job.window,
                                                  parts.tail.evict_share)
    if cutoff is None:  # summarize_all: everything after the system prompt
        return Selection(tuple(range(head)), fold=tuple(range(head, len(messages))))
    cut = offset + cutoff
    return Selection((*range(head), *range(cut, len(messages))), fold=tuple(range(head, cut)))


__all__ = ["budget", "char_share", "events", "evict", "history_half", "safe_cut"]
