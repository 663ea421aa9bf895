"""A recorded session, priced as recorded and as the cache model predicts it, call by call.

Agent logs record per call what the provider billed (``meta.provider_calls``: prompt, uncached
input, cache read, cache write and output tokens; see docs/CONTRACTS.md "Agent logs"). The
prediction uses the recorded prompt sizes, so it tests the cache model, not a token counter: the
previous call's whole prompt is cached when its messages are a prefix of this call's (no
compaction between them, ``meta.compactions[].at``); otherwise only the system part the log shows
(tools and leading system messages, counted) can be. A call's time is that of the last message
of its prompt. A call whose counts the log marks ``estimated`` (not the provider's: Aider's) is
priced from them and flagged, never checked (`CallCheck.checked`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from ctxlab.cost.cache import FIVE_MINUTES, default_cache_model
from ctxlab.cost.calls import CallCost, content_blocks
from ctxlab.cost.checks import CallCheck, SessionCheck
from ctxlab.cost.prices import PriceModel, UnknownModelError, price_model
from ctxlab.cost.split import Match, Split, split
from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation
from ctxlab.tokens import TokenCounter, get_counter


def check_session(conversation: Conversation, pm: PriceModel,
                  counter: str | TokenCounter = "o200k_base") -> SessionCheck:
    """Price each recorded call of `conversation` as recorded and as `pm`'s cache model predicts.

    `counter` counts only what a log shows before its messages (tool schemas, leading system
    messages): what a call still reads after a compaction rewrote its messages.
    """
    meta = conversation.meta or {}
    calls = sorted((c for c in meta.get("provider_calls") or () if _usable(c, len(conversation.messages))),
                   key=lambda c: c["index"])
    cuts = [_cut(c) for c in meta.get("compactions") or () if isinstance(c, Mapping)]
    system = _system_tokens(conversation, get_counter(counter))
    previous: dict[str, Mapping[str, Any]] = {}
    checks = []
    for call in calls:
        model = str(call.get("model") or meta.get("model") or "unknown")
        before = previous.get(model)
        match = None if before is None else _match(conversation, pm, before, call, cuts, system)
        checks.append(_check(pm, call, model, match))
        previous[model] = call
    return SessionCheck(conversation.id, pm.name, tuple(checks), pm.prices.alias)


class Unpriced(NamedTuple):
    """A session with per-call usage that could not be priced: its id, model ("" when the log names
    none) and why."""

    session: str
    model: str
    reason: str


def check_logs(conversations: Iterable[Conversation], model: str | None = None, *,
               counter: str | TokenCounter = "o200k_base", lifetime_s: float = FIVE_MINUTES,
               on_unpriced: Callable[[Unpriced], None] | None = None) -> Iterator[SessionCheck]:
    """`check_session` for every conversation that records per-call usage, priced by `model` (None:
    each session's own ``meta.model``) with its default cache model for `lifetime_s`.

    Args:
        on_unpriced: called with each session that cannot be priced, which is then passed over;
            None raises instead.

    Raises:
        UnknownModelError: (without `on_unpriced`) a model has no price in litellm's map.
        CtxlabError: (without `on_unpriced`) no model given and a session names none.
    """
    for conversation in conversations:
        if not (conversation.meta or {}).get("provider_calls"):
            continue
        try:
            pm = _price_model(conversation, model, lifetime_s)
        except CtxlabError as exc:
            if on_unpriced is None:
                raise
            name = model or (conversation.meta or {}).get("model") or ""
            on_unpriced(Unpriced(conversation.id, str(name), str(exc).removeprefix(f"{conversation.id}: ")))
            continue
        yield check_session(conversation, pm, counter)


def _price_model(conversation: Conversation, model: str | None, lifetime_s: float) -> PriceModel:
    """The price model of a session: `model`, else the one its log names."""
    name = model or (conversation.meta or {}).get("model")
    if not name:
        raise CtxlabError(f"{conversation.id}: the log names no model; pass one (--model)")
    try:
        return price_model(name, default_cache_model(name, lifetime_s=lifetime_s))
    except UnknownModelError as exc:
        hint = "" if model else "; price it with another model (--model)"
        raise UnknownModelError(f"{conversation.id}: {exc}{hint}") from None


def _match(conversation: Conversation, pm: PriceModel, before: Mapping[str, Any], call: Mapping[str, Any],
           cuts: Sequence[int], system: int) -> Match:
    start, end = before["index"], call["index"]
    prefix = not any(start < cut <= end for cut in cuts)
    lookback = pm.cache.lookback_blocks if pm.cache.explicit else None
    near = lookback is None or content_blocks(conversation.messages[start:end]) <= lookback
    sent_before, sent = _time(conversation, start), _time(conversation, end)
    gap = None if sent_before is None or sent is None else sent - sent_before
    shared = before["prompt_tokens"] if prefix else system
    return Match(before["prompt_tokens"], prefix and near, shared, system, gap)


def _check(pm: PriceModel, call: Mapping[str, Any], model: str, match: Match | None) -> CallCheck:
    """The call as the provider billed it beside the cache model's split of its recorded prompt."""
    output = _count(call, "output_tokens")
    billed = Split(_count(call, "input_tokens"), _count(call, "cache_read_tokens"), _count(call, "cache_write_tokens"))
    predicted = split(pm.cache, call["prompt_tokens"], match)
    estimated = call.get("estimated")
    return CallCheck(call["index"], model, None if match is None else match.gap_s,
                     CallCost.of(pm, billed, output), CallCost.of(pm, predicted, output),
                     str(estimated) if estimated else None)


def _system_tokens(conversation: Conversation, counter: TokenCounter) -> int:
    """Tokens of the tools and leading system messages a log shows (0 when it shows no system message)."""
    leading = next((i for i, m in enumerate(conversation.messages) if m.role != "system"), 0)
    if not leading:
        return 0
    return counter.count_messages(conversation.messages[:leading], list(conversation.tools))


def _time(conversation: Conversation, index: int) -> float | None:
    """When the call whose prompt ends before `index` was sent: its last prompt message's time."""
    return conversation.messages[index - 1].timestamp if 0 < index <= len(conversation.messages) else None


def _cut(compaction: Mapping[str, Any]) -> int:
    """Where a compaction rewrote the prompt: calls from ``at`` on saw the summary (-1: unknown)."""
    at = compaction.get("at") if compaction.get("at") is not None else compaction.get("index")
    return at if isinstance(at, int) else -1


def _usable(call: Any, n: int) -> bool:
    return (isinstance(call, Mapping) and isinstance(call.get("index"), int) and 0 <= call["index"] <= n
            and isinstance(call.get("prompt_tokens"), int) and call["prompt_tokens"] > 0)


def _count(call: Mapping[str, Any], key: str) -> int:
    value = call.get(key)
    return value if isinstance(value, int) and value > 0 else 0
