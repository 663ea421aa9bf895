"""How far an imported agent log can be trusted: the fidelity report behind ``ctxlab logs check``.

Per session: how many provider calls the log records, how many consecutive pairs are usable
deltas and why the others are not (`ctxlab.datasets.logs.deltas`), what the importer changed to
reproduce the prompt the agent sent (``meta.repairs``), what it counted and left out, how many log
lines it read (``meta.entries``), its notes (``meta.notes``, links to the log's other
conversations), and the deltas that disagree most with an estimate of their messages, with those
messages. A few such deltas are normal (content the log does not show); many of them, or a low usable share, mean the
import does not reproduce what the agent sent and provider-referenced numbers should not be
trusted.

Residuals are measured with a calibration fitted robustly on the session's own usable deltas
(its outliers are what stands out), or with a given counter when there are too few deltas.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from ctxlab.datasets.logs.deltas import Span, delta_spans, reason_counts
from ctxlab.messages import Conversation, Message
from ctxlab.metrics.calibration import observations
from ctxlab.metrics.provider import estimate_span, span_id
from ctxlab.tokens import TokenCounter, get_counter
from ctxlab.tokens.calibrated import FEATURES, CalibratedCounter, fit_observations

SESSION_FIT = "calibrated on this session"
MIN_FIT = 2 * (len(FEATURES) + 2)  # fewer usable deltas than this: residuals against a plain counter
PREVIEW = 90
_UNPRINTABLE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e]")


class Residual(NamedTuple):
    """One usable delta against the estimate: its span, numbers, and its messages in preview."""

    span: str
    estimate: int
    actual: int
    error: float  # (estimate - actual) / actual
    messages: tuple[str, ...]


class Fidelity(NamedTuple):
    """The fidelity report of one imported log (see the module docstring)."""

    conversation_id: str
    format: str
    source: str
    model: str
    provider_calls: int
    pairs: int
    usable: int
    unusable: dict[str, int]
    repairs: tuple[str, ...]
    skipped: dict[str, int]
    omitted: dict[str, int]
    estimator: str
    residuals: tuple[Residual, ...]
    notes: tuple[str, ...] = ()
    entries: int | None = None
    bad_lines: tuple[str, ...] = ()  # ``file:line: reason`` of each log line the import skipped as unusable

    @property
    def usable_share(self) -> float | None:
        return self.usable / self.pairs if self.pairs else None


def fidelity(conversation: Conversation, counter: str | TokenCounter | None = None, worst: int = 5) -> Fidelity:
    """The fidelity report of `conversation` with its `worst` residuals (largest relative error
    first), measured with `counter`, or by default with a calibration fitted on this session."""
    meta = conversation.meta or {}
    spans = delta_spans(conversation)
    usable = [s for s in spans if s.skipped is None]
    estimator = _estimator(conversation, usable, counter)
    residuals = sorted((_residual(conversation, s, estimator) for s in usable), key=lambda r: -abs(r.error))
    return Fidelity(conversation.id, str(meta.get("format") or "record"), str(meta.get("source") or ""),
                    str(meta.get("model") or ""), len(meta.get("provider_calls") or ()), len(spans), len(usable),
                    reason_counts(spans), tuple(str(r) for r in meta.get("repairs") or ()), _counts(meta, "skipped"),
                    _counts(meta, "omitted"), estimator.name, tuple(residuals[:worst]), notes(meta),
                    meta.get("entries") if isinstance(meta.get("entries"), int) else None, _bad_lines(meta))


def notes(meta: Mapping[str, Any]) -> tuple[str, ...]:
    """What a reader of an import should know besides its repairs: the importer's notes (a log
    without usable usage says why) and how the conversation relates to the others of its log (a
    resumed session, a subagent and the Task call that started it, a session's subagents)."""
    found = [str(n) for n in meta.get("notes") or ()]
    if meta.get("resumed_from"):
        found.append(f"resumes session {meta['resumed_from']}: starts with that session's history")
    parent = meta.get("parent")
    if meta.get("subagent") and isinstance(parent, Mapping):
        task = f", started by Task call {parent['tool_call_id']}" if parent.get("tool_call_id") else ""
        found.append(f"subagent of {parent.get('conversation')}{task}")
    links = [link for link in meta.get("subagents") or () if isinstance(link, Mapping)]
    if links:
        found.append(f"{len(links)} subagent conversation(s): " + ", ".join(str(x.get("conversation")) for x in links))
    return tuple(found)


def preview(message: Message, width: int = PREVIEW) -> str:
    """``role id: text`` on one line, cut to `width` characters, control characters and terminal
    escapes removed (log text is untrusted)."""
    text = message.text or " ".join(f"{c.name}({c.arguments})" for c in message.tool_calls)
    flat = " ".join(_UNPRINTABLE.sub(" ", text).split())
    flat = flat if len(flat) <= width else flat[:width - 1] + "…"
    return f"{message.role} {_UNPRINTABLE.sub('?', message.id)}: {flat}"


def _estimator(conversation: Conversation, usable: list[Span], counter: str | TokenCounter | None) -> TokenCounter:
    if counter is not None:
        return get_counter(counter)
    if len(usable) < MIN_FIT:
        return get_counter("o200k_base")
    data = observations([conversation], "provider:*")
    return CalibratedCounter(fit_observations(data.rows, data.targets, "provider:*", 0, robust=True), SESSION_FIT)


def _residual(conversation: Conversation, span: Span, counter: TokenCounter) -> Residual:
    estimate, actual = estimate_span(counter, conversation, span), int(span.actual or 0)
    messages = tuple(preview(m) for m in conversation.messages[span.start:span.end])
    thinking = tuple(f"thinking: {' '.join(_UNPRINTABLE.sub(' ', t).split())[:PREVIEW]}" for t in span.thinking)
    if span.thinking_tokens:
        thinking += (f"thinking: {span.thinking_tokens:,} tokens as the log records them (not shown)",)
    return Residual(span_id(span), estimate, actual, (estimate - actual) / actual, messages + thinking)


def _bad_lines(meta: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(f"{b.get('where')}: {b.get('reason')}" for b in meta.get("bad_lines") or () if isinstance(b, Mapping))


def _counts(meta: Mapping[str, Any], key: str) -> dict[str, int]:
    value = meta.get(key)
    return {str(k): int(v) for k, v in value.items() if isinstance(v, int)} if isinstance(value, Mapping) else {}
