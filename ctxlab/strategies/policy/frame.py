"""The frame of one `attempts` run: the positions and costs every attempt shares, and the window a
compaction falls back to (the newest whole tool groups that fit, after the head)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.mechanics.context import real_user, tool_groups
from ctxlab.strategies.mechanics.voices import VOICES, wrap
from ctxlab.strategies.policy.apply import bounds
from ctxlab.strategies.policy.job import Job
from ctxlab.strategies.policy.parts import Parts
from ctxlab.strategies.trigger import REQUEST

# Header and summary counted together can differ from the sum of their parts by a token or two.
_MARGIN = 4


class Frame(NamedTuple):
    """The positions and costs every attempt shares (tokens under the request's counter).

    Attributes:
        head: the kept head's end (the system prompt).
        start: the body's start, after the summaries carried from earlier compactions.
        newest: the newest real user message (pinned), if any.
        available: the window less the tool definitions and the head.
        header: the tokens a summary message adds around its text.
    """

    head: int
    start: int
    newest: int | None
    available: int
    header: int


def frame(parts: Parts, job: Job) -> Frame:
    """The `Frame` of `job` under the policy's head and voice."""
    messages, counter = job.messages, job.counter(REQUEST)
    head, start = bounds(parts, job)
    newest = next((i for i in range(len(messages) - 1, head - 1, -1) if real_user(messages[i])), None)
    available = job.window - counter.overhead(job.request.tools) - sum(job.counts(REQUEST)[:head])
    voice = VOICES[parts.summary.voice]
    header = counter.count_message(Message(role=voice.role, content=wrap(voice, ""))) + _MARGIN
    return Frame(head, start, newest, available, header)


def suffix_start(job: Job, at: Frame, room: int) -> int:
    """First index of the longest run of newest whole tool groups after the body's start that fits in
    `room` with the pinned newest user message (counted whether or not it is in the run); a group
    holding a summary ends the run."""
    messages, counts = job.messages, job.counts(REQUEST)
    used = counts[at.newest] if at.newest is not None else 0
    start = len(messages)
    for group in reversed(tool_groups(messages)):
        if group.start < at.start:
            break
        if at.newest is not None and group.start == at.newest:
            start = group.start
            continue
        cost = sum(counts[group.start:group.stop])
        if used + cost > room or any(messages[i].mark == "summary" for i in range(*group)):
            break
        used, start = used + cost, group.start
    return start


def window(job: Job, at: Frame, head: Sequence[Message]) -> tuple[Message, ...]:
    """`head`, the pinned newest user message, and the newest whole tool groups that fit the window."""
    counter = job.counter(REQUEST)
    room = job.window - counter.overhead(job.request.tools) - sum(map(counter.count_message, head))
    start = suffix_start(job, at, room)
    pinned = [job.messages[at.newest]] if at.newest is not None and at.newest < start else []
    return (*head, *pinned, *job.messages[start:])


__all__ = ["Frame", "frame", "suffix_start", "window"]
