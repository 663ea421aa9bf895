"""Kept tails: what each policy keeps after its head, as a `Selection` (None: nothing to do).

Every tail receives the job, the head's end (``messages[:head]`` are always kept) and the start of
the compactable body (after the head, and after previous summaries a policy folds). The policy's
``tail_value`` is the tail's size and ``tail_counter`` the agent counter it is measured with:

- ``all``: keep everything (for masking policies);
- ``none``: keep nothing after the head; fold the head (kept, but shown to the summarizer) and the
  body from its last summary message on (inspect_ai ``CompactionSummary``: system + input + the
  summary and what followed it are summarized again);
- ``recent_tokens``: pi-mono ``findCutPoint``: walk back from the newest message summing the
  counter until ``tail_value`` tokens, then snap; a cut inside a turn splits it (``split_turns``);
- ``recent_messages``: LangChain ``keep=("messages", n)``: the last n messages, snapped;
- ``user_messages``: Codex: user messages newest first up to ``tail_value`` tokens (`handoff`);
- ``share``: inspect_ai ``trim_messages``: the last ``tail_value`` share of the body's messages,
  tool results without their call dropped (``repair_orphans``), a trailing assistant message popped;
- ``fit``: LangChain ``trim_messages``: the longest suffix within ``tail_value`` tokens (the window
  when 0), optionally starting on a user message (`lc_trim`);
- ``events``: OpenHands' forgotten range over events (`events`);
- ``budget``: as much as fits in ``tail_value`` of the window, old tool outputs cleared to their
  details first, the oldest groups folded next, the largest outputs cut last (`budget`).
"""

from __future__ import annotations

from collections.abc import Callable

from ctxlab.errors import CtxlabError
from ctxlab.messages import Message
from ctxlab.strategies.mechanics import newest_user
from ctxlab.strategies.policy import events, handoff, lc_trim
from ctxlab.strategies.policy.budget import fit_budget
from ctxlab.strategies.policy.cuts import snap, turn_start
from ctxlab.strategies.policy.job import Job, Selection
from ctxlab.strategies.policy.window import threshold


def keep_all(job: Job, head: int, start: int) -> Selection | None:
    return Selection(tuple(range(len(job.messages))))


def keep_none(job: Job, head: int, start: int) -> Selection | None:
    messages = job.messages
    last = next((i for i in range(len(messages) - 1, start - 1, -1) if messages[i].mark == "summary"), start)
    if last >= len(messages):
        return None
    # inspect_ai summarizes system + input + conversation: the head is context for the summarizer
    return Selection(tuple(range(head)), fold=(*range(head), *range(last, len(messages))))


def recent_tokens(job: Job, head: int, start: int) -> Selection | None:
    p, messages = job.policy, job.messages
    counts, total, cut = job.counts(p.tail_counter), 0, None
    for i in range(len(messages) - 1, start - 1, -1):
        total += counts[i]
        if total >= p.tail_value:
            cut = snap(p.snap, messages, i, start)
            break
    if cut is None:  # the whole body is recent: pi-mono keeps from its first valid cut point
        cut = snap(p.snap, messages, len(messages), start) if start < len(messages) else start
    turn = turn_start(messages, cut, start) if p.split_turns else None
    fold_end = cut if turn is None else turn
    return Selection((*range(head), *range(cut, len(messages))), fold=tuple(range(start, fold_end)),
                     prefix=tuple(range(fold_end, cut)))


def recent_messages(job: Job, head: int, start: int) -> Selection | None:
    p, messages = job.policy, job.messages
    if len(messages) - start <= int(p.tail_value):
        return None
    cut = snap(p.snap, messages, len(messages) - int(p.tail_value), start)
    if cut <= start:
        return None
    return Selection((*range(head), *range(cut, len(messages))), fold=tuple(range(start, cut)))


def user_messages(job: Job, head: int, start: int) -> Selection | None:
    p, messages = job.policy, job.messages
    if start >= len(messages):
        return None
    kept, replaced = handoff.user_messages(messages, start, job.counts(p.tail_counter), int(p.tail_value),
                                           newest_user(messages))
    return Selection((*range(head), *kept), fold=tuple(range(start, len(messages))), replaced=replaced)


def share(job: Job, head: int, start: int) -> Selection | None:
    p, messages = job.policy, job.messages
    first = start + int((len(messages) - start) * (1 - p.tail_value))
    kept = _without_orphans(messages, first) if p.repair_orphans else list(range(first, len(messages)))
    if kept and messages[kept[-1]].role == "assistant":
        kept.pop()  # inspect_ai: the conversation may not end with an assistant message
    return Selection((*range(head), *kept), fold=tuple(i for i in range(start, len(messages)) if i not in kept))


def _without_orphans(messages: tuple[Message, ...], first: int) -> list[int]:
    """inspect_ai: a tool result is kept only after the assistant message that called it."""
    kept, active = [], set()
    for i in range(first, len(messages)):
        m = messages[i]
        if m.role == "assistant":
            active = {c.id for c in m.tool_calls}
        elif m.role == "tool" and m.tool_call_id not in active:
            continue
        elif m.role == "user":
            active = set()
        kept.append(i)
    return kept


def fit(job: Job, head: int, start: int) -> Selection | None:
    p, messages = job.policy, job.messages
    budget = int(p.tail_value) or job.window
    kept = lc_trim.trim_last(messages, budget, job.counter(p.tail_counter), start_on_user=p.start_on_user,
                             include_system=head > 0)
    return Selection(tuple(i for i, _ in kept), replaced={i: m for i, m in kept if m is not messages[i]})


def forgotten_events(job: Job, head: int, start: int) -> Selection | None:
    p, messages = job.policy, job.messages
    limit = threshold(p.trigger, p.trigger_value, job.window, p.trigger_inclusive).tokens
    forget = events.forgotten(messages, job.counts(p.trigger_counter), keep_first=p.keep_first,
                              max_size=p.trigger_events or None, max_tokens=limit, min_progress=p.tail_value,
                              total=job.total(p.trigger_counter))
    if forget is None:
        return None
    span = range(forget.start, forget.stop)
    return Selection(tuple(i for i in range(len(messages)) if i not in span), fold=tuple(span), anchor=forget.start)


TAILS: dict[str, Callable[[Job, int, int], Selection | None]] = {
    "all": keep_all, "none": keep_none, "recent_tokens": recent_tokens, "recent_messages": recent_messages,
    "user_messages": user_messages, "share": share, "fit": fit, "events": forgotten_events, "budget": fit_budget}


def select(job: Job, kind: str, head: int, start: int) -> Selection | None:
    """Run the tail `kind`.

    Raises:
        CtxlabError: an unknown tail kind.
    """
    if kind not in TAILS:
        raise CtxlabError(f"unknown tail {kind!r} (valid: {', '.join(TAILS)})")
    return TAILS[kind](job, head, start)
