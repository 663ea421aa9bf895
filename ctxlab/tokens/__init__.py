"""Token counters by name: seed estimators, exact tokenizers, and the fitted `calibrated` estimator.

Names: ``chars4``, ``chars2``, ``chars3``, ``ascii_cjk`` (the seeds' estimators), ``o200k_base``,
``cl100k_base`` (tiktoken, offline), ``claude_legacy``, ``hf:<tokenizer.json>``, ``calibrated``
(fitted against o200k_base) and ``calibrated:<reference or path.json>``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ctxlab.errors import UnknownNameError
from ctxlab.tokens.base import CachedCounter, TokenCounter
from ctxlab.tokens.estimators import AsciiCjk, Chars2, Chars3, Chars4
from ctxlab.tokens.exact import HFCounter, TiktokenCounter, claude_legacy

ESTIMATORS = ("chars4", "chars2", "chars3", "ascii_cjk")
EXACT = ("o200k_base", "cl100k_base", "claude_legacy")

_FACTORIES: dict[str, Callable[[], TokenCounter]] = {
    "chars4": Chars4,
    "chars2": Chars2,
    "chars3": Chars3,
    "ascii_cjk": AsciiCjk,
    "o200k_base": lambda: TiktokenCounter("o200k_base"),
    "cl100k_base": lambda: TiktokenCounter("cl100k_base"),
    "claude_legacy": claude_legacy,
}


def list_counters() -> list[str]:
    """Names `get_counter` accepts (plus the ``hf:<path>`` and ``calibrated:<x>`` forms)."""
    return [*_FACTORIES, "calibrated"]


@functools.lru_cache(maxsize=64)
def _build(name: str) -> TokenCounter:
    if name in _FACTORIES:
        return _FACTORIES[name]()
    if name.startswith("hf:"):
        return HFCounter(name[3:], name=name)
    if name == "calibrated" or name.startswith("calibrated:"):
        from ctxlab.tokens.calibrated import load_calibrated

        return load_calibrated(name.partition(":")[2] or "o200k_base")
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


__all__ = ["CachedCounter", "TokenCounter", "get_counter", "list_counters", "ESTIMATORS", "EXACT"]
