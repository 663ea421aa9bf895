"""Price a session's calls from their prompts, counted by a token counter, one call at a time.

    pm = price_model("claude-sonnet-4-5")
    state = None
    for prompt in prompts:                      # Prompt(messages, tools, output_tokens, timestamp)
        cost, state = price_call(pm, counter, prompt, state)

`price_call` compares a call with the previous one only and counts just the messages that are
new since it (the running totals are carried in `CacheState`), so pricing a replay turn by turn
costs little more than the replay. `price_prompts` folds it over a whole session. To bill one call
by several models, `observe` it once (what it shares with the previous call does not depend on the
model) and `bill` the observation per model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from ctxlab.cost.prices import PriceModel
from ctxlab.cost.split import Match, Split, split, split_cost
from ctxlab.messages import Message, as_messages
from ctxlab.tokens import TokenCounter, get_counter


class Prompt(NamedTuple):
    """One model call: its prompt (tools + messages, system messages first), the tokens it
    generated, and when it was sent (None: the latest message timestamp, if any)."""

    messages: Sequence[Message | Mapping[str, Any]]
    tools: Sequence[Mapping[str, Any]] = ()
    output_tokens: int = 0
    timestamp: float | None = None


class CallCost(NamedTuple):
    """A call's tokens by how they are billed (input is the uncached part) and its price in USD."""

    prompt_tokens: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost_usd: float

    @classmethod
    def of(cls, pm: PriceModel, parts: Split, output_tokens: int) -> CallCost:
        return cls(sum(parts), *parts, output_tokens, split_cost(pm.prices, parts, output_tokens))


class CacheState(NamedTuple):
    """The previous call of a session, as the next call compares with it.

    Attributes:
        messages, tools: its prompt.
        cumulative: ``cumulative[i]`` = tokens of the tools, reply priming and ``messages[:i]``.
        system_count: how many leading system messages it had.
        timestamp: when it was sent (None if unknown).
    """

    messages: tuple[Message, ...]
    tools: tuple[Mapping[str, Any], ...]
    cumulative: tuple[int, ...]
    system_count: int
    timestamp: float | None


class Observation(NamedTuple):
    """A call as every price model sees it: its size, and what it shares with the previous call
    (None fields for the first call of a session).

    Attributes:
        prompt_tokens: the whole prompt (tools, reply priming, messages).
        output_tokens: the tokens it generated.
        previous_tokens: the previous prompt's size.
        whole_prefix: the previous prompt (tools and messages) is a prefix of this one.
        new_blocks: Anthropic content blocks after that prefix (how far a breakpoint must look back).
        shared_tokens: tokens of the longest prefix both prompts share in whole messages.
        system_tokens: tokens up to the end of the shared leading system messages (0: none).
        gap_s: seconds since the previous call (None when unknown).
    """

    prompt_tokens: int
    output_tokens: int
    previous_tokens: int | None = None
    whole_prefix: bool = False
    new_blocks: int = 0
    shared_tokens: int = 0
    system_tokens: int = 0
    gap_s: float | None = None


class SessionCost(NamedTuple):
    """Every call of a session and their sum (``total.prompt_tokens`` sums the prompts)."""

    calls: tuple[CallCost, ...]
    total: CallCost


def price_call(pm: PriceModel, counter: str | TokenCounter, prompt: Prompt,
               state: CacheState | None = None) -> tuple[CallCost, CacheState]:
    """Price one call against the previous call of its session (`state`; None for the first).

    Returns:
        The call's cost and the state the next call compares with.
    """
    observed, state = observe(counter, prompt, state)
    return bill(pm, observed), state


