"""Which sessions a model is fitted on and which it is judged on: the earliest by start time, the rest.

A session's start is the first timestamp among its messages, else the start its log records
(``meta.started``: Aider; ``meta.startTime``: Gemini CLI). A session whose start is unknown is
never trained on under the time split: it might come from after the sessions judged, which would
let the future leak into the fit; it is judged instead (held out either way). When no session
records its start (the bundled samples), the order they were read in stands for time. Ties keep
the order they were read in.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation

SPLITS = ("time", "none")
_META_STARTS = ("started", "startTime", "start_time", "created")


class Split(NamedTuple):
    """Indices into the sessions read: trained on (`train`), judged on (`test`, empty with no split),
    and each session's start (None: unknown)."""

    train: tuple[int, ...]
    test: tuple[int, ...]
    starts: tuple[float | None, ...]


def started(conversation: Conversation) -> float | None:
    """When a session started (seconds since the epoch), None when nothing records it."""
    for message in conversation.messages:
        if message.timestamp is not None:
            return message.timestamp
    meta = conversation.meta or {}
    for key in _META_STARTS:
        when = _seconds(meta.get(key))
        if when is not None:
            return when
    return None


def _seconds(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.UTC)).timestamp()


def split_sessions(conversations: Sequence[Conversation], how: str = "time", train_share: float = 0.7) -> Split:
    """Split sessions by start time: the earliest ``round(train_share * n)`` train (at least one, and
    at least one judged); ``none`` trains on every session and judges none.

    Raises:
        CtxlabError: an unknown split, a share outside (0, 1), or too few sessions to split.
    """
    if how not in SPLITS:
        raise CtxlabError(f"--split must be one of {', '.join(SPLITS)}, not {how!r}")
    if not 0.0 < train_share < 1.0:
        raise CtxlabError(f"--train-share must be between 0 and 1 (both excluded), not {train_share:g}")
    starts = tuple(started(c) for c in conversations)
    if how == "none":
        return Split(tuple(range(len(conversations))), (), starts)
    if len(conversations) < 2:
        raise CtxlabError(f"a time split needs at least 2 sessions, found {len(conversations)}: use --split none")
    order = sorted(range(len(conversations)), key=lambda i: (starts[i] is None, starts[i] or 0.0, i))
    n = min(max(1, round(train_share * len(order))), len(order) - 1)
    dated = sum(s is not None for s in starts)
    n = min(n, dated) if dated else n  # an undated session is judged, never trained on
    return Split(tuple(sorted(order[:n])), tuple(sorted(order[n:])), starts)


__all__ = ["SPLITS", "Split", "split_sessions", "started"]
