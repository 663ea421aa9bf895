"""Which agent calls `ctxlab agree` asks about, and what each policy sends at them.

A policy steps through a session exactly as the per-turn replay does (`replay_steps`): at the call
at assistant message ``t`` it has its previous output plus what happened since, never a message
from ``t`` on; stepping stops after the last sampled call.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation
from ctxlab.metrics.agreement import session_tools
from ctxlab.replay.agreement_rows import Probe, make_probe
from ctxlab.replay.config import SEED
from ctxlab.replay.plan import Entry, resolve_entries, turn_indices
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies import STRATEGIES, BaseStrategy, StrategySpec
from ctxlab.tokens import TokenCounter, get_counter

BASELINE = "noop"


def sample_calls(conv: Conversation, k: int, seed: int = 0) -> tuple[int, ...]:
    """Up to `k` per-turn replay points of `conv` whose recorded action is a tool call, drawn with
    a generator seeded by `seed` and the session id (the same session always gets the same calls)."""
    candidates = [t for t in turn_indices(conv) if conv.messages[t].tool_calls]
    if len(candidates) <= k:
        return tuple(candidates)
    return tuple(sorted(random.Random(f"{seed}:{conv.id}").sample(candidates, k)))


class Policy(NamedTuple):
    """A policy to check, built once per run, with the counter its agent counts with."""

    entry: Entry
    strategy: BaseStrategy
    counter: TokenCounter


def build_policies(strategies: Sequence[str], baseline: bool, reference: str) -> list[Policy]:
    """Each policy with its own agent's counter (as `ctxlab recommend` runs them), the baseline
    first; built once, so counts cached by message serve every session."""
    specs = list(strategies)
    if baseline and BASELINE not in specs:
        specs.insert(0, BASELINE)
    if not specs:
        raise CtxlabError("give at least one --strategy")
    get_counter(reference)  # an unknown reference stops here, before any work
    return [Policy(e, STRATEGIES.build(StrategySpec.from_json(e.spec_json).to_mapping()), get_counter(e.counter))
            for e in resolve_entries(specs, (SEED,))]


def session_probes(conv: Conversation, policies: Sequence[Policy], *, window: int, calls: int, seed: int,
                   reference: str) -> Iterator[Probe]:
    """What each policy sends at each sampled call of `conv` (nothing is compressed past the last)."""
    picks = set(sample_calls(conv, calls, seed))
    if not picks:
        return
    tools = session_tools(conv)
    counter = get_counter(reference)
    overhead = counter.overhead(tools)
    for policy in policies:
        for step in replay_steps(policy.strategy, conv, window, policy.counter, "per-turn"):
            if step.turn in picks:
                yield make_probe(policy.entry, window, conv, step, tools, counter, overhead)
            if step.turn >= max(picks):
                break
