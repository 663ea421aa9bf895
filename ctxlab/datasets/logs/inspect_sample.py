"""One inspect_ai sample (one epoch of one dataset sample) -> one conversation record.

The conversation is what the sample's own model calls sent: the prompt of each call (a model
event's ``input``), its reply (``output.choices[0].message``), and after the last call the rest of
``sample.messages`` (typically the last tool results) when they extend it. Each call is a provider
call at its reply, with the usage inspect recorded (``output.usage``). Calls of scorers and of
other conversations (subagents, side calls) are counted in ``meta.skipped``; their usage still
enters the usage check against ``sample.model_usage``. See `ctxlab.datasets.logs.inspect_calls`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.common import LogSource, epoch, first_str
from ctxlab.datasets.logs.inspect_calls import ModelCall, Thread, main_thread, model_calls, threads
from ctxlab.datasets.logs.inspect_messages import add_message, message_key, obj, tool_definitions
from ctxlab.datasets.logs.inspect_usage import usage, usage_check

ATTACHMENT, OLD_ATTACHMENT = "attachment://", "tc://"


def sample_record(sample: Mapping[str, Any], header: Mapping[str, Any], where: str, source: LogSource) -> dict:
    """The conversation record of one sample (``header``: the log's ``version`` and ``eval``)."""
    b = LogBuilder("inspect", source)
    transcript = obj(sample, "transcript")  # logs before inspect_ai 0.3.5x: events and attachments there
    resolved = resolve_attachments({**{k: v for k, v in sample.items() if k not in ("attachments", "transcript")},
                                    "events": sample.get("events") or transcript.get("events") or []},
                                   sample.get("attachments") or transcript.get("content") or {}, b)
    pool = resolved.get("message_pool") or obj(resolved, "events_data").get("messages")
    calls = model_calls(resolved.get("events") or [], pool or [], where)
    messages: list[Mapping[str, Any]] = [m for m in resolved.get("messages") or [] if isinstance(m, Mapping)]
    thread = main_thread(threads(calls), messages)
    if thread is None:
        for message in messages:
            add_message(b, message, where)
        if messages:
            b.repairs.append("no model events: the conversation is sample.messages, with no per-call usage")
    else:
        _follow(b, thread, messages, where)
    _count_others(b, calls, thread)
    _meta(b, resolved, header, calls)
    spec = obj(header, "eval")
    return b.record(f"{spec.get('eval_id') or spec.get('task') or source.path.stem}:{sample.get('id')}:"
                    f"{sample.get('epoch', 1)}")


def resolve_attachments(value: Any, attachments: Mapping[str, Any], b: LogBuilder) -> Any:
    """`value` with every ``attachment://<hash>`` string (``tc://`` in older logs) replaced by its
    attachment (inspect's ``resolve_sample_attachments``, log/_condense.py); a reference the sample
    does not hold is kept as written and counted."""
    if isinstance(value, str):
        if value.startswith((ATTACHMENT, OLD_ATTACHMENT)):
            found = attachments.get(value.split("://", 1)[1])
            if isinstance(found, str):
                return found
            b.omitted["unresolved attachment"] += 1
        return value
    if isinstance(value, Mapping):
        return {k: resolve_attachments(v, attachments, b) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_attachments(v, attachments, b) for v in value]
    return value


def _follow(b: LogBuilder, thread: Thread, messages: Sequence[Mapping[str, Any]], where: str) -> None:
    """Add the thread's prompts and replies in order, then the rest of ``sample.messages``."""
    known: dict[str, dict[str, Any]] = {}  # key -> the builder message first added for it
    prompt: list[str] = []
    for call in thread.calls:
        keys = [message_key(m) for m in call.input]
        new = call.input[len(prompt):] if keys[:len(prompt)] == prompt else _compaction(b, call, keys, known)
        for message in new:
            known.setdefault(message_key(message), add_message(b, message, where))
        prompt = keys + _reply(b, call, known, where)
    rest = [message_key(m) for m in messages]
    if rest[:len(prompt)] == prompt:
        for message in messages[len(prompt):]:
            add_message(b, message, where)
    elif len(rest) > len(prompt) or rest != prompt[:len(rest)]:
        b.repairs.append("sample.messages differs from the last model call's prompt and reply; the conversation "
                         "follows the model calls")


def _reply(b: LogBuilder, call: ModelCall, known: dict[str, dict[str, Any]], where: str) -> list[str]:
    """Add the call's reply and record its usage; the reply's key (none for a failed call)."""
    if call.output is None:
        b.skip("model call without a reply (failed)")
        return []
    event = call.event
    out = add_message(b, call.output, where, epoch(event.get("completed") or event.get("timestamp")))
    key = message_key(call.output)
    known.setdefault(key, out)
    output = obj(event, "output")
    recorded = usage(output.get("usage"))
    if event.get("cache") == "read":
        b.skip("model call answered from inspect's local cache (no provider call)")
    elif recorded is not None:
        b.call(out, first_str(output.get("model"), event.get("model")), recorded)
    return [key]


def _compaction(b: LogBuilder, call: ModelCall, keys: list[str], known: dict[str, dict[str, Any]]) -> list[Any]:
    """A prompt an inspect compaction rewrote: record it, return the messages that are new after it.

    The messages before the last one the conversation already holds and not in it are what the
    compaction wrote (a summary, edited results): its summary. The run of held messages that ends
    there is what it kept.
    """
    last = max((i for i, k in enumerate(keys) if k in known), default=-1)
    written = [m for m, k in zip(call.input[:last + 1], keys, strict=False) if k not in known]
    first = last
    while first > 0 and keys[first - 1] in known:
        first -= 1
    event = call.compaction or {}
    summary = "\n".join(t for t in (b.text(m.get("content")) for m in written if isinstance(m, Mapping)) if t)
    b.compaction(summary or None, event.get("tokens_before"), known[keys[first]] if last >= 0 else None,
                 type=event.get("type"), tokens_after=event.get("tokens_after"))
    b.repairs.append(f"the prompt was rewritten by an inspect {event.get('type') or ''} compaction: recorded in "
                     "meta.compactions, the history keeps every message")
    return call.input[last + 1:]


def _count_others(b: LogBuilder, calls: Sequence[ModelCall], thread: Thread | None) -> None:
    mine = {id(c) for c in thread.calls} if thread is not None else set()
    for call in calls:
        if id(call) not in mine:
            b.skip("model call of a scorer" if call.scope else "model call of another conversation (subagent or "
                   "side call)")


def _meta(b: LogBuilder, sample: Mapping[str, Any], header: Mapping[str, Any], calls: Sequence[ModelCall]) -> None:
    spec = obj(header, "eval")
    packages = obj(spec, "packages")
    b.meta.update({k: v for k, v in (("task", spec.get("task")), ("sample_id", sample.get("id")),
                                     ("epoch", sample.get("epoch")), ("log_version", header.get("version")),
                                     ("version", packages.get("inspect_ai"))) if v is not None})
    if obj(sample, "error"):
        b.meta["error"] = first_str(obj(sample, "error").get("message"))
    last = next((c.event for c in reversed(calls) if c.scope is None), None)
    if last is not None:
        b.tools = list(tool_definitions(last.get("tools")))
    check = usage_check(sample.get("model_usage"), calls)
    if check is not None:
        b.meta["usage_check"] = check
        if check["agree"] is False:
            b.repairs.append(f"usage check: the model events' usage {check['model_events']} differs from the "
                             f"sample's model_usage {check['recorded']}")
