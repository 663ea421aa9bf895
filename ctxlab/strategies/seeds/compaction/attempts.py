"""The attempts of one compaction (private to `compaction`): seed 001's passes keeping fewer recent
messages each time, pi-mono's split turns, the newest whole groups as the last attempt, and the
carried summary alone when nothing new is left to summarize."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from ctxlab.strategies.mechanics import summary
from ctxlab.strategies.mechanics.context import real_user
from ctxlab.strategies.mechanics.cuts import newest_tokens, snap_group_start, turn_start
from ctxlab.strategies.mechanics.voices import VOICES
from ctxlab.strategies.seeds.compaction.job import Ctx, Outcome, suffix_start, window
from ctxlab.strategies.seeds.compaction.summaries import Written

MIN_SUMMARY_TOKENS = 48
CTXLAB = VOICES["ctxlab"]  # the summary message: pi-mono's wrapper around ctxlab's sections
# (ctx, history, turn prefix, carried summaries, cap) -> the summary written
Writer = Callable[[Ctx, list[int], list[int], list[int], int], Written]


class Sizes(NamedTuple):
    """What the attempts keep and allow: `compaction`'s parameters of the same names."""

    keep_recent_rounds: int
    keep_recent_tokens: int | None
    max_attempts: int
    summary_max_tokens: int


def run(ctx: Ctx, sizes: Sizes, write: Writer) -> tuple[Outcome | None, int]:
    """The regular attempts, each keeping fewer recent messages while the summary's room is under
    the floor; then the newest whole groups that leave room; then the carried summary alone."""
    floor = min(sizes.summary_max_tokens, max(MIN_SUMMARY_TOKENS, ctx.available // 8))
    attempts = 0
    for cut in cuts(ctx, sizes):
        attempts += 1
        outcome = compact(ctx, cut, floor, sizes.summary_max_tokens, write)
        if outcome is not None:
            return outcome, attempts
    reserve = min(sizes.summary_max_tokens, max(MIN_SUMMARY_TOKENS, ctx.available // 4))
    last = suffix_start(ctx, ctx.available - reserve - ctx.header)
    return (compact(ctx, last, 16, sizes.summary_max_tokens, write) or carry(ctx, write)), attempts + 1


def cuts(ctx: Ctx, sizes: Sizes) -> list[int]:
    """First kept index of each regular attempt, keeping fewer recent messages each time."""
    tries = max(1, sizes.max_attempts - 1)
    if sizes.keep_recent_tokens:
        keep = min(int(sizes.keep_recent_tokens), max(ctx.available, 1))
        found = [token_cut(ctx, max(1, keep >> k)) for k in range(tries)]
    else:
        rounds = sizes.keep_recent_rounds
        found = round_cuts(ctx, [r for r in range(rounds, rounds - tries, -1) if r >= 1])
    return [c for i, c in enumerate(found) if c > ctx.body_start and c not in found[:i]]


def round_cuts(ctx: Ctx, rounds: Sequence[int]) -> list[int]:
    """Seed 001: the first kept index when keeping each number of the last `rounds` (a round opens at
    a real user message)."""
    starts = [i for i in range(ctx.body_start, len(ctx.msgs)) if real_user(ctx.msgs[i])] or [len(ctx.msgs)]
    return [starts[-r] if len(starts) >= r else starts[0] for r in rounds]


def token_cut(ctx: Ctx, keep: int) -> int:
    """pi-mono's ``findCutPoint`` walk to `keep` recent tokens, backed out of a tool exchange to the
    assistant message that made the calls (everything after the carried summaries when fewer)."""
    at = newest_tokens(ctx.request.counts, keep, ctx.body_start)
    return ctx.body_start if at is None else snap_group_start(ctx.msgs, at, ctx.body_start)


def compact(ctx: Ctx, cut: int, floor: int, summary_max: int, write: Writer) -> Outcome | None:
    """Summarize everything before `cut` but the pinned newest user message; None when there
    is nothing new to summarize or the kept messages leave less than `floor` tokens for it."""
    msgs, counts = ctx.msgs, ctx.request.counts
    kept = list(range(max(cut, ctx.body_start), len(msgs)))
    if ctx.newest is not None and ctx.newest < cut:
        kept.insert(0, ctx.newest)
    cap = min(summary_max, ctx.available - sum(counts[i] for i in kept) - ctx.header)
    turn = turn_start(msgs, cut, ctx.body_start)
    turn = cut if turn is None else turn
    history = [i for i in range(ctx.body_start, turn) if i not in kept]
    prefix = [i for i in range(turn, min(cut, len(msgs))) if i not in kept]
    previous = list(range(ctx.sys_n, ctx.body_start))
    if cap < floor or not (history or prefix):
        return None
    written = write(ctx, history, prefix, previous, cap)
    if written.text is None:
        return None
    # The summary stands for what it replaced, the carried summary's sources included, so metrics
    # can trace it back to the original messages after several compactions.
    sources = [*previous, *history, *prefix]
    head = [*msgs[:ctx.sys_n], *([summary.message(msgs, written.text, sources, CTXLAB)] if written.text else [])]
    return Outcome((*head, *(msgs[i] for i in kept)), len(head), written.text, tuple(sources), bool(prefix),
                   written.calls, written.error, written.fallback)


def carry(ctx: Ctx, write: Writer) -> Outcome | None:
    """Nothing new to summarize: keep the carried summary, re-fitted to the room left when it
    no longer fits, and drop the oldest messages after it if they do not."""
    previous = list(range(ctx.sys_n, ctx.body_start))
    if not previous:
        return None
    counts = ctx.request.counts
    room = ctx.available - (counts[ctx.newest] if ctx.newest is not None else 0)
    if sum(counts[i] for i in previous) <= room:
        return Outcome(window(ctx, ctx.msgs[:ctx.body_start]), ctx.body_start, "", (), False, (), None, None)
    written = write(ctx, [], [], previous, room - ctx.header)
    if not written.text:
        return None
    head = (*ctx.msgs[:ctx.sys_n], summary.message(ctx.msgs, written.text, previous, CTXLAB))
    return Outcome(window(ctx, head), len(head), written.text, tuple(previous), False, written.calls,
                   written.error, written.fallback)


__all__ = ["CTXLAB", "MIN_SUMMARY_TOKENS", "Sizes", "Writer", "carry", "compact", "cuts", "run"]
