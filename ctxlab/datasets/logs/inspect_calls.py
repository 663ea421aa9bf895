"""inspect_ai model events -> the model calls of one sample, grouped into the conversations they extend.

Source: UKGovernmentBEIS/inspect_ai @ 499e6152, ``src/inspect_ai/event/_model.py`` (``ModelEvent``:
``model``, ``role``, ``input`` or ``input_refs``, ``tools``, ``output``, ``error``, ``cache``,
``pending``), ``event/_span.py`` and ``event/_step.py`` (spans and steps typed ``scorer``),
``event/_subtask.py`` and ``event/_tool.py`` (older logs nest their sub-events in ``events``),
``event/_compaction.py`` (``CompactionEvent``) and ``event/_pool.py`` (``input_refs``: ranges
``[start, end)`` into the sample's message pool, ``_expand_refs``).

Every call of a sample is an event with the full prompt it sent. A call whose prompt extends an
earlier call's prompt plus its reply continues that conversation; one that extends none starts
another (a scorer's grading prompt, a subagent), except right after a ``compaction`` event, where
the compacted prompt continues the conversation it compacted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from ctxlab.datasets.logs.common import LogError
from ctxlab.datasets.logs.inspect_messages import message_key

SCORING = ("scorer", "scorers")


class ModelCall(NamedTuple):
    """One model event: its prompt, its reply (None when it failed), why it stands apart (``scorer``
    or None), the compaction event just before it (if any) and the event itself."""

    input: list[Any]
    output: Any
    scope: str | None
    compaction: Mapping[str, Any] | None
    event: Mapping[str, Any]


class Thread(NamedTuple):
    """The calls that extend one another, in order."""

    calls: list[ModelCall]


def model_calls(events: Sequence[Any], pool: Sequence[Any], where: str) -> list[ModelCall]:
    """The sample's model events in order, nested ones included, inputs expanded from the pool.

    Raises:
        LogError: an event that is not an object, or ``input_refs`` outside the pool.
    """
    calls, compaction = [], None
    for n, (event, scope) in enumerate(_walk(events, [], where)):
        kind = event.get("event")
        if kind == "compaction":
            compaction = event
        elif kind == "model" and not event.get("pending"):
            calls.append(ModelCall(_input(event, pool, where, n), _reply(event), scope, compaction, event))
            compaction = None
    return calls


def _walk(events: Sequence[Any], stack: list[tuple[Any, str]], where: str) -> Iterator[tuple[Mapping, str | None]]:
    """Events with the scope they run in: inside a scorer's span or step, or None."""
    for i, event in enumerate(events):
        if not isinstance(event, Mapping):
            raise LogError(f"event {i} is {type(event).__name__}, not an object", where)
        kind, action = event.get("event"), event.get("action")
        if kind == "span_begin" or (kind == "step" and action == "begin"):
            stack.append((event.get("id", event.get("name")), str(event.get("type") or "")))
        elif kind == "span_end" or (kind == "step" and action == "end"):
            key = event.get("id", event.get("name"))
            while stack and stack.pop()[0] != key:
                pass
        yield event, "scorer" if any(t in SCORING for _, t in stack) else None
        nested = event.get("events")
        if isinstance(nested, list) and nested:  # subtask and tool events of older logs
            inner = [*stack, ("", "scorer" if kind == "subtask" and event.get("type") in SCORING else "")]
            yield from _walk(nested, inner, where)


def _input(event: Mapping[str, Any], pool: Sequence[Any], where: str, n: int) -> list[Any]:
    refs = event.get("input_refs")
    if not refs:
        return list(event.get("input") or [])
    out: list[Any] = []
    for ref in refs:
        start, end = (ref if isinstance(ref, list | tuple) and len(ref) == 2 else (None, None))
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(pool)):
            raise LogError(f"model event {n}: input_refs {ref!r} outside the message pool ({len(pool)} messages)",
                           where)
        out.extend(pool[start:end])
    return out


def _reply(event: Mapping[str, Any]) -> Any:
    output = event.get("output")
    choices = output.get("choices") if isinstance(output, Mapping) else None
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], Mapping) else None
    return first.get("message") if first is not None and isinstance(first.get("message"), Mapping) else None


class _Line:
    """A conversation being followed: the keys of its last prompt plus reply."""

    def __init__(self, call: ModelCall, keys: list[str]):
        self.thread, self.keys = Thread([call]), keys


def threads(calls: Sequence[ModelCall]) -> list[Thread]:
    """Group the calls outside scorers into conversations (see the module docstring)."""
    lines: list[_Line] = []
    recent: _Line | None = None  # the conversation of the latest call: the one a compaction rewrote
    for call in calls:
        if call.scope is not None:
            continue
        keys = [message_key(m) if isinstance(m, Mapping) else repr(m) for m in call.input]
        after = keys + ([message_key(call.output)] if call.output is not None else [])
        found = _extended(lines, keys) or (recent if call.compaction is not None else None)
        if found is None:
            found = _Line(call, after)
            lines.append(found)
        else:
            found.thread.calls.append(call)
            found.keys = after
        recent = found
    return [line.thread for line in lines]


def _extended(lines: list[_Line], keys: list[str]) -> _Line | None:
    """The newest conversation whose last prompt and reply the keys extend (the longest wins)."""
    best = None
    for line in reversed(lines):
        if len(line.keys) <= len(keys) and keys[:len(line.keys)] == line.keys and (
                best is None or len(line.keys) > len(best.keys)):
            best = line
    return best


def main_thread(found: list[Thread], messages: Sequence[Any]) -> Thread | None:
    """The sample's own conversation: the one that wrote the last assistant message of
    ``sample.messages``, else the one with the most calls (the first of equals)."""
    last = next((message_key(m) for m in reversed(messages) if isinstance(m, Mapping)
                 and m.get("role") == "assistant"), None)
    for thread in found:
        if any(c.output is not None and message_key(c.output) == last for c in thread.calls):
            return thread
    return max(found, key=lambda t: len(t.calls), default=None)
