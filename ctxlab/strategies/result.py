"""What a strategy works on and hands back: `Request`, `Plan`, `CompressionResult`, `Event`.

`account` turns a strategy's `Plan` into its `CompressionResult`: the id accounting every result must
satisfy (each input id kept, truncated or dropped) and the output counted with the request's counter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter
from typing import Any, NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.signals import Recorded
from ctxlab.strategies.spec import StrategySpec
from ctxlab.summarize.message import unwrap
from ctxlab.tokens import TokenCounter, message_counts, message_tokens

_ID, _MARK = attrgetter("id"), attrgetter("mark")

Tools = Sequence[Mapping[str, Any]]


class Event(NamedTuple):
    """Something a strategy did, in its source system's own vocabulary (e.g. `context.compressed`)."""

    name: str
    payload: Mapping[str, Any]


SUMMARY_CALL = "summary_call"  # the event of one LLM summary call; the replay sums these for usage and cost


def summary_call(part: str, result: Any) -> Event:
    """The `SUMMARY_CALL` event of one summarizer call (a `SummaryResult`): what `part` of the
    context it summarized, its model and usage, whether it came from the cache, its error."""
    return Event(SUMMARY_CALL, {"part": part, "model": result.model, "input_tokens": result.input_tokens,
                                "output_tokens": result.output_tokens, "cost_usd": result.cost_usd,
                                "latency_ms": result.latency_ms, "cached": result.cached, "error": result.error})


@dataclass(frozen=True, slots=True)
class CompressionResult:
    """What a strategy kept, and how it accounts for every input message.

    Every input id is in exactly one of `kept_ids`, `truncated_ids` and `dropped_ids`. `summary` is
    the text of the newest summary message the result carries (made by this call or carried in from
    an earlier one, without its wrapper), None when it carries none (or the strategy writes none).
    `budget` is what `compress` was given to fit in; in a replay that is the window (the store's
    ``window`` column): ctxlab keeps the contract's word and names it the window everywhere else.
    """

    messages: tuple[Message, ...]
    input_ids: tuple[str, ...]
    dropped_ids: tuple[str, ...]
    truncated_ids: tuple[str, ...]
    tokens_before: int
    tokens_after: int
    budget: int
    fits: bool
    counter: str
    spec: StrategySpec
    reason: str | None = None
    events: tuple[Event, ...] = ()
    summary: str | None = None
    elapsed: float = 0.0

    @property
    def kept_ids(self) -> tuple[str, ...]:
        gone = set(self.dropped_ids) | set(self.truncated_ids)
        return tuple(i for i in self.input_ids if i not in gone)

    @property
    def retained_ratio(self) -> float:
        return self.tokens_after / self.tokens_before if self.tokens_before else 1.0


@dataclass(frozen=True)
class Request:
    """One compression job as a strategy sees it, with cached per-message token counts.

    `counter` is the request counter, the one `compress` was given: `fits` and `tokens_after` are
    its, and a `Trigger` or a tail names it ``request`` (an agent's own estimator by its name).
    `budget` is what the request must fit in (in a replay, the window; see `CompressionResult`).
    `recorded` is what an agent log says the provider counted for the calls before this request
    (never this call's or a later one's), while `messages` still begin with what those calls saw.
    """

    messages: tuple[Message, ...]
    budget: int
    counter: TokenCounter
    tools: Tools = ()
    recorded: tuple[Recorded, ...] = ()

    @cached_property
    def counts(self) -> list[int]:
        return message_counts(self.counter, self.messages)

    @cached_property
    def overhead(self) -> int:
        return self.counter.overhead(self.tools)

    @cached_property
    def total(self) -> int:
        return sum(self.counts) + self.overhead

    def cost(self, messages: Iterable[Message]) -> int:
        """Tokens of a candidate result (without the fixed overhead)."""
        return message_tokens(self.counter, messages)


