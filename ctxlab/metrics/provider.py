"""Estimator error against what the provider billed: the delta method on agent logs.

An agent log records, per model call, ``prompt_tokens``: what the provider counted for the
whole prompt (``input_tokens + cache_read_tokens + cache_write_tokens``, so prompt caching
changes the price, not the count). The prompt of call *j* is the prompt of the previous call *i*
plus ``messages[index_i:index_j]`` (call i's assistant output, tool results, user turns), so

    prompt_tokens[j] - prompt_tokens[i] = real tokens of messages[index_i:index_j]
                                          + the provider's per-message framing.

The system prompt and the tool schemas, which logs usually omit, are in both prompts and cancel.
A pair is usable only when both calls ran on the same model with no compaction between them (a
compaction rewrites the prompt from its ``at``, where it happened); pairs that are not are kept
with the reason (`Delta.skipped`).

Thinking: ``output_tokens`` of call i include its thinking, but the delta uses prompts, which do
not carry the thinking of earlier turns (Anthropic strips it), so finished turns are unaffected.
Within a tool-use loop, however, the provider does send back the thinking of the turn in progress
(and Claude Opus 4.5 and later keep all earlier thinking), so a pair whose prompts may carry
thinking (``meta.thinking`` on an assistant message from the start of call i's turn up to call
j) is skipped. Logs that do not record thinking cannot be checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation, Message
from ctxlab.metrics.estimator import describe, dominant, message_rows
from ctxlab.store.schema import EstimatorRow
from ctxlab.tokens import TokenCounter, get_counter

PROVIDER = "provider:"
ANY_MODEL = "*"


class Call(NamedTuple):
    """One recorded model call: where its output starts, its model and its prompt size (None when
    the record lacks a usable value)."""

    index: int | None
    model: str
    prompt_tokens: int | None


class Delta(NamedTuple):
    """Two consecutive calls: the span of messages between them and what the provider counted.

    Attributes:
        model: the model of the later call.
        start, end: the span ``messages[start:end]``.
        actual: ``prompt_tokens[j] - prompt_tokens[i]`` (None when a call lacks a count).
        message_ids, roles, content_kind, language, chars: the span's messages; roles in order of
            first appearance (``assistant+tool+user``), the kind and language carrying most chars.
        skipped: why the pair is not a usable measurement (None when it is).
    """

    model: str
    start: int
    end: int
    actual: int | None
    message_ids: tuple[str, ...]
    roles: str
    content_kind: str
    language: str
    chars: int
    skipped: str | None = None

    @property
    def message_id(self) -> str:
        """The delta's stable id in ``estimator_rows``."""
        return f"delta:{self.start}-{self.end}"

    @property
    def reference(self) -> str:
        return f"{PROVIDER}{self.model}"


def provider_deltas(conversation: Conversation) -> list[Delta]:
    """Every pair of consecutive ``meta.provider_calls``, usable or skipped with the reason."""
    meta = conversation.meta or {}
    calls = [_call(c) for c in meta.get("provider_calls") or () if isinstance(c, Mapping)]
    # Calls from `at` on saw the summary (`index` ends the replaced part; agents that keep recent
    # messages compact later, at `at` > `index`).
    cuts = _ints(_first(c.get("at"), c.get("index")) for c in meta.get("compactions") or () if isinstance(c, Mapping))
    thinking = _thinking_chars(conversation)
    return [_delta(conversation.messages, a, b, cuts, thinking) for a, b in zip(calls, calls[1:], strict=False)]


def provider_rows(conversation: Conversation, counters: Sequence[str | TokenCounter]) -> list[EstimatorRow]:
    """One `message_rows`-shaped row per usable delta and counter.

    ``estimated`` is the sum of ``counter.count_message`` over the span (per-message overhead
    included, no reply priming), ``actual`` the delta, ``reference`` ``provider:<model>`` and
    ``message_id`` ``delta:<start>-<end>``.
    """
    estimators = [get_counter(c) for c in counters]
    rows = []
    for d in provider_deltas(conversation):
        if d.skipped is None:
            span = conversation.messages[d.start:d.end]
            rows += [EstimatorRow(conversation.id, d.message_id, d.roles, d.content_kind, d.language, d.chars,
                                  est.name, d.reference, sum(est.count_message(m) for m in span), d.actual)
                     for est in estimators]
    return rows


def is_provider(reference: str) -> bool:
    """True for a provider reference (``provider:<model>`` or ``provider:*``)."""
    return str(reference).startswith(PROVIDER)