def observe(counter: str | TokenCounter, prompt: Prompt,
            state: CacheState | None = None) -> tuple[Observation, CacheState]:
    """What a call shares with the previous call of its session, whatever the price model."""
    messages, tools = as_messages(prompt.messages), tuple(prompt.tools or ())
    same_tools = state is not None and _same_tools(state.tools, tools)
    shared = _shared_count(state.messages, messages) if state is not None and same_tools else 0
    cumulative = _cumulative(get_counter(counter), messages, tools, state if same_tools else None, shared)
    previous = len(state.messages) if state is not None else 0
    whole = state is not None and same_tools and shared == previous
    # A call that extends the previous prompt only needs its new messages looked at.
    when = prompt.timestamp if prompt.timestamp is not None else _latest_time(
        messages[previous:] if whole else messages, state.timestamp if whole and state is not None else None)
    system_count = state.system_count if whole and state is not None and state.system_count < previous \
        else _system_count(messages)
    after = CacheState(messages, tools, cumulative, system_count, when)
    if state is None:
        return Observation(cumulative[-1], prompt.output_tokens), after
    system = state.cumulative[state.system_count] if same_tools and 0 < state.system_count <= shared else 0
    gap = None if when is None or state.timestamp is None else when - state.timestamp
    return Observation(cumulative[-1], prompt.output_tokens, state.cumulative[-1], whole,
                       content_blocks(messages[previous:]) if whole else 0, cumulative[shared], system, gap), after


def bill(pm: PriceModel, observed: Observation) -> CallCost:
    """An observed call billed by one price model and its cache."""
    match = None
    if observed.previous_tokens is not None:
        lookback = pm.cache.lookback_blocks if pm.cache.explicit else None
        whole = observed.whole_prefix and (lookback is None or observed.new_blocks <= lookback)
        match = Match(observed.previous_tokens, whole, observed.shared_tokens, observed.system_tokens, observed.gap_s)
    return CallCost.of(pm, split(pm.cache, observed.prompt_tokens, match), observed.output_tokens)


def price_prompts(pm: PriceModel, counter: str | TokenCounter, prompts: Iterable[Prompt]) -> SessionCost:
    """Price a session's calls in order (each against the one before it)."""
    costs, state = [], None
    for prompt in prompts:
        cost, state = price_call(pm, counter, prompt, state)
        costs.append(cost)
    return SessionCost(tuple(costs), total(costs))


def total(costs: Iterable[CallCost]) -> CallCost:
    """The field-by-field sum of calls."""
    prompt = inp = read = write = out = 0
    dollars = 0.0
    for c in costs:
        prompt, inp, read, write = prompt + c.prompt_tokens, inp + c.input_tokens, read + c.cache_read_tokens, \
            write + c.cache_write_tokens
        out, dollars = out + c.output_tokens, dollars + c.cost_usd
    return CallCost(prompt, inp, read, write, out, dollars)


def _cumulative(counter: TokenCounter, messages: tuple[Message, ...], tools: tuple[Mapping[str, Any], ...],
                state: CacheState | None, shared: int) -> tuple[int, ...]:
    """Running token totals, reusing the previous call's for the shared messages."""
    totals = list(state.cumulative[:shared + 1]) if state is not None else [counter.overhead(tools)]
    for message in messages[shared:]:
        totals.append(totals[-1] + counter.count_message(message))
    return tuple(totals)


def _shared_count(before: Sequence[Message], after: Sequence[Message]) -> int:
    """How many leading messages the provider sees as equal (ids, marks and times are not sent)."""
    for i, (a, b) in enumerate(zip(before, after, strict=False)):
        if a is not b and (a.role, a.content, a.tool_calls, a.tool_call_id, a.name) != (
                b.role, b.content, b.tool_calls, b.tool_call_id, b.name):
            return i
    return min(len(before), len(after))


def _same_tools(before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]) -> bool:
    return before is after or len(before) == len(after) and all(a is b or a == b for a, b in zip(before, after, strict=True))


def _system_count(messages: Sequence[Message]) -> int:
    return next((i for i, m in enumerate(messages) if m.role != "system"), len(messages))


def content_blocks(messages: Sequence[Message]) -> int:
    """Anthropic content blocks of messages: a text block if any text, one per tool call or result."""
    return sum(max(1, any(m.parts) + len(m.tool_calls)) for m in messages)


def _latest_time(messages: Sequence[Message], default: float | None = None) -> float | None:
    return next((m.timestamp for m in reversed(messages) if m.timestamp is not None), default)