@dataclass(frozen=True, slots=True)
class Plan:
    """A strategy's decision; `BaseStrategy` turns it into a `CompressionResult`.

    `truncated_ids`/`dropped_ids` are only needed when the output messages alone cannot tell
    (gssc folds messages into one structured prompt); `summary` is `CompressionResult.summary`.
    """

    messages: Sequence[Message]
    events: Sequence[Event] = ()
    summary: str | None = None
    reason: str | None = None
    truncated_ids: Sequence[str] | None = None
    dropped_ids: Sequence[str] | None = None


def account(spec: StrategySpec, request: Request, plan: Plan, elapsed: float) -> CompressionResult:
    """The result of `plan` for `request`: every input id accounted for, the output counted."""
    input_ids = tuple(map(_ID, request.messages))  # in C: a per-turn replay accounts the whole history per call
    out = tuple(plan.messages)
    if out is request.messages and plan.truncated_ids is None and not plan.dropped_ids:
        # Unchanged input (the common case in per-turn replays): nothing to account or recount.
        return _unchanged(spec, request, plan, input_ids, elapsed)
    truncated = plan.truncated_ids
    if truncated is None:
        truncated = _marked(out, "truncated")
    dropped = plan.dropped_ids if plan.dropped_ids is not None else _dropped(request.messages, out, truncated)
    after = request.cost(out) + request.overhead
    fits = after <= request.budget
    reason = None if fits else (plan.reason or f"{after} tokens exceed the budget of {request.budget}")
    return CompressionResult(
        messages=out, input_ids=input_ids, dropped_ids=tuple(dropped), truncated_ids=tuple(truncated),
        tokens_before=request.total, tokens_after=after, budget=request.budget, fits=fits,
        counter=request.counter.name, spec=spec, reason=reason, events=tuple(plan.events),
        summary=_summary(plan, out), elapsed=elapsed)


def _dropped(inputs: Sequence[Message], out: Sequence[Message], truncated: Sequence[str]) -> list[str]:
    """Input ids the output neither keeps nor truncates."""
    present = {m.id for m in out if m.mark is None} | set(truncated)
    # An input that was already marked (a summary from an earlier step) and comes out unchanged is
    # kept, not dropped.
    marked = [m for m in out if m.mark is not None and m.id not in present]
    if marked:
        originals = set(inputs)
        present.update(m.id for m in marked if m in originals)
    return [m.id for m in inputs if m.id not in present]


def _marked(messages: Sequence[Message], mark: str) -> list[str]:
    """The ids of `messages` marked `mark` (found in C first: most have none)."""
    if mark not in map(_MARK, messages):
        return []
    return [m.id for m in messages if m.mark == mark]


def _summary(plan: Plan, out: Sequence[Message]) -> str | None:
    """The plan's summary text, else that of the newest summary message `out` carries (a strategy that
    writes none still reports one it was handed)."""
    if plan.summary is not None:
        return plan.summary
    if "summary" not in map(_MARK, out):  # in C, and most outputs hold none
        return None
    newest = next((m for m in reversed(out) if m.mark == "summary"), None)
    return unwrap(newest.text) if newest is not None else None


def _unchanged(spec: StrategySpec, request: Request, plan: Plan, input_ids: tuple[str, ...],
               elapsed: float) -> CompressionResult:
    total = request.total
    fits = total <= request.budget
    return CompressionResult(
        messages=request.messages, input_ids=input_ids, dropped_ids=(),
        truncated_ids=tuple(_marked(request.messages, "truncated")),
        tokens_before=total, tokens_after=total, budget=request.budget, fits=fits,
        counter=request.counter.name, spec=spec,
        reason=None if fits else (plan.reason or f"{total} tokens exceed the budget of {request.budget}"),
        events=tuple(plan.events), summary=_summary(plan, request.messages), elapsed=elapsed)


__all__ = ["SUMMARY_CALL", "CompressionResult", "Event", "Plan", "Request", "Tools", "account", "summary_call"]