def matches(reference: str, model: str) -> bool:
    """Whether a provider reference covers `model` (``provider:*`` covers every model)."""
    wanted = str(reference).removeprefix(PROVIDER)
    return wanted in (ANY_MODEL, model)


def usable_deltas(conversations: Iterable[Conversation], reference: str) -> list[tuple[Conversation, Delta]]:
    """The usable deltas of the reference's model(s), with their conversations.

    Raises:
        CtxlabError: none, with the models the logs do have and why their pairs were skipped.
    """
    found: list[tuple[Conversation, Delta]] = []
    for conversation in conversations:
        found += [(conversation, d) for d in provider_deltas(conversation)]
    usable = [(c, d) for c, d in found if d.skipped is None and matches(reference, d.model)]
    if not usable:
        raise CtxlabError(f"no usable provider deltas for {reference} in these logs; {_models_found(found)}")
    return usable


def rows_against(conversations: Iterable[Conversation], counters: Sequence[str | TokenCounter],
                 reference: str) -> list[EstimatorRow]:
    """Per-message rows against a tokenizer, or per-delta rows against a provider reference."""
    if is_provider(reference):
        return [r for c in conversations for r in provider_rows(c, counters)
                if matches(reference, r.reference.removeprefix(PROVIDER))]
    return [r for c in conversations for r in message_rows(c, counters, [reference])]


def _models_found(found: list[tuple[Conversation, Delta]]) -> str:
    if not found:
        return "they record no consecutive provider calls (meta.provider_calls)"
    by_model: dict[str, list[Delta]] = {}
    for _, d in found:
        by_model.setdefault(d.model, []).append(d)
    parts = []
    for model, deltas in by_model.items():
        reasons = dominant(((d.skipped or "usable").split(" (")[0], 1) for d in deltas)
        usable = sum(d.skipped is None for d in deltas)
        parts.append(f"{model} ({usable} usable of {len(deltas)} pairs, mostly {reasons})")
    return "models found: " + ", ".join(parts)


def _delta(messages: Sequence[Message], a: Call, b: Call, cuts: list[int], thinking: list[int]) -> Delta:
    reason = _problem(a, b, len(messages))
    start, end = a.index or 0, b.index or 0
    if reason is None and any(start < c <= end for c in cuts):
        reason = "a compaction between the calls"
    if reason is None and sum(thinking[_turn_start(messages, start):end]):
        reason = "thinking in the prompt (a tool-use loop sends it back)"
    actual = b.prompt_tokens - a.prompt_tokens if a.prompt_tokens is not None and b.prompt_tokens is not None else None
    if reason is None and actual is not None and actual <= 0:
        reason = f"non-positive delta ({actual})"
    span = messages[start:end] if 0 <= start < end <= len(messages) else ()
    described = [describe(m) for m in span]
    return Delta(b.model, start, end, actual, tuple(m.id for m in span), "+".join(dict.fromkeys(m.role for m in span)),
                 dominant(((k, c) for k, _, c in described), default=""),
                 dominant(((lang, c) for _, lang, c in described), default=""), sum(c for *_, c in described), reason)


def _problem(a: Call, b: Call, n: int) -> str | None:
    """What makes a pair unusable before looking at its messages (None if nothing)."""
    if None in (a.index, b.index, a.prompt_tokens, b.prompt_tokens):
        return "a call without a usable index or prompt_tokens"
    if a.model != b.model:
        return f"different model ({a.model} -> {b.model})"
    if not 0 <= a.index < b.index <= n:  # type: ignore[operator]
        return "empty span" if a.index == b.index else f"span {a.index}:{b.index} out of range"
    return None


def _turn_start(messages: Sequence[Message], index: int) -> int:
    """The last user message before `index`: the turn whose thinking a tool-use loop carries."""
    for i in range(min(index, len(messages)) - 1, -1, -1):
        if messages[i].role == "user":
            return i
    return 0


def _thinking_chars(conversation: Conversation) -> list[int]:
    """Characters of recorded thinking per message position."""
    by_id: dict[str, int] = {}
    for block in (conversation.meta or {}).get("thinking") or ():
        if isinstance(block, Mapping) and block.get("message_id") is not None:
            key = str(block["message_id"])
            by_id[key] = by_id.get(key, 0) + max(len(str(block.get("text") or "")), 1)
    return [by_id.get(m.id, 0) for m in conversation.messages]


def _call(record: Mapping[str, Any]) -> Call:
    index, tokens = _int(record.get("index")), _int(record.get("prompt_tokens"))
    return Call(index, str(record.get("model") or "unknown"), tokens)


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _ints(values: Iterable[Any]) -> list[int]:
    return [v for v in map(_int, values) if v is not None]
