"""Model metadata from the model map bundled in the litellm wheel, read without importing litellm.

The bundled map is pinned with litellm's version, so replays stay reproducible and offline;
importing litellm costs seconds and may retry a remote price fetch.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any

from ctxlab.errors import CtxlabError

_MAP_FILE = "model_prices_and_context_window_backup.json"


@functools.lru_cache(maxsize=1)
def model_map() -> dict[str, Any]:
    """litellm's bundled model map (empty when litellm is not installed)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(next(iter(spec.submodule_search_locations))) / _MAP_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def model_info(model: str) -> dict[str, Any] | None:
    """A model's entry, trying the name with and without its provider prefix (``openai/gpt-4o``)."""
    data = model_map()
    for name in (model, model.split("/", 1)[-1]):
        info = data.get(name)
        if isinstance(info, dict):
            return info
    return None


@functools.lru_cache(maxsize=256)
def context_window(model: str) -> int:
    """The model's input context window in tokens.

    Raises:
        CtxlabError: the model, or its window, is not in litellm's map.
    """
    info = model_info(model)
    if info is None:
        raise CtxlabError(f"unknown model {model!r}: litellm has no context window for it; "
                          "set the window explicitly instead")
    window = info.get("max_input_tokens") or info.get("max_tokens")
    if not isinstance(window, int) or window <= 0:
        raise CtxlabError(f"litellm knows model {model!r} but not its input window; set the window explicitly")
    return window


@functools.lru_cache(maxsize=256)
def max_output_tokens(model: str) -> int | None:
    """The most tokens the model writes in one reply, per litellm's map (None when it does not say)."""
    info = model_info(model) or {}
    value = info.get("max_output_tokens")
    return value if isinstance(value, int) and value > 0 else None
