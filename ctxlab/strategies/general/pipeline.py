"""`pipeline`: chain strategies, each compressing the previous one's output to the same budget.

The default masks old tool outputs first (cheap, and the exchange stays readable), then lets
`window_guard` cut huge recent outputs and drop the oldest whole turns if the request is still
over the budget. The accounting maps every id back to the original input: dropped in any step
means dropped; truncated in any step means truncated unless a later step dropped it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxlab.errors import CtxlabError
from ctxlab.messages import Message
from ctxlab.strategies.base import BaseStrategy, CompressionResult, Event, Plan, Request
from ctxlab.strategies.registry import get_strategy, register

DEFAULT_STEPS = ("observation_masking:fallback_window=false", "window_guard")


@register("pipeline")
@dataclass(frozen=True)
class Pipeline(BaseStrategy):
    """Runs `steps` in order.

    Attributes:
        steps: strategy specs: ``"name"`` or ``"name:key=value,..."`` strings, ``{"name", "params"}``
            dicts (the form the spec stores), or strategy objects. One string joining specs with
            ``+`` also works (``"observation_masking+sliding_window"``), for the command line.
    """

    steps: tuple[Any, ...] = DEFAULT_STEPS

    def __post_init__(self) -> None:
        steps = self.steps.split("+") if isinstance(self.steps, str) else self.steps
        if not isinstance(steps, Sequence) or not steps:
            raise CtxlabError("pipeline needs a non-empty sequence of steps")
        # Built once here, so equal specs give equal pipelines and `spec` stores every parameter.
        object.__setattr__(self, "steps", tuple(_build(step) for step in steps))

    def plan(self, request: Request) -> Plan:
        ledger = _Ledger(request.messages)
        messages: Sequence[Message] = request.messages
        events: list[Event] = []
        summary = reason = None
        for index, step in enumerate(self.steps):
            # Recorded usage describes the input: it holds for a step only while no step changed it.
            recorded = request.recorded if messages is request.messages else ()
            result = step.compress(messages, request.budget, counter=request.counter, tools=request.tools,
                                   recorded=recorded)
            ledger.record(result)
            events.extend(Event(e.name, {**e.payload, "step": step.name, "step_index": index})
                          for e in result.events)
            messages, summary, reason = result.messages, result.summary or summary, result.reason
        if not any(m.mark == "summary" for m in messages):
            summary = None  # a later step dropped the summary message
        truncated, dropped = ledger.accounting()
        return Plan(messages, events, summary=summary, reason=reason, truncated_ids=truncated, dropped_ids=dropped)


class _Ledger:
    """Maps each step's ids back to the pipeline's input ids."""

    def __init__(self, messages: Sequence[Message]) -> None:
        self.input_ids = [m.id for m in messages]
        self.origin: dict[str, tuple[str, ...]] = {i: (i,) for i in self.input_ids}  # current message id -> input ids it stands for
        self.dropped: set[str] = set()
        self.truncated: set[str] = set()

    def record(self, result: CompressionResult) -> None:
        self.dropped.update(o for i in result.dropped_ids for o in self.origin.get(i, ()))
        self.truncated.update(o for i in result.truncated_ids for o in self.origin.get(i, ()))
        self.origin = {m.id: self._origin(m) for m in result.messages}

    def _origin(self, message: Message) -> tuple[str, ...]:
        own = self.origin.get(message.id, ())
        if message.mark not in ("summary", "marker"):
            return own
        # A new summary stands for its sources; one passed through unchanged keeps its origin.
        return tuple(dict.fromkeys([*own, *(o for s in message.source_ids for o in self.origin.get(s, ()))]))

    def accounting(self) -> tuple[list[str], list[str]]:
        """(truncated, dropped) input ids: dropped anywhere wins over truncated anywhere."""
        return ([i for i in self.input_ids if i in self.truncated and i not in self.dropped],
                [i for i in self.input_ids if i in self.dropped])


def _build(step: Any) -> BaseStrategy:
    if isinstance(step, BaseStrategy):
        return step
    if isinstance(step, str):
        return get_strategy(step.strip())
    if isinstance(step, Mapping) and isinstance(step.get("name"), str):
        return get_strategy(step["name"], **dict(step.get("params") or {}))
    raise CtxlabError(f"pipeline step {step!r} is not a strategy spec (a name, 'name:k=v' or {{name, params}})")
