"""Where a message handed to a policy came from in the caller's list: its id says it.

`ctxlab.apply` names every message it hands a policy by its position in the caller's list,
``m<i>`` (and ``m<i>.<j>`` for block ``j`` of message ``i`` when one message holds several, as an
Anthropic user message holds tool results), so the messages a policy sends back lead to the
caller's own objects, and a history that only grows keeps its ids from call to call. Summaries
and markers a policy writes have ids of another shape and come from nowhere.
"""

from __future__ import annotations

import re

_ID = re.compile(r"m(\d+)(?:\.(\d+))?")


def ident(index: int, block: int | None = None) -> str:
    """The id of message `index` (or of its block `block`)."""
    return f"m{index}" if block is None else f"m{index}.{block}"


def origin(message_id: str) -> tuple[int, int | None] | None:
    """``(index, block)`` for an id made by `ident`; None for a message the policy wrote."""
    found = _ID.fullmatch(message_id)
    if found is None:
        return None
    return int(found[1]), None if found[2] is None else int(found[2])
