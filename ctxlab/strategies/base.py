"""The strategy interface: the `Strategy` protocol, `CompressionResult`, `Request`, `Plan`, `BaseStrategy`.

A strategy is a frozen dataclass whose fields are its parameters, registered by name. It makes two
decisions: *when* to compact (`when`, a `Trigger` over the window it sees, `window`) and *what*
to keep (`plan`). `BaseStrategy.compress` does the rest: input normalization, counting, checking
the trigger (`plan` runs only when it fires, `idle` otherwise), timing and the id accounting every
result must satisfy.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, NamedTuple, Protocol, runtime_checkable

from ctxlab.errors import CtxlabError
from ctxlab.messages import Message, as_messages
from ctxlab.strategies.registry import StrategySpec
from ctxlab.strategies.trigger import ALWAYS, Trigger, counter_for, event_sizes
from ctxlab.tokens import TokenCounter, get_counter

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


@runtime_checkable
class Strategy(Protocol):
    """Compresses a conversation to a token budget."""

    name: ClassVar[str]

    @property
    def spec(self) -> StrategySpec: ...

    def compress(self, messages: Iterable[Message | Mapping[str, Any]], budget: int, *,
                 counter: str | TokenCounter = "o200k_base", tools: Tools | None = None) -> CompressionResult: ...


@dataclass(frozen=True)
class Request:
    """One compression job as a strategy sees it, with cached per-message token counts."""

    messages: tuple[Message, ...]
    budget: int
    counter: TokenCounter
    tools: Tools = ()

    @cached_property
    def counts(self) -> list[int]:
        count = self.counter.count_message
        return [count(m) for m in self.messages]

    @cached_property
    def overhead(self) -> int:
        return self.counter.overhead(self.tools)

    @cached_property
    def total(self) -> int:
        return sum(self.counts) + self.overhead

    def cost(self, messages: Iterable[Message]) -> int:
        """Tokens of a candidate result (without the fixed overhead)."""
        return sum(self.counter.count_message(m) for m in messages)


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


class BaseStrategy:
    """Shared `compress` around a strategy's `plan`; subclasses are frozen dataclasses.

    `building_block` marks a strategy that means something only with parameters (the raw policy
    model): replays that name no strategies, the demo and `ctxlab recommend` leave it out.
    `source_names` maps parameters (a group of them comma-separated) to what the source system
    calls them; docs/strategies.md renders them beside the defaults (`ctxlab.cli.reference`).
    """

    name: ClassVar[str] = ""
    building_block: ClassVar[bool] = False
    source_names: ClassVar[tuple[tuple[str, str], ...]] = ()

    @cached_property
    def spec(self) -> StrategySpec:
        """Name and every parameter (computed once: strategies are frozen)."""
        return StrategySpec(self.name, tuple((f.name, _spec_value(getattr(self, f.name)))
                                             for f in dataclasses.fields(self)))  # type: ignore[arg-type]

    def when(self) -> Trigger:
        """When this strategy compacts (default: every call, and `plan` decides)."""
        return ALWAYS

    def window(self, budget: int) -> int:
        """The window the trigger's threshold derives from (default: the budget)."""
        return budget

    def fires(self, request: Request) -> bool:
        """Whether `when` fires on `request`: its tokens under the trigger's counter, tool definitions
        included (and its events, when the trigger counts them), against `window`."""
        trigger = self.when()
        if trigger == ALWAYS:
            return True
        counter = counter_for(trigger.counter, request.counter)
        tokens = request.total if counter is request.counter else counter.count_messages(request.messages,
                                                                                          request.tools)
        events = sum(event_sizes(request.messages)) if trigger.events else 0
        return trigger.fires(tokens, self.window(request.budget), events)

    def idle(self, request: Request) -> Plan:
        """The plan when the trigger does not fire: the input unchanged."""
        return Plan(request.messages)

    @classmethod
    def upgrade_params(cls, params: dict[str, Any]) -> dict[str, Any]:
        """`params` with the names of parameters this strategy renamed mapped to their current names
        (`get_strategy` calls it, so stored specs keep building); as given by default."""
        return params

    def plan(self, request: Request) -> Plan:
        """Decide what to keep, once the trigger fired; the one method a strategy must define."""
        raise CtxlabError(f"strategy {self.name!r} defines no plan()")

    def compress(self, messages: Iterable[Message | Mapping[str, Any]], budget: int, *,
                 counter: str | TokenCounter = "o200k_base", tools: Tools | None = None) -> CompressionResult:
        """Compress `messages` to `budget` tokens as counted by `counter` (tool definitions included).

        Args:
            messages: OpenAI chat dicts or `Message` objects.
            budget: the token budget for the whole request.
            counter: a counter name (see `ctxlab.list_counters`) or a `TokenCounter`.
            tools: the tool definitions sent with the request.
        """
        if not isinstance(budget, int) or budget <= 0:
            raise CtxlabError(f"budget must be a positive integer, not {budget!r}")
        started = time.perf_counter()
        request = Request(as_messages(messages), budget, get_counter(counter), tuple(tools or ()))
        plan = self.plan(request) if self.fires(request) else self.idle(request)
        return _result(self, request, plan, time.perf_counter() - started)


