"""Token counters by name: seed estimators, exact tokenizers, and the fitted `calibrated` estimator.

Names: ``chars4``, ``chars2``, ``chars3``, ``ascii_cjk``, ``bytes4`` (the seeds' estimators), ``o200k_base``,
``cl100k_base`` (tiktoken, offline), ``claude_legacy``, ``hf:<tokenizer.json>``, ``calibrated``
(fitted against o200k_base) and ``calibrated:<reference or path.json>``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ctxlab.errors import UnknownNameError
from ctxlab.registry import Registry
from ctxlab.tokens.base import CachedCounter, TokenCounter, message_counts, message_tokens
from ctxlab.tokens.estimators import AsciiCjk, Bytes4, Chars2, Chars3, Chars4
from ctxlab.tokens.exact import HFCounter, TiktokenCounter, claude_legacy

ESTIMATORS = ("chars4", "chars2", "chars3", "ascii_cjk", "bytes4")
EXACT = ("o200k_base", "cl100k_base", "claude_legacy")

# Factories by name. ``hf`` and ``calibrated`` take an argument after the colon
# (``hf:<tokenizer.json>``, ``calibrated:<reference or path.json>``).
COUNTERS: Registry[Callable[..., TokenCounter]] = Registry("counter")
for _name, _factory in (("chars4", Chars4), ("chars2", Chars2), ("chars3", Chars3), ("ascii_cjk", AsciiCjk),
                        ("o200k_base", lambda: TiktokenCounter("o200k_base")),
                        ("cl100k_base", lambda: TiktokenCounter("cl100k_base")),
                        ("claude_legacy", claude_legacy),
                        ("bytes4", Bytes4),  # seed 002's EstimatedCounter
                        ("hf", lambda path: HFCounter(path, name=f"hf:{path}")),
                        ("calibrated", "ctxlab.tokens.calibrated:load_calibrated")):
    COUNTERS.register(_name, _factory)
# The agents' own estimators (ctxlab.tokens.agent_estimators, agent_shapes), used by the agent presets' decisions.
COUNTERS.register("pi_chars4", "ctxlab.tokens.agent_estimators:PiChars4")
COUNTERS.register("codex_bytes4", "ctxlab.tokens.agent_estimators:CodexBytes4")
COUNTERS.register("langchain_approx", "ctxlab.tokens.agent_estimators:LangChainApprox")
COUNTERS.register("langchain_approx_claude", "ctxlab.tokens.agent_estimators:LangChainApproxClaude")
COUNTERS.register("inspect_o200k", "ctxlab.tokens.agent_estimators:InspectO200k")
COUNTERS.register("gemini_chars4", "ctxlab.tokens.agent_shapes:GeminiChars4")
COUNTERS.register("cline_json3", "ctxlab.tokens.agent_shapes:ClineJson3")
COUNTERS.register("opencode_chars4", "ctxlab.tokens.agent_shapes:OpencodeChars4")
_WITH_ARGUMENT = {"hf": None, "calibrated": "o200k_base"}  # the argument's default, None if required


def list_counters() -> list[str]:
    """Names `get_counter` accepts (plus the ``hf:<path>`` and ``calibrated:<x>`` forms)."""
    return [n for n in COUNTERS.names() if n != "hf"]


@functools.lru_cache(maxsize=64)
def _build(name: str) -> TokenCounter:
    base, _, argument = name.partition(":")
    if base in _WITH_ARGUMENT:
        argument = argument or _WITH_ARGUMENT[base] or ""
        if argument:
            return COUNTERS.get(base)(argument)
    elif base in COUNTERS and not argument:
        return COUNTERS.get(base)()
    raise UnknownNameError("counter", name, [*list_counters(), "hf:<tokenizer.json>", "calibrated:<path>"])

def get_counter(counter: str | TokenCounter) -> TokenCounter:
    """The counter of that name (one shared, cached instance per name), or `counter` itself.

    Raises:
        UnknownNameError: the name is not a known counter.
        CtxlabError: a tokenizer file or encoding cannot be loaded.
    """
    if isinstance(counter, str):
        return _build(counter)
    # The concrete check first: a runtime Protocol check costs microseconds, and this runs per call.
    if isinstance(counter, CachedCounter) or isinstance(counter, TokenCounter):
        return counter
    raise TypeError(f"counter must be a name or a TokenCounter, not {type(counter).__name__}")


__all__ = ["COUNTERS", "CachedCounter", "TokenCounter", "get_counter", "list_counters", "message_counts", "message_tokens", "ESTIMATORS",
           "EXACT"]
