"""One compaction job: the positions and costs every attempt shares, and the window it falls back to.

Private to `compaction`: `Ctx` (the request, its limit, the system prompt, the carried summaries,
the pinned newest user message, the room left), `Outcome` (what an attempt made), and the window
that keeps the newest whole tool groups when no summary fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.base import Request
from ctxlab.strategies.mechanics.context import after_summaries, real_user, system_prefix, tool_groups
from ctxlab.summarize.base import SummaryResult
from ctxlab.summarize.message import wrap

# Header and summary counted together can differ from the sum of their parts by a token or two.
_MARGIN = 4


class Ctx(NamedTuple):
    """One compaction job: the request and the fixed positions and costs every attempt uses.

    Attributes:
        limit: the budget the result must fit (the trigger's window).
        sys_n: the system prompt's messages.
        body_start: after the system prompt and the summaries carried from earlier compactions.
        newest: the newest real user message (pinned), if any.
        available: the tokens left after the tool definitions and the system prompt.
        header: the tokens a summary message adds around its text.
    """

    request: Request
    limit: int
    sys_n: int
    body_start: int
    newest: int | None
    available: int
    header: int

    @property
    def msgs(self) -> tuple[Message, ...]:
        return self.request.messages


class Outcome(NamedTuple):
    """A compaction: the messages (system prompt, then the summary message when `head` says so)."""

    messages: tuple[Message, ...]
    head: int
    summary: str
    summarized: tuple[int, ...]
    split: bool
    calls: tuple[tuple[str, SummaryResult], ...]
    error: str | None
    fallback: str | None


def prepare(request: Request, limit: int) -> Ctx:
    msgs = request.messages
    sys_n = system_prefix(msgs)
    newest = next((i for i in range(len(msgs) - 1, sys_n - 1, -1) if real_user(msgs[i])), None)
    available = limit - request.overhead - sum(request.counts[:sys_n])
    header = request.counter.count_message(Message(role="user", content=wrap(""))) + _MARGIN
    return Ctx(request, limit, sys_n, after_summaries(msgs, sys_n), newest, available, header)


def suffix_start(ctx: Ctx, room: int) -> int:
    """First index of the longest run of newest whole tool groups that fits in `room` together
    with the pinned newest user message (which is counted whether or not it is in the run)."""
    msgs, counts = ctx.msgs, ctx.request.counts
    used = counts[ctx.newest] if ctx.newest is not None else 0
    start = len(msgs)
    for group in reversed(tool_groups(msgs)):
        if group.start < ctx.body_start:
            break
        if ctx.newest is not None and group.start == ctx.newest:
            start = group.start
            continue
        cost = sum(counts[group.start:group.stop])
        if used + cost > room or any(msgs[i].mark == "summary" for i in range(*group)):
            break
        used, start = used + cost, group.start
    return start


def window(ctx: Ctx, head: Sequence[Message]) -> tuple[Message, ...]:
    """`head`, the pinned newest user message, and the newest whole tool groups that fit."""
    request = ctx.request
    start = suffix_start(ctx, ctx.limit - request.overhead - request.cost(head))
    pinned = [ctx.msgs[ctx.newest]] if ctx.newest is not None and ctx.newest < start else []
    return (*head, *pinned, *ctx.msgs[start:])


__all__ = ["Ctx", "Outcome", "prepare", "suffix_start", "window"]
