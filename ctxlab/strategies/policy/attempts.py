"""Compaction retried over candidate cuts (``retry="keep_less"``, seed 001's 情况 3: compact again
keeping less history).

Each attempt compacts the SAME input (`apply`): it cuts the body at a candidate, keeps the head, the
pinned newest user message and everything from the cut on, and summarizes only what it drops (the
history before the cut's turn, and a split turn's prefix) within the room the kept messages leave.
The candidates keep less each time: the tail's ``keep_rounds`` rounds, one fewer per attempt
(``rounds``), or its ``keep_tokens`` (at most the room) halved per attempt (``recent_tokens``),
``passes - 1`` of them. An attempt whose summary would get less than the floor (an eighth of the
room after the head, 48 tokens at least, the summary cap at most), or whose summarizer failed
(``on_error="drop"``), yields to the next. Then the last resort: the newest whole tool groups that
leave a quarter of the room for the summary; then the summaries carried from earlier compactions
alone (summarized again into the room when they no longer fit). A result still over the window, or
none at all, becomes a window: its head and summary, the pinned newest user message, and the newest
whole tool groups that fit (`frame.window`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.base import Event
from ctxlab.strategies.mechanics.context import Selection
from ctxlab.strategies.mechanics.cuts import turn_start
from ctxlab.strategies.policy import apply
from ctxlab.strategies.policy.frame import Frame, suffix_start, window
from ctxlab.strategies.policy.job import Job
from ctxlab.strategies.policy.parts import Parts
from ctxlab.strategies.policy.tails import round_cuts, token_cut
from ctxlab.strategies.trigger import REQUEST
from ctxlab.summarize import Summarizer

MIN_SUMMARY_TOKENS = 48
SHRINKING = ("rounds", "recent_tokens")  # the tails whose candidates keep less each time


class Outcome(NamedTuple):
    """The compaction: `apply.Made`'s fields, and how many attempts it took."""

    messages: tuple[Message, ...]
    head: int
    summarized: tuple[int, ...]
    split: bool
    events: tuple[Event, ...]
    error: str | None
    fallback: str | None
    attempts: int


def run(parts: Parts, engine: Summarizer, job: Job, at: Frame, drops_pinned: bool = False) -> Outcome:
    """The attempts, the last resort, the carried summary, and the window when still over."""
    cap = parts.summary.max_tokens
    floor = min(cap, max(MIN_SUMMARY_TOKENS, at.available // 8))
    tried, made = 0, None
    for cut in cuts(parts, job, at):
        tried += 1
        made = _attempt(parts, engine, job, at, cut, floor, drops_pinned)
        if made is not None:
            break
    else:
        tried += 1
        reserve = min(cap, max(MIN_SUMMARY_TOKENS, at.available // 4))
        last = suffix_start(job, at, at.available - reserve - at.header)
        made = _attempt(parts, engine, job, at, last, 16, drops_pinned) or _carry(parts, engine, job, at)
    return _fitted(job, at, made, tried)


def cuts(parts: Parts, job: Job, at: Frame) -> list[int]:
    """The first kept index of each regular attempt, keeping less each time (new cuts only)."""
    tail, tries = parts.tail, max(1, parts.passes - 1)
    found: Sequence[int | None]
    if tail.kind == "recent_tokens":
        keep = min(int(tail.keep_tokens), max(at.available, 1))
        found = [token_cut(job, tail, at.start, max(1, keep >> k)) for k in range(tries)]
    else:
        found = round_cuts(job.messages, at.start, [r for r in range(tail.keep_rounds, tail.keep_rounds - tries, -1)
                                                    if r >= 1])
    return [c for i, c in enumerate(found) if c is not None and c > at.start and c not in found[:i]]


def _attempt(parts: Parts, engine: Summarizer, job: Job, at: Frame, cut: int, floor: int,
             drops_pinned: bool) -> apply.Made | None:
    """Summarize everything before `cut` but the pinned newest user message; None when the kept
    messages leave less than `floor` tokens for the summary, or `apply` makes nothing."""
    messages, counts = job.messages, job.counts(REQUEST)
    kept = list(range(max(cut, at.start), len(messages)))
    if at.newest is not None and at.newest < cut:
        kept.insert(0, at.newest)
    cap = min(parts.summary.max_tokens, at.available - sum(counts[i] for i in kept) - at.header)
    if cap < floor:
        return None
    turn = turn_start(messages, cut, at.start) if parts.tail.split_turns else None
    turn = cut if turn is None else turn
    fold = tuple(i for i in range(at.start, turn) if i not in kept)
    prefix = tuple(i for i in range(turn, min(cut, len(messages))) if i not in kept)
    sel = Selection((*range(at.head), *kept), fold, prefix, summary_cap=cap)
    return apply.apply(parts, engine, job, at.head, at.start, sel, drops_pinned)


def _carry(parts: Parts, engine: Summarizer, job: Job, at: Frame) -> apply.Made | None:
    """Nothing new to summarize: keep the carried summaries, summarized again into the room left
    when they no longer fit, and the window after them."""
    previous = tuple(range(at.head, at.start))
    if not previous:
        return None
    counts = job.counts(REQUEST)
    room = at.available - (counts[at.newest] if at.newest is not None else 0)
    if sum(counts[i] for i in previous) <= room:
        return apply.Made(window(job, at, job.messages[:at.start]), None, (), (), at.start)
    written = apply.write(parts, engine, job, previous, len(previous), (), room - at.header, previous, len(previous))
    if written is None or written.note is None:
        return None
    head = (*job.messages[:at.head], written.note)
    return apply.Made(window(job, at, head), None, written.events, previous, len(head), False, written.error,
                      "extractive" if written.error else None)


def _fitted(job: Job, at: Frame, made: apply.Made | None, tried: int) -> Outcome:
    """`made` as an `Outcome`; a window after its head (or the head) when it is None or still over."""
    counter = job.counter(REQUEST)
    over = made is None or sum(map(counter.count_message, made.messages)) + counter.overhead(job.request.tools) > \
        job.window
    if made is None:
        return Outcome(window(job, at, job.messages[:at.head]), at.head, (), False, (), None, "window", tried)
    outcome = Outcome(made.messages, made.head, made.summarized, made.split, made.events, made.error, made.fallback,
                      tried)
    return outcome._replace(messages=window(job, at, made.messages[:made.head]), fallback="window") if over \
        else outcome


__all__ = ["MIN_SUMMARY_TOKENS", "SHRINKING", "Outcome", "cuts", "run"]
