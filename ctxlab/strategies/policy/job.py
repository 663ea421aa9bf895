"""The state one policy decision works on, and the `Selection` every tail mechanic returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.base import Request
from ctxlab.strategies.mechanics import pinned
from ctxlab.strategies.policy.window import counter_for
from ctxlab.tokens import TokenCounter

_EMPTY: Mapping[int, Message] = MappingProxyType({})


class Selection(NamedTuple):
    """What a policy keeps, in indices of `Job.messages`.

    Attributes:
        keep: indices kept (verbatim, or replaced by `replaced`), ascending.
        fold: indices folded into the summary (when the middle is summarized; dropped otherwise).
        prefix: a split turn's prefix, summarized on its own (pi-mono's turn-prefix summary).
        anchor: the index the summary goes before when placement is ``cut``.
        replaced: new versions of kept messages (truncated or masked, same id).
        summary_cap: the most tokens the summary may take, when the tail sizes it (else the
            policy's ``summary_max_tokens``).
    """

    keep: tuple[int, ...]
    fold: tuple[int, ...] = ()
    prefix: tuple[int, ...] = ()
    anchor: int | None = None
    replaced: Mapping[int, Message] = _EMPTY
    summary_cap: int | None = None


@dataclass(frozen=True)
class Job:
    """One decision: the policy's parameters, the request, the messages and the window it sees."""

    policy: Any
    request: Request
    messages: tuple[Message, ...]
    window: int
    _counts: dict[str, list[int]] = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def pinned(self) -> frozenset[int]:
        """Indices of the request's pinned messages (system prompt, newest user message) still
        here unchanged: pinned in the input, whatever an earlier pass made of the context."""
        ids = {self.request.messages[i].id for i in pinned(self.request.messages)}
        return frozenset(i for i, m in enumerate(self.messages) if m.id in ids and m.mark is None)

    def counter(self, name: str) -> TokenCounter:
        return counter_for(name, self.request.counter)

    def counts(self, name: str) -> list[int]:
        """Per-message tokens under the counter `name` (computed once per job)."""
        if name not in self._counts:
            count = self.counter(name).count_message
            self._counts[name] = [count(m) for m in self.messages]
        return self._counts[name]

    def total(self, name: str) -> int:
        """The whole request under counter `name`, with that counter's overhead (tools)."""
        return sum(self.counts(name)) + self.counter(name).overhead(self.request.tools)
