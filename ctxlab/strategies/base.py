"""The strategy interface: the `Strategy` protocol and `BaseStrategy` (with `Request`, `Plan` and
`CompressionResult` from `result`, re-exported here).

A strategy is a frozen dataclass whose fields are its parameters, registered by name. It makes two
decisions: *when* to compact (`when`, a `Trigger` over the window it sees, `window`) and *what*
to keep (`plan`). `BaseStrategy.compress` does the rest: input normalization, counting, checking
the trigger (`plan` runs only when it fires, `idle` otherwise), timing and the id accounting every
result must satisfy. For every strategy, `CompressionResult.summary` is the text of the newest summary
message the result carries (written by this call or carried in), None when it carries none.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from typing import Any, ClassVar, Protocol, runtime_checkable

from ctxlab.errors import CtxlabError
from ctxlab.messages import Message, as_messages
from ctxlab.strategies.result import (
    SUMMARY_CALL,
    CompressionResult,
    Event,
    Plan,
    Request,
    Tools,
    account,
    summary_call,
)
from ctxlab.strategies.signals import RECORDED_SIGNAL, Measure, Recorded, idle_gap, recorded_total
from ctxlab.strategies.spec import StrategySpec
from ctxlab.strategies.trigger import ALWAYS, Trigger, counter_for, event_sizes
from ctxlab.tokens import TokenCounter, get_counter, message_counts


@runtime_checkable
class Strategy(Protocol):
    """Compresses a conversation to a token budget."""

    name: ClassVar[str]

    @property
    def spec(self) -> StrategySpec: ...

    def compress(self, messages: Iterable[Message | Mapping[str, Any]], budget: int, *,
                 counter: str | TokenCounter = "o200k_base", tools: Tools | None = None,
                 recorded: Sequence[Recorded] = ()) -> CompressionResult: ...


class BaseStrategy:
    """Shared `compress` around a strategy's `plan`; subclasses are frozen dataclasses.

    `building_block` marks a strategy that means something only with parameters (the raw policy
    model): replays that name no strategies, the demo and `ctxlab recommend` leave it out.
    `source_names` maps parameters (a group of them comma-separated) to what the source system
    calls them; docs/strategies.md renders them beside the defaults (`ctxlab.cli.reference`).
    `stateless` marks a strategy whose source edits a copy of the full history on every call
    (server-side context editing): a per-turn replay hands it that history, not its last output.
    `tuning` (a `ctxlab.strategies.policy.knobs.Tuning`) holds the knobs a user of the source
    system sets and the snippet forms that write them, which ``ctxlab tune`` searches; `untunable`
    says why an agent's strategy has none.
    """

    name: ClassVar[str] = ""
    building_block: ClassVar[bool] = False
    stateless: ClassVar[bool] = False
    source_names: ClassVar[tuple[tuple[str, str], ...]] = ()
    tuning: ClassVar[Any] = None  # a Tuning (policy/knobs.py, a layer above: typed loosely here)
    untunable: ClassVar[str] = ""

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
        """Whether `when` fires on `request`: its tokens as `measure` counts them (and its events,
        when the trigger counts them) against `window`; for an ``idle`` trigger, the time since the
        newest assistant message."""
        trigger = self.when()
        if trigger == ALWAYS:
            return True
        if trigger.kind == "idle":
            gap = idle_gap(request.messages)
            return gap is not None and gap > trigger.idle_minutes * 60
        events = sum(event_sizes(request.messages)) if trigger.events else 0
        return trigger.fires(self.measure(request).tokens, self.window(request.budget), events)

    def measure(self, request: Request) -> Measure:
        """The request's tokens as the trigger counts them: anchored on recorded provider usage when
        the trigger says so and the request carries it (`recorded_total`), else the whole request
        (tool definitions included) under the trigger's counter."""
        trigger = self.when()
        counter = counter_for(trigger.counter, request.counter)
        same = counter is request.counter
        if trigger.recorded != "none" and request.recorded:
            counts = request.counts if same else message_counts(counter, request.messages)
            found = recorded_total(request.recorded, counts, trigger.recorded)
            if found is not None:
                return Measure(found[1], RECORDED_SIGNAL, found[0])
        tokens = request.total if same else counter.count_messages(request.messages, request.tools)
        return Measure(tokens, f"counter {counter.name}")

    def fired(self, request: Request) -> Event:
        """The ``trigger.fired`` event: what the trigger measured, from which signal, against what."""
        measure, trigger, window = self.measure(request), self.when(), self.window(request.budget)
        anchor = measure.anchor
        return Event(FIRED, {"signal": measure.signal, "tokens": measure.tokens, "threshold": trigger.threshold(window),
                             "window": window, "anchor_index": anchor.covers if anchor else None,
                             "anchor_prompt": anchor.prompt if anchor else None})

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
                 counter: str | TokenCounter = "o200k_base", tools: Tools | None = None,
                 recorded: Sequence[Recorded] = ()) -> CompressionResult:
        """Compress `messages` to `budget` tokens as counted by `counter` (tool definitions included).

        Args:
            messages: OpenAI chat dicts or `Message` objects.
            budget: the token budget for the whole request, what the caller gives the strategy to
                fit in. A replay gives it the window (`ReplayConfig.windows`, the store's ``window``
                column); a strategy with its own configured window may aim lower (`window`).
            counter: a counter name (see `ctxlab.list_counters`) or a `TokenCounter`.
            tools: the tool definitions sent with the request.
            recorded: what the provider counted for earlier calls whose prompts the messages begin
                with (`Request.recorded`); read only by triggers anchored on recorded usage.
        """
        if not isinstance(budget, int) or budget <= 0:
            raise CtxlabError(f"budget must be a positive integer, not {budget!r}")
        started = time.perf_counter()
        request = Request(as_messages(messages), budget, get_counter(counter), tuple(tools or ()), tuple(recorded))
        fired = self.fires(request)
        plan = self.plan(request) if fired else self.idle(request)
        if fired and self.when().recorded != "none":  # say which signal it compacted on
            plan = dataclasses.replace(plan, events=(self.fired(request), *plan.events))
        return account(self.spec, request, plan, time.perf_counter() - started)


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


FIRED = "trigger.fired"  # the event of a trigger anchored on recorded usage: its signal and count

__all__ = ["FIRED", "SUMMARY_CALL", "BaseStrategy", "CompressionResult", "Event", "Plan", "Request", "Strategy", "Tools",
           "summary_call"]
