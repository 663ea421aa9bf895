"""A policy run call by call over a growing history: the core `ctxlab.apply` and the LangChain
middleware share, whatever the message format.

At every call the strategy is handed what it sent last time plus the messages since, exactly the
step a per-turn replay takes (`ctxlab.replay.steps.Carry`), so a compaction's summary stays the
prefix of what it sends next and a policy sends the same thing in an agent as in ctxlab's replay.
`Tracked` adds what an integration needs beyond the replay: a digest of the history the carry
stands for, because a caller (unlike a replay) can hand over a history that is not the one it
handed last time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxlab.errors import CtxlabError
from ctxlab.messages import Message
from ctxlab.replay.config import DEFAULT_COUNTER
from ctxlab.replay.steps import Carry
from ctxlab.strategies import BaseStrategy, CompressionResult, get_strategy
from ctxlab.strategies.signals import Recorded
from ctxlab.tokens import TokenCounter, get_counter

PolicyLike = str | Mapping[str, Any] | BaseStrategy
Tools = Sequence[Mapping[str, Any]]


class WindowTooSmallError(CtxlabError, ValueError):
    """The window cannot hold even the system prompt and the tool definitions."""


class StateMismatchError(CtxlabError, ValueError):
    """A state object handed back with a history, policy or window other than the one it was made for."""


@dataclass(frozen=True)
class Tracked:
    """A `Carry` with the digest of the history it stands for (``history[:carry.consumed]``)."""

    carry: Carry
    digest: str

    def resume(self, history: Sequence[Message]) -> Carry | None:
        """The carry when `history` still begins with what it stands for; None when it changed."""
        n = self.carry.consumed
        return self.carry if n <= len(history) and digest(history[:n]) == self.digest else None


def digest(messages: Sequence[Message]) -> str:
    """A digest of messages as a provider sees them (ids included): equal histories, equal digests."""
    h = hashlib.sha256()
    for m in messages:
        h.update(json.dumps(m.to_openai(include_id=True), sort_keys=True, ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()


START = Tracked(Carry(), digest(()))  # the first call: nothing carried, the empty history's digest


@dataclass(frozen=True)
class Runner:
    """A strategy with its window and request counter, checked once, stepped call by call.

    Attributes:
        strategy: the policy.
        window: the model's context window in tokens (the budget the strategy fits the request in).
        counter: the request counter (`CompressionResult.fits` and `tokens_after` are its).
    """

    strategy: BaseStrategy
    window: int
    counter: TokenCounter

    @classmethod
    def build(cls, policy: PolicyLike, window: int, counter: str | TokenCounter | None = None) -> Runner:
        """A runner for any spec `ctxlab.get_strategy` takes (``"pi:keep_tokens=12000"``), or a
        strategy object; the counter defaults to the strategy's own (`seed_counter`), else o200k_base.

        Raises:
            UnknownNameError: an unknown policy, parameter or counter (listing the valid ones).
            CtxlabError: a window that is not a positive integer.
        """
        strategy = policy if isinstance(policy, BaseStrategy) else get_strategy(policy)
        if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
            raise CtxlabError(f"window must be a positive number of tokens, not {window!r}")
        if counter is None:  # as a replay's ``seed`` counter: the strategy's own, else the default
            counter = getattr(type(strategy), "seed_counter", None) or DEFAULT_COUNTER
        return cls(strategy, window, get_counter(counter))

    @property
    def label(self) -> str:
        """What the runner runs, in one line (a state object remembers it, to refuse another)."""
        return f"{self.strategy.spec.to_json()} window={self.window} counter={self.counter.name}"

    def check(self, history: Sequence[Message], tools: Tools) -> None:
        """Refuse a window that cannot hold the system prompt and tool definitions.

        Raises:
            WindowTooSmallError: naming both sizes and the counter.
        """
        fixed = self.counter.overhead(tools)
        if history and history[0].role == "system":
            fixed += self.counter.count_message(history[0])
        if fixed > self.window:
            raise WindowTooSmallError(f"window {self.window:,} is smaller than the system prompt and tool "
                                      f"definitions ({fixed:,} tokens by {self.counter.name})")

    def step(self, history: Sequence[Message], tools: Tools, carry: Carry,
             calls: Sequence[Recorded] = ()) -> tuple[CompressionResult, Tracked]:
        """Compress the call before ``history[len(history)]``: what `carry` sent plus the messages
        since, with the recorded calls the replay would hand over (`Carry.recorded`).

        Returns:
            What the strategy sent, and what to carry to the next call.
        """
        self.check(history, tools)
        end = len(history)
        context = carry.context(history, end)
        result = self.strategy.compress(context, self.window, counter=self.counter, tools=tools,
                                        recorded=carry.recorded(calls, end))
        after = carry.after(context, result, end, stateless=self.strategy.stateless)
        return result, Tracked(after, digest(history[:after.consumed]))
