"""The state one policy decision works on: the request, the messages of this pass, the window."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ctxlab.messages import Message
from ctxlab.strategies.base import Request
from ctxlab.strategies.mechanics.context import pinned
from ctxlab.strategies.trigger import counter_for
from ctxlab.tokens import TokenCounter, message_counts


@dataclass(frozen=True)
class Job:
    """One decision: the request, the messages a compaction pass works on, the window it sees and
    how many passes came before this one (Aider's recursion depth, Letta's fallback)."""

    request: Request
    messages: tuple[Message, ...]
    window: int
    depth: int = 0
    _counts: dict[str, list[int]] = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def pinned(self) -> frozenset[int]:
        """Indices of the request's pinned messages (system prompt, newest user message) still
        here unchanged: pinned in the input, whatever an earlier pass made of the context."""
        ids = {self.request.messages[i].id for i in pinned(self.request.messages)}
        return frozenset(i for i, m in enumerate(self.messages) if m.id in ids and m.mark is None)

    def counter(self, name: str) -> TokenCounter:
        """The counter `name` (``request``: the request's own)."""
        return counter_for(name, self.request.counter)

    def counts(self, name: str) -> list[int]:
        """Per-message tokens under the counter `name` (computed once per job)."""
        if name not in self._counts:
            self._counts[name] = message_counts(self.counter(name), self.messages)
        return self._counts[name]

    def total(self, name: str) -> int:
        """The whole request under counter `name`, with that counter's overhead (tools)."""
        return sum(self.counts(name)) + self.counter(name).overhead(self.request.tools)

    def again(self, messages: tuple[Message, ...]) -> Job:
        """The next pass's job: the same request and window, other messages, one pass deeper."""
        return Job(self.request, messages, self.window, self.depth + 1)

    def pruned(self, messages: tuple[Message, ...]) -> Job:
        """This pass's job over `messages` (outputs pruned before compacting), at the same depth."""
        return Job(self.request, messages, self.window, self.depth)
