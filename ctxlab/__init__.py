"""ctxlab: a laboratory for LLM context compression.

    import ctxlab
    convs = ctxlab.load_conversations("sample:agent_sessions")
    strategy = ctxlab.get_strategy("window_guard", reserve_tokens=8192)
    result = strategy.compress(next(convs).messages, budget=4000, counter="o200k_base")

Public names resolve lazily, so ``import ctxlab`` (and the CLI's ``--help``) stays fast and
heavy libraries load only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxlab.registry import lazy_exports

__version__ = "0.1.0"

_EXPORTS = {
    "Message": "ctxlab.messages",
    "ToolCall": "ctxlab.messages",
    "Conversation": "ctxlab.messages",
    "CtxlabError": "ctxlab.errors",
    "InvalidInputError": "ctxlab.errors",
    "UnknownNameError": "ctxlab.errors",
    "TokenCounter": "ctxlab.tokens",
    "get_counter": "ctxlab.tokens",
    "list_counters": "ctxlab.tokens",
    "Strategy": "ctxlab.strategies",
    "StrategySpec": "ctxlab.strategies",
    "CompressionResult": "ctxlab.strategies",
    "get_strategy": "ctxlab.strategies",
    "list_strategies": "ctxlab.strategies",
    "load_conversations": "ctxlab.datasets",
    "apply": "ctxlab.integrations.chat",
    "ApplyState": "ctxlab.integrations.chat",
}

__all__ = ["ApplyState", "CompressionResult", "Conversation", "CtxlabError", "InvalidInputError", "Message",
           "Strategy", "StrategySpec", "TokenCounter", "ToolCall", "UnknownNameError", "__version__", "apply",
           "get_counter", "get_strategy", "list_counters", "list_strategies", "load_conversations"]


__getattr__ = lazy_exports("ctxlab", _EXPORTS, globals())


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # for type checkers and IDEs; runtime resolution is lazy
    from ctxlab.datasets import load_conversations
    from ctxlab.errors import CtxlabError, InvalidInputError, UnknownNameError
    from ctxlab.integrations.chat import ApplyState, apply
    from ctxlab.messages import Conversation, Message, ToolCall
    from ctxlab.strategies import CompressionResult, Strategy, StrategySpec, get_strategy, list_strategies
    from ctxlab.tokens import TokenCounter, get_counter, list_counters
