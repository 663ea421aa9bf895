"""Trigger mechanics: the window a policy sees, the agent's own counter, and when it compacts.

An agent compacts by comparing its own token estimate with a threshold derived from its model's
context window. ctxlab's `budget` plays the window when no window is configured; with a
``context_window`` (or a litellm ``model``) the policy sees ``min(budget, window)``, so a smaller
budget always binds. Thresholds derive from that window exactly as each agent derives them from
its own:

- ``share``: ``int(window * value)`` (Codex 0.9 via ``context_window * 9 / 10``, inspect 0.9,
  LangChain ``("fraction", x)``);
- ``reserve``: ``window - value`` (pi-mono ``contextWindow - reserveTokens``);
- ``tokens``: ``value`` itself (LangChain ``ClearToolUsesEdit(trigger=100_000)``);
- ``always``: every call (LangChain ``trim_messages`` runs before each model call).

`reserved_budget` is the budget of a policy that keeps a reserve for the reply out of the window
itself (seed 003's context window guard: ``min(budget, window - reserveTokens)``).
"""

from __future__ import annotations

from typing import NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.models import context_window
from ctxlab.tokens import TokenCounter, get_counter

TRIGGERS = ("always", "share", "reserve", "tokens")
REFERENCE = "reference"  # the counter ctxlab measures with: stands for provider-reported usage


class Threshold(NamedTuple):
    """When to compact: `tokens` (None: always) compared inclusively (``>=``) or not (``>``)."""

    tokens: int | None
    inclusive: bool = False

    def fires(self, total: int) -> bool:
        if self.tokens is None:
            return True
        return total >= self.tokens if self.inclusive else total > self.tokens


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
    """``min(budget, window - reserve)`` with a configured window (seed 003's guard leaves `reserve`
    tokens of it for the reply), else `budget`."""
    window = configured_window(configured, model)
    return min(budget, window - reserve) if window else budget


def threshold(kind: str, value: float, window: int, inclusive: bool = False) -> Threshold:
    """The token threshold of a trigger `kind` (see the module docstring).

    Raises:
        CtxlabError: an unknown trigger kind.
    """
    if kind == "always":
        return Threshold(None)
    if kind == "share":
        return Threshold(int(window * value), inclusive)
    if kind == "reserve":
        return Threshold(window - int(value), inclusive)
    if kind == "tokens":
        return Threshold(int(value), inclusive)
    raise CtxlabError(f"unknown trigger {kind!r} (valid: {', '.join(TRIGGERS)})")


def counter_for(name: str, reference: TokenCounter) -> TokenCounter:
    """The agent's own counter by name; ``reference`` is the counter ctxlab measures with."""
    return reference if name in ("", REFERENCE) else get_counter(name)
