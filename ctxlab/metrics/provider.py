"""Estimator error against what the provider billed: the delta method on agent logs.

Which consecutive calls measure which messages is decided next to the importers
(`ctxlab.datasets.logs.deltas`: usable spans, and why the other pairs are not). Here each span is
described (content kind, language, characters) and counted by estimators: a span's estimate is
the sum of ``counter.count_message`` over its messages (per-message overhead included, no reply
priming) plus ``counter.count`` of the thinking the later prompt carries for it, plus the thinking
whose size the log records in the provider's tokens (``Span.thinking_tokens``, added as it is).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ctxlab.datasets.logs.deltas import (
    ANY_MODEL,
    PROVIDER,
    Span,
    delta_spans,
    is_provider,
    matches,
    usable_spans,
)
from ctxlab.messages import Conversation
from ctxlab.metrics.estimator import describe, dominant, message_rows
from ctxlab.store.schema import EstimatorRow
from ctxlab.tokens import TokenCounter, get_counter

__all__ = ["ANY_MODEL", "PROVIDER", "Delta", "estimate_span", "is_provider", "matches", "provider_deltas",
           "provider_rows", "rows_against", "span_id", "usable_deltas"]


class Delta(NamedTuple):
    """A span described for error tables.

    Attributes:
        model, start, end, actual, thinking, skipped, thinking_tokens: as in `Span`.
        message_ids, roles, content_kind, language, chars: the span's messages; roles in order of
            first appearance (``assistant+tool+user``), the kind and language carrying most chars.
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
    thinking: tuple[str, ...] = ()
    thinking_tokens: int = 0

    @property
    def message_id(self) -> str:
        """The delta's stable id in ``estimator_rows``."""
        return span_id(self)

    @property
    def reference(self) -> str:
        return f"{PROVIDER}{self.model}"


def provider_deltas(conversation: Conversation) -> list[Delta]:
    """Every pair of consecutive ``meta.provider_calls``, usable or skipped with the reason."""
    return [_describe(conversation, s) for s in delta_spans(conversation)]


def usable_deltas(conversations: Iterable[Conversation], reference: str) -> list[tuple[Conversation, Delta]]:
    """The usable deltas of the reference's model(s), with their conversations.

    Raises:
        CtxlabError: none, with the models the logs do have and why their pairs were skipped.
    """
    return [(c, _describe(c, s)) for c, s in usable_spans(conversations, reference)]


def span_id(span: Span | Delta) -> str:
    """``delta:<start>-<end>``: a span's id within its conversation."""
    return f"delta:{span.start}-{span.end}"


def estimate_span(counter: TokenCounter, conversation: Conversation, span: Span | Delta) -> int:
    """What `counter` says the span added to the prompt: its messages and the thinking it carries
    (recorded texts counted, recorded sizes added as they are)."""
    messages = conversation.messages[span.start:span.end]
    texts = sum(counter.count(t) for t in span.thinking)
    return sum(counter.count_message(m) for m in messages) + texts + span.thinking_tokens


def provider_rows(conversation: Conversation, counters: Sequence[str | TokenCounter]) -> list[EstimatorRow]:
    """One `message_rows`-shaped row per usable delta and counter.

    ``estimated`` is `estimate_span`, ``actual`` the delta, ``reference`` ``provider:<model>`` and
    ``message_id`` ``delta:<start>-<end>``.
    """
    estimators = [get_counter(c) for c in counters]
    rows = []
    for d in provider_deltas(conversation):
        if d.skipped is None and d.actual is not None:  # a usable delta always has its actual count
            rows += [EstimatorRow(conversation.id, d.message_id, d.roles, d.content_kind, d.language, d.chars,
                                  est.name, d.reference, estimate_span(est, conversation, d), d.actual)
                     for est in estimators]
    return rows


def rows_against(conversations: Iterable[Conversation], counters: Sequence[str | TokenCounter],
                 reference: str) -> list[EstimatorRow]:
    """Per-message rows against a tokenizer, or per-delta rows against a provider reference."""
    if is_provider(reference):
        return [r for c in conversations for r in provider_rows(c, counters)
                if matches(reference, r.reference.removeprefix(PROVIDER))]
    return [r for c in conversations for r in message_rows(c, counters, [reference])]


def _describe(conversation: Conversation, span: Span) -> Delta:
    messages = conversation.messages
    chosen = messages[span.start:span.end] if 0 <= span.start < span.end <= len(messages) else ()
    described = [describe(m) for m in chosen]
    thinking_chars = sum(len(t) for t in span.thinking)
    return Delta(span.model, span.start, span.end, span.actual, tuple(m.id for m in chosen),
                 "+".join(dict.fromkeys(m.role for m in chosen)),
                 dominant(((k, c) for k, _, c in described), default=""),
                 dominant(((lang, c) for _, lang, c in described), default=""),
                 sum(c for *_, c in described) + thinking_chars, span.skipped, span.thinking, span.thinking_tokens)
