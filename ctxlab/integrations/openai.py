"""OpenAI Chat Completions message lists in and out of a policy.

Each dict becomes one `Message` named by its position (``m<i>``; an ``id`` key in the dict is
ignored, since the Chat Completions API has none). A ``developer`` message is read as ``system``.
What comes back is, in order: the very dict objects given, for the messages the policy kept
untouched; for a message it cut, a copy of the given dict with the cut content (its other keys and
its role kept); and new dicts for the summaries and markers it wrote (`Message.to_openai`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ctxlab.errors import InvalidInputError
from ctxlab.integrations.ids import ident, origin
from ctxlab.messages import Message, validate_messages

# The keys `Message.to_openai` writes: a cut message's copy drops the given ones first, so a key
# the cut message no longer has (its name, say) does not survive from the original.
_WRITTEN = frozenset({"role", "content", "name", "tool_calls", "tool_call_id"})


def check_list(messages: Any) -> Sequence[Any]:
    """`messages` when it is a list (or another sequence) of messages.

    Raises:
        InvalidInputError: a string, a mapping or anything else that is not a list.
    """
    if isinstance(messages, str | bytes | Mapping) or not isinstance(messages, Sequence):
        raise InvalidInputError(f"messages must be a list of message objects, not {type(messages).__name__}")
    return messages


def parse(messages: Sequence[Any]) -> tuple[Message, ...]:
    """The messages as ctxlab `Message` objects, ids ``m0, m1, ...``.

    Raises:
        InvalidInputError: naming the first malformed message by its index and why, or a tool
            result without the assistant call it answers.
    """
    out = tuple(replace(Message.from_openai(_readable(m), i), id=ident(i)) for i, m in enumerate(check_list(messages)))
    validate_messages(out)
    return out


def render(sent: Sequence[Message], given: Sequence[Any]) -> list[Any]:
    """What the policy sent, in the caller's dicts (see the module docstring)."""
    out = []
    for m in sent:
        found = origin(m.id)
        if found is None:
            out.append(m.to_openai())
        elif m.mark is None:
            out.append(given[found[0]])
        else:
            original = given[found[0]]
            out.append({k: v for k, v in original.items() if k not in _WRITTEN} | m.to_openai()
                       | {"role": original["role"]})
    return out


def _readable(data: Any) -> Any:
    """`data` as `Message.from_openai` reads it: without its ``id``, ``developer`` as ``system``."""
    if not isinstance(data, Mapping):
        return data  # from_openai names the index and the type
    out = {k: v for k, v in data.items() if k != "id"}
    if out.get("role") == "developer":
        out["role"] = "system"
    return out
