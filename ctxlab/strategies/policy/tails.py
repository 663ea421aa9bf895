"""Kept tails: what a policy keeps after its head, as a `Selection` (None: nothing to do).

Every tail receives the job, the head's end (``messages[:head]`` are always kept), the start of the
compactable body (after the head, and after previous summaries a policy folds) and the policy's
`Parts`. It reads its own size (`Tail`: ``keep_tokens``, ``keep_messages``, ``keep_message_share``,
``target_share`` or ``min_progress``), measured with the tail's counter, and calls the mechanics:

- ``all``: keep everything (for masking policies);
- ``none``: keep nothing after the head; fold the head (kept, but shown to the summarizer) and the
  body from its last summary message on (inspect_ai ``CompactionSummary``: system + input + the
  summary and what followed it are summarized again);
- ``none_body``: the same without showing the head to the summarizer (opencode and goose summarize
  the conversation, not the system prompt);
- ``recent_tokens``: pi-mono ``findCutPoint``: walk back from the newest message summing the
  counter until ``keep_tokens``, then snap; a cut inside a turn splits it (``split_turns``);
- ``recent_messages``: LangChain ``keep=("messages", n)``: the last ``keep_messages``, snapped;
- ``rounds``: seed 001: the last ``keep_rounds`` rounds, a round opening at a real user message;
- ``user_messages``: Codex: user messages newest first up to ``keep_tokens`` (`handoff`);
- ``share``: inspect_ai ``trim_messages``: the last ``keep_message_share`` of the body's messages,
  tool results without their call dropped (``repair_orphans``), a trailing assistant message popped;
- ``fit``: LangChain ``trim_messages``: the longest suffix within ``keep_tokens`` (the window when
  0), optionally starting on a user message (`trim`);
- ``events``, ``budget``, ``char_share``, ``safe_cut``, ``history_half``, ``evict``: the tails
  sized from the window or the trigger's threshold (`window_tails`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ctxlab.messages import Message
from ctxlab.registry import Registry
from ctxlab.strategies.mechanics import handoff, trim
from ctxlab.strategies.mechanics.context import Selection, newest_user, real_user
from ctxlab.strategies.mechanics.cuts import newest_tokens, snap, turn_start
from ctxlab.strategies.mechanics.integrity import without_orphans
from ctxlab.strategies.policy import window_tails as wt
from ctxlab.strategies.policy.job import Job
from ctxlab.strategies.policy.parts import Parts, Tail


def keep_all(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    return Selection(tuple(range(len(job.messages))))


def keep_none(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    messages = job.messages
    last = next((i for i in range(len(messages) - 1, start - 1, -1) if messages[i].mark == "summary"), start)
    if last >= len(messages):
        return None
    # inspect_ai summarizes system + input + conversation: the head is context for the summarizer
    return Selection(tuple(range(head)), fold=(*range(head), *range(last, len(messages))))


def keep_none_body(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    sel = keep_none(job, head, start, parts)
    return None if sel is None else sel._replace(fold=tuple(i for i in sel.fold if i >= head))


def recent_tokens(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    tail, messages = parts.tail, job.messages
    cut = token_cut(job, tail, start, tail.keep_tokens)
    if cut is None:  # the whole body is recent: pi-mono keeps from its first valid cut point
        cut = snap(tail.snap, messages, len(messages), start) if start < len(messages) else start
    turn = turn_start(messages, cut, start) if tail.split_turns else None
    fold_end = cut if turn is None else turn
    return Selection((*range(head), *range(cut, len(messages))), fold=tuple(range(start, fold_end)),
                     prefix=tuple(range(fold_end, cut)))


def token_cut(job: Job, tail: Tail, start: int, keep: float) -> int | None:
    """pi-mono ``findCutPoint``: walk back from the newest message summing the tail's counter until
    `keep` tokens, then snap; None when the body after `start` holds fewer."""
    at = newest_tokens(job.counts(tail.counter), keep, start)
    return None if at is None else snap(tail.snap, job.messages, at, start)


def rounds(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    messages = job.messages
    cut = round_cuts(messages, start, [parts.tail.keep_rounds])[0]
    if cut <= start:
        return None
    return Selection((*range(head), *range(cut, len(messages))), fold=tuple(range(start, cut)))


def round_cuts(messages: Sequence[Message], start: int, counts: Sequence[int]) -> list[int]:
    """Seed 001: the first kept index when keeping each of `counts` last rounds after `start` (a
    round opens at a real user message; all of them when there are fewer, none without one)."""
    starts = [i for i in range(start, len(messages)) if real_user(messages[i])] or [len(messages)]
    return [starts[-r] if len(starts) >= r else starts[0] for r in counts]


def recent_messages(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    keep, messages = parts.tail.keep_messages, job.messages
    if len(messages) - start <= keep:
        return None
    cut = snap(parts.tail.snap, messages, len(messages) - keep, start)
    if cut <= start:
        return None
    return Selection((*range(head), *range(cut, len(messages))), fold=tuple(range(start, cut)))


def user_messages(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    tail, messages = parts.tail, job.messages
    if start >= len(messages):
        return None
    kept, replaced = handoff.user_messages(messages, start, job.counts(tail.counter), tail.keep_tokens,
                                                 newest_user(messages))
    return Selection((*range(head), *kept), fold=tuple(range(start, len(messages))), replaced=replaced)


def share(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    tail, messages = parts.tail, job.messages
    first = start + int((len(messages) - start) * (1 - tail.keep_message_share))
    kept = without_orphans(messages, first) if tail.repair_orphans else list(range(first, len(messages)))
    if kept and messages[kept[-1]].role == "assistant":
        kept.pop()  # inspect_ai: the conversation may not end with an assistant message
    return Selection((*range(head), *kept), fold=tuple(i for i in range(start, len(messages)) if i not in kept))


def fit(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    tail, messages = parts.tail, job.messages
    kept = trim.trim_last(messages, tail.keep_tokens or job.window, job.counter(tail.counter),
                          start_on_user=tail.start_on_user, include_system=head > 0)
    return Selection(tuple(i for i, _ in kept), replaced={i: m for i, m in kept if m is not messages[i]})


TailKind = Callable[[Job, int, int, Parts], Selection | None]
TAILS: Registry[TailKind] = Registry("tail")
for _name, _tail in (("all", keep_all), ("none", keep_none), ("none_body", keep_none_body),
                     ("recent_tokens", recent_tokens), ("recent_messages", recent_messages), ("rounds", rounds),
                     ("user_messages", user_messages), ("share", share), ("fit", fit), ("events", wt.events),
                     ("budget", wt.budget), ("char_share", wt.char_share), ("safe_cut", wt.safe_cut),
                     ("history_half", wt.history_half), ("evict", wt.evict)):
    TAILS.register(_name, _tail)


def select(job: Job, head: int, start: int, parts: Parts) -> Selection | None:
    """Run the policy's tail.

    Raises:
        UnknownNameError: an unknown tail kind.
    """
    return TAILS.get(parts.tail.kind)(job, head, start, parts)
