"""When a strategy compacts: the `Trigger` vocabulary every strategy shares, and the window it sees.

A strategy is two decisions, as in inspect_ai's ``model/_compaction/`` (the handler checks the
strategy's ``threshold``; the strategy's ``compact`` only chooses what to keep): *when*, a `Trigger`
(`BaseStrategy.when`), and *what*, its `plan`, which `BaseStrategy.compress` calls only when the
trigger fires. An agent compacts by comparing its own token estimate with a threshold derived from
its model's context window; a `Trigger` says which threshold and which estimate:

- ``always``: every call (LangChain ``trim_messages`` runs before each model call; the seeds that
  rewrite whatever the budget);
- ``share``: ``int(window * share)`` (Codex ``context_window * 9 / 10``, inspect_ai 0.9, LangChain
  ``("fraction", x)``, seed 001's ``int(max_tokens * 0.8)``, seed 004's 80% usage); with a
  ``reserve`` as well, never above ``window - reserve`` (Claude Code's percentage override only
  lowers its threshold);
- ``reserve``: ``window - reserve`` (pi-mono ``contextWindow - reserveTokens``);
- ``tokens``: a fixed count (LangChain ``ClearToolUsesEdit(trigger=100_000)``);
- ``idle``: the newest message came more than ``idle_minutes`` after the newest assistant message
  (Claude Code's time-based micro-compaction: the prompt cache has expired), from the messages'
  timestamps (`ctxlab.strategies.signals.idle_gap`; never without them);

the token kinds compared with ``>``, or ``>=`` when `inclusive`; `events` adds OpenHands' soft
limit (more than this many events fires too); `reply` keeps room for the reply below the window
before the share or the reserve is taken (Claude Code's ``window - min(maxOutputTokens, 20000) -
13000`` is kind ``reserve``, reserve 13000, reply the model's max output capped at 20000); `floor`
and `ceiling` bound a share or a reserve (Aider's history budget ``min(max(max_input / 16, 1024),
8192)`` is kind ``share`` 1/16, floor 1024, ceiling 8192). The tokens are those of the whole
request (tool definitions included) under `counter`: ``request``, the counter the request is
compressed with (`compress(counter=...)`, which stands for the usage a provider reports), or an
agent's own estimator by name.

`recorded` anchors the count on what the provider reported for the calls before this one, when
the request carries them (`Request.recorded`, from an agent log; `ctxlab.strategies.signals`):
``prompt`` is the last call's prompt, ``prompt+output`` adds its output tokens, ``prompt+tail``
adds `counter`'s count of every message after that prompt, the call's own reply included (Claude
Code's ``tokenCountWithEstimation``); ``none`` never does. Without recorded calls the counter
counts it all.

The window: ctxlab's `budget` plays the window when no window is configured; with a
``context_window`` (or a litellm ``model``) a policy sees ``min(budget, window)`` (`window_of`),
and a seed that keeps a reserve for the reply out of the window itself sees
``min(budget, window - reserve)`` (`reserved_budget`: seed 003's guard, seed 001 with pi-mono's
reserve).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxlab.errors import CtxlabError
from ctxlab.messages import Message
from ctxlab.models import context_window
from ctxlab.strategies.signals import RECORDED
from ctxlab.tokens import TokenCounter, get_counter

KINDS = ("always", "share", "reserve", "tokens", "idle")
REQUEST = "request"  # the request's own counter, the one `compress` is given


@dataclass(frozen=True, slots=True)
class Trigger:
    """When to compact (see the module docstring); each kind reads its own field (``share`` also a
    ``reserve``, as a ceiling).

    Attributes:
        kind: ``always``, ``share``, ``reserve``, ``tokens`` or ``idle``.
        share: the share of the window (kind ``share``).
        reserve: tokens left free below the window (kind ``reserve``; a ceiling for ``share``).
        tokens: a fixed threshold (kind ``tokens``).
        inclusive: fire at the threshold itself (``>=``), not only above it.
        events: also fire above this many events (0: no event limit).
        counter: ``request`` or the name of the agent's own counter.
        reply: tokens kept free for the reply below the window (kinds ``share`` and ``reserve``).
        recorded: how recorded provider usage anchors the count (`RECORDED`; ``none``: never).
        idle_minutes: the gap after the newest assistant message that fires (kind ``idle``).
        floor: the threshold of a share or a reserve is at least this (0: no floor).
        ceiling: ... and at most this (0: no ceiling).
    """

    kind: str = "always"
    share: float = 0.0
    reserve: int = 0
    tokens: int = 0
    inclusive: bool = False
    events: int = 0
    counter: str = REQUEST
    reply: int = 0
    recorded: str = "none"
    idle_minutes: float = 0.0
    floor: int = 0
    ceiling: int = 0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise CtxlabError(f"unknown trigger {self.kind!r} (valid: {', '.join(KINDS)})")
        if self.recorded not in RECORDED:
            raise CtxlabError(f"unknown recorded usage {self.recorded!r} (valid: {', '.join(RECORDED)})")

    @classmethod
    def at_share(cls, share: float, *, inclusive: bool = False, counter: str = REQUEST) -> Trigger:
        return cls("share", share=share, inclusive=inclusive, counter=counter)

    @classmethod
    def at_reserve(cls, reserve: int, *, inclusive: bool = False, counter: str = REQUEST) -> Trigger:
        return cls("reserve", reserve=reserve, inclusive=inclusive, counter=counter)

    @classmethod
    def at_tokens(cls, tokens: int, *, inclusive: bool = False, counter: str = REQUEST) -> Trigger:
        return cls("tokens", tokens=tokens, inclusive=inclusive, counter=counter)

    def threshold(self, window: int) -> int | None:
        """The token threshold for a `window` (None: every call, or no token threshold: ``idle``)."""
        if self.kind in ("share", "reserve"):
            reserved = window - self.reply - int(self.reserve)
            if self.kind == "share":
                limit = int((window - self.reply) * self.share)
                # With a reserve too, the share can only lower the threshold (Claude Code's
                # CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: min(effective x pct, effective - buffer)).
                limit = min(limit, reserved) if self.reserve else limit
            else:
                limit = reserved
            limit = max(limit, self.floor) if self.floor else limit
            return min(limit, self.ceiling) if self.ceiling else limit
        if self.kind == "tokens":
            return int(self.tokens)
        return None

    def over(self, tokens: int, window: int) -> bool:
        """Whether `tokens` are past the threshold (always true without one; never for ``idle``,
        which measures time, not tokens)."""
        limit = self.threshold(window)
        if limit is None:
            return self.kind != "idle"
        return tokens >= limit if self.inclusive else tokens > limit

    def fires(self, tokens: int, window: int, events: int = 0) -> bool:
        """Whether a request of `tokens` (and `events`) compacts in `window`."""
        return bool(self.events and events > self.events) or self.over(tokens, window)


ALWAYS = Trigger()


def event_sizes(messages: Sequence[Message]) -> list[int]:
    """Events per message as OpenHands counts them: one per tool call of an assistant message, else one."""
    return [len(m.tool_calls) if m.role == "assistant" and m.tool_calls else 1 for m in messages]


def configured_window(configured: int = 0, model: str = "") -> int:
    """The window set explicitly, else the litellm `model`'s (0: none configured).

    Raises:
        CtxlabError: a model litellm has no window for.
    """
    return configured or (context_window(model) if model else 0)


def window_of(budget: int, configured: int = 0, model: str = "") -> int:
    """The window a policy sees: ``min(budget, configured window)``, or `budget` without one."""
    window = configured_window(configured, model)
    return min(budget, window) if window else budget


def reserved_budget(budget: int, reserve: int, configured: int = 0, model: str = "") -> int:
    """``min(budget, window - reserve)`` with a configured window (the reply's `reserve` kept out of
    it), else `budget`."""
    window = configured_window(configured, model)
    return min(budget, window - reserve) if window else budget


def counter_for(name: str, request: TokenCounter) -> TokenCounter:
    """The counter named `name`: ``request`` (or "") is the `request` counter itself."""
    return request if name in ("", REQUEST) else get_counter(name)


__all__ = ["ALWAYS", "KINDS", "REQUEST", "Trigger", "configured_window", "counter_for", "event_sizes",
           "reserved_budget", "window_of"]
