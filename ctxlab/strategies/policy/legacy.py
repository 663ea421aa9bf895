"""Policy parameters under their old names, for specs stored before the fields were split by unit.

Before, one ``trigger_value`` and one ``tail_value`` carried the size of every trigger and tail
kind, in whatever unit that kind reads, and the counters called the request's own counter
``reference``. A spec stored then (a DuckDB run's ``params``, a
``recommended:tail_value=0.3`` string) still builds: the old value goes to the field of its kind's
unit; a value no kind reads (``tail_value`` with ``tail=all``) was ignored then and is dropped now.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxlab.strategies.trigger import REQUEST

TRIGGER_VALUE = {"share": "trigger_share", "reserve": "trigger_reserve", "tokens": "trigger_tokens"}
TAIL_VALUE = {"recent_tokens": "keep_tokens", "user_messages": "keep_tokens", "fit": "keep_tokens",
              "recent_messages": "keep_messages", "share": "keep_message_share", "events": "min_progress",
              "budget": "target_share"}
OLD_VALUES = (("trigger_value", "trigger", TRIGGER_VALUE), ("tail_value", "tail", TAIL_VALUE))
COUNTERS = ("trigger_counter", "tail_counter")
OLD_REQUEST = "reference"  # the old name of the request's own counter


def upgrade(defaults: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Any]:
    """`params` of a policy whose fields default to `defaults`, old names mapped to current ones (a
    current name given as well wins)."""
    out = dict(params)
    kinds = {**defaults, **out}
    for old, kind, fields in OLD_VALUES:
        if old in out:
            value = out.pop(old)
            new = fields.get(kinds[kind])
            if new is not None:
                out.setdefault(new, value)
    for name in COUNTERS:
        if out.get(name) == OLD_REQUEST:
            out[name] = REQUEST
    return out


__all__ = ["upgrade"]
