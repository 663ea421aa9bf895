"""Conversions between an agent's written knob values and ctxlab's policy parameters.

Each factory returns a `Conversion` for `ctxlab.strategies.policy.knobs.Knob`: the fields it sets
(``params``), ``encode(value, window) -> params`` and ``decode(params, window) -> value``. A trigger
is read back through the policy model's own trigger (`ctxlab.strategies.trigger.Trigger`), so a
value decodes the same whichever trigger kind (share, reserve, tokens) wrote it.

``encode(None, window)`` is the agent's own default when a snippet leaves the knob out; the
factories take it as ``unset`` (fixed parameters, or a function of the window).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.strategies.trigger import Trigger

Params = dict[str, Any]
Encode = Callable[[Any, int], Params]
Decode = Callable[[Mapping[str, Any], int], Any]
Unset = Params | Callable[[int], Params] | None


class Conversion(NamedTuple):
    """A knob's ``encode`` and ``decode``, and the policy fields it sets (``params``)."""

    encode: Encode
    decode: Decode
    params: tuple[str, ...]


def _fields(*names: str, unset: Unset = None, extra: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """The fields a conversion sets: `names`, the keys of its `extra` and of its `unset` (a function of
    the window gives the same keys at any window)."""
    fixed = unset(1) if callable(unset) else unset
    more = [*(extra or {}), *(fixed or {})]
    return tuple(dict.fromkeys([*names, *more]))


def trigger_tokens(params: Mapping[str, Any], window: int) -> int:
    """The token count at which ``params`` compact, at a window of `window` tokens.

    Raises:
        CtxlabError: a trigger that fires on every call (``always``) has no token count.
    """
    trigger = Trigger(params["trigger"], float(params.get("trigger_share", 0.0)), int(params.get("trigger_reserve", 0)),
                      int(params.get("trigger_tokens", 0)), reply=int(params.get("trigger_reply", 0)),
                      floor=int(params.get("trigger_min_tokens", 0)), ceiling=int(params.get("trigger_max_tokens", 0)))
    tokens = trigger.threshold(window)
    if tokens is None:
        raise CtxlabError(f"trigger {params['trigger']!r} has no token threshold")
    return tokens


def _unset(unset: Unset, window: int, name: str) -> Params:
    if unset is None:
        raise CtxlabError(f"{name} has no default in the agent's source; the snippet must set it")
    return dict(unset(window) if callable(unset) else unset)


def param(name: str, cast: Callable[[Any], Any] = int, unset: Unset = None,
          store: Callable[[Any], Any] | None = None) -> Conversion:
    """A value that is one ctxlab parameter, as is (a count, a share, tokens): read back as `cast`,
    stored as `store` (default `cast`; a float field holding a count stores ``float``)."""
    def encode(value: Any, window: int) -> Params:
        return _unset(unset, window, name) if value is None else {name: (store or cast)(cast(value))}

    return Conversion(encode, lambda params, window: cast(params[name]), _fields(name, unset=unset))


def limit(inclusive: bool | None = None, unset: Unset = None, cap: bool = False) -> Conversion:
    """An absolute token threshold (Codex ``model_auto_compact_token_limit``, OpenHands ``max_tokens``).

    Args:
        inclusive: also set ``trigger_inclusive`` (None: leave the preset's).
        unset: the parameters when the agent leaves it unset.
        cap: the agent takes the smaller of this and the model's window (OpenHands).
    """
    extra = {} if inclusive is None else {"trigger_inclusive": inclusive}

    def encode(value: Any, window: int) -> Params:
        if value is None:
            return _unset(unset, window, "the token limit")
        tokens = min(int(value), window) if cap else int(value)
        return {"trigger": "tokens", "trigger_tokens": tokens, **extra}

    return Conversion(encode, trigger_tokens, _fields("trigger", "trigger_tokens", unset=unset, extra=extra))


def reserve(unset: Unset = None, summary_caps: bool = False, replaces_reply: bool = False) -> Conversion:
    """Tokens kept free below the window: compact above ``window - value`` (pi ``reserveTokens``,
    opencode ``compaction.reserved``). With `summary_caps`, pi's summary caps follow it:
    ``floor(0.8 x value)`` for the summary and ``floor(0.5 x value)`` for a split turn's prefix; with
    `replaces_reply` the value replaces the reply's room (opencode: set, ``reserved`` takes the place
    of ``min(20000, max output)``)."""
    def encode(value: Any, window: int) -> Params:
        if value is None:
            return _unset(unset, window, "the reserve")
        out: Params = {"trigger": "reserve", "trigger_reserve": int(value)}
        if replaces_reply:
            out["trigger_reply"] = 0
        if summary_caps:  # a summary cap below 1 token is no request at all
            out |= {"summary_max_tokens": max(1, math.floor(0.8 * int(value))),
                    "prefix_max_tokens": max(1, math.floor(0.5 * int(value)))}
        return out

    caps = ("summary_max_tokens", "prefix_max_tokens") if summary_caps else ()
    names = _fields("trigger", "trigger_reserve", *(("trigger_reply",) if replaces_reply else ()), *caps, unset=unset)
    return Conversion(encode, lambda params, window: window - trigger_tokens(params, window), names)


def share(inclusive: bool | None = None, unset: Unset = None, percent: bool = False) -> Conversion:
    """A trigger as a share of the window (Gemini ``compressionThreshold``, goose's threshold), or as
    a percentage with `percent` (Claude Code ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE``)."""
    extra = {} if inclusive is None else {"trigger_inclusive": inclusive}
    scale = 100.0 if percent else 1.0

    def encode(value: Any, window: int) -> Params:
        if value is None:
            return _unset(unset, window, "the threshold")
        return {"trigger": "share", "trigger_share": float(value) / scale, **extra}

    def decode(params: Mapping[str, Any], window: int) -> Any:
        if unset is not None and params["trigger"] != "share":
            return None  # the agent's own default, which is not a share: the setting stays unset
        return tidy(_share_of(params, window) * scale)

    return Conversion(encode, decode, _fields("trigger", "trigger_share", unset=unset, extra=extra))


def _share_of(params: Mapping[str, Any], window: int) -> float:
    if params["trigger"] == "share":
        return float(params["trigger_share"])
    return trigger_tokens(params, window) / window


def tidy(value: float) -> float | int:
    """A number as written by hand: an int when whole, else rounded to 6 decimals (so a share
    survives ``x 100`` and back)."""
    value = round(value, 6)
    return int(value) if value == int(value) else value


def fraction_or_tokens() -> Conversion:
    """LangChain ``ContextSize``: ``("fraction", f)`` of the model's input limit or ``("tokens", n)``."""
    def encode(value: Any, window: int) -> Params:
        if value is None:
            raise CtxlabError("SummarizationMiddleware without a trigger never summarizes; set trigger=")
        kind, amount = value
        if kind == "fraction":
            return {"trigger": "share", "trigger_share": float(amount)}
        if kind == "tokens":
            return {"trigger": "tokens", "trigger_tokens": int(amount)}
        raise CtxlabError(f"trigger ({kind!r}, ...): ctxlab models 'fraction' and 'tokens' (not 'messages')")

    def decode(params: Mapping[str, Any], window: int) -> Any:
        if params["trigger"] == "share":
            return ("fraction", tidy(float(params["trigger_share"])))
        return ("tokens", trigger_tokens(params, window))

    return Conversion(encode, decode, ("trigger", "trigger_share", "trigger_tokens"))


def int_or_share() -> Conversion:
    """inspect_ai ``threshold``: an int (or a float above 1.0) is tokens, a float up to 1.0 a share
    of the model's input window (``_resolve_threshold``)."""
    def encode(value: Any, window: int) -> Params:
        if value is None:
            value = 0.9
        if isinstance(value, int) or value > 1.0:
            return {"trigger": "tokens", "trigger_tokens": int(value)}
        return {"trigger": "share", "trigger_share": float(value)}

    def decode(params: Mapping[str, Any], window: int) -> Any:
        if params["trigger"] == "share":
            return float(params["trigger_share"])
        return trigger_tokens(params, window)

    return Conversion(encode, decode, ("trigger", "trigger_share", "trigger_tokens"))


def flag(name: str, on: Any, off: Any) -> Conversion:
    """A boolean the agent writes, one parameter value each way (Gemini CLI ``protectLatestTurn``:
    2 messages skipped with it, 1 without); unset is True."""
    def encode(value: Any, window: int) -> Params:
        return {name: on if value is None or value else off}

    return Conversion(encode, lambda params, window: params[name] == on, (name,))


def typed(kind: str, inner: Conversion) -> Conversion:
    """A value the agent writes as ``{"type": kind, "value": n}`` (Anthropic's context management)."""
    def encode(value: Any, window: int) -> Params:
        return inner.encode(None if value is None else value["value"], window)

    def decode(params: Mapping[str, Any], window: int) -> Any:
        value = inner.decode(params, window)
        return None if value is None else {"type": kind, "value": value}

    return Conversion(encode, decode, inner.params)


__all__ = ["Conversion", "flag", "fraction_or_tokens", "int_or_share", "limit", "param", "reserve", "share",
           "tidy", "trigger_tokens", "typed"]