def _result(strategy: BaseStrategy, request: Request, plan: Plan, elapsed: float) -> CompressionResult:
    input_ids = tuple(m.id for m in request.messages)
    out = tuple(plan.messages)
    if out is request.messages and plan.truncated_ids is None and not plan.dropped_ids:
        # Unchanged input (the common case in per-turn replays): nothing to account or recount.
        return _unchanged(strategy, request, plan, input_ids, elapsed)
    truncated = plan.truncated_ids
    if truncated is None:
        truncated = [m.id for m in out if m.mark == "truncated"]
    dropped = plan.dropped_ids
    if dropped is None:
        present = {m.id for m in out if m.mark is None} | set(truncated)
        # An input that was already marked (a summary from an earlier step) and comes out
        # unchanged is kept, not dropped.
        marked = [m for m in out if m.mark is not None and m.id not in present]
        if marked:
            originals = set(request.messages)
            present.update(m.id for m in marked if m in originals)
        dropped = [i for i in input_ids if i not in present]
    after = request.cost(out) + request.overhead
    fits = after <= request.budget
    reason = None if fits else (plan.reason or f"{after} tokens exceed the budget of {request.budget}")
    return CompressionResult(
        messages=out, input_ids=input_ids, dropped_ids=tuple(dropped), truncated_ids=tuple(truncated),
        tokens_before=request.total, tokens_after=after, budget=request.budget, fits=fits,
        counter=request.counter.name, spec=strategy.spec, reason=reason, events=tuple(plan.events),
        summary=plan.summary, elapsed=elapsed)


def _unchanged(strategy: BaseStrategy, request: Request, plan: Plan, input_ids: tuple[str, ...],
               elapsed: float) -> CompressionResult:
    total = request.total
    fits = total <= request.budget
    return CompressionResult(
        messages=request.messages, input_ids=input_ids, dropped_ids=(),
        truncated_ids=tuple(m.id for m in request.messages if m.mark == "truncated"),
        tokens_before=total, tokens_after=total, budget=request.budget, fits=fits,
        counter=request.counter.name, spec=strategy.spec,
        reason=None if fits else (plan.reason or f"{total} tokens exceed the budget of {request.budget}"),
        events=tuple(plan.events), summary=plan.summary, elapsed=elapsed)


def _spec_value(value: Any) -> Any:
    """Parameters as JSON-friendly values; objects (summarizers, gatherers) by their spec or name."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_spec_value(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _spec_value(v) for k, v in value.items()}
    spec = getattr(value, "spec", None)
    if isinstance(spec, StrategySpec):
        return {"name": spec.name, "params": dict(spec.params)}
    return getattr(value, "name", None) or getattr(value, "__name__", None) or type(value).__name__


__all__ = ["SUMMARY_CALL", "BaseStrategy", "CompressionResult", "Event", "Plan", "Request", "Strategy", "summary_call"]
