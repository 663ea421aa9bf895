"""One sampled call of one policy: ask the model what comes next, score it, make the store row;
and the calls of a session asked a few at a time."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

from ctxlab.messages import Conversation
from ctxlab.metrics.agreement import build_request, propose, score_call
from ctxlab.replay.metrics import request_tokens
from ctxlab.replay.plan import Entry
from ctxlab.replay.steps import Step
from ctxlab.store.schema import AgreementRow
from ctxlab.summarize.cache import CallCache, input_hash
from ctxlab.summarize.client import CallResult, Endpoint, Retry
from ctxlab.tokens import TokenCounter

TEXT_CHARS = 2000  # a text answer is kept this long: enough to read why the model did not act


class Probe(NamedTuple):
    """A policy's step at a sampled call, with what the request needs besides its messages."""

    entry: Entry
    window: int
    conv: Conversation
    step: Step
    tools: Sequence[Mapping[str, Any]]
    tokens_sent: int | None


def make_probe(entry: Entry, window: int, conv: Conversation, step: Step, tools: Sequence[Mapping[str, Any]],
               reference: TokenCounter, overhead: int) -> Probe:
    """A probe, with what the policy sends counted by the `reference` tokenizer (`overhead`: the
    tool definitions and reply priming). Counted here, in the caller's thread: counters cache
    per message and are not shared across the threads that ask the model."""
    sent = step.result.messages if step.result is not None else None
    tokens = request_tokens(reference, sent, overhead=overhead) if sent is not None else None
    return Probe(entry, window, conv, step, tools, tokens)


def probe_row(probe: Probe, endpoint: Endpoint, cache: CallCache, retry: Retry) -> AgreementRow:
    """Ask the model for the next action after what the policy sent, and score it against the
    recorded call; a policy that failed, or a call that failed, is a row with its `error`."""
    entry, step = probe.entry, probe.step
    recorded = probe.conv.messages[step.turn].tool_calls
    base: dict[str, Any] = {
        "conversation_id": probe.conv.id, "call": step.turn, "strategy": entry.strategy, "label": entry.label,
        "params": entry.spec_json, "counter": entry.counter, "window": probe.window, "model": endpoint.model or "",
        "recorded_calls": json.dumps([{"name": c.name, "arguments": c.arguments} for c in recorded],
                                     ensure_ascii=False),
        "recorded_name": recorded[0].name}
    if step.result is None:
        return AgreementRow(**base, error=f"the policy failed: {step.error}")
    base |= {"tokens_sent": probe.tokens_sent, "fits": step.result.fits}
    answer = propose(step.result.messages, probe.tools, endpoint=endpoint, cache=cache, retry=retry)
    base |= _usage(answer)
    if answer.error is not None:
        return AgreementRow(**base, error=answer.error)
    score = score_call(recorded, answer.tool_calls)
    first = answer.tool_calls[0] if answer.tool_calls else None
    return AgreementRow(**base, proposed_name=first.name if first else None,
                        proposed_arguments=first.arguments if first else None,
                        proposed_calls=len(answer.tool_calls), proposed_text=answer.text[:TEXT_CHARS] or None,
                        **score._asdict())


def ask(probes: list[Probe], endpoint: Endpoint, cache: CallCache, retry: Retry, jobs: int) -> list[AgreementRow]:
    """Each probe's row, the model calls made `jobs` at a time (they wait on the network).

    Policies often send the same request (early calls, before any of them cuts): the first of
    each is asked in a first wave and its repeats in a second, where the cache answers them,
    instead of paying for the same call twice in parallel.
    """
    def one(probe: Probe) -> AgreementRow:
        return probe_row(probe, endpoint, cache, retry)

    keys = [_request_key(p) for p in probes]
    first = {i for i, k in enumerate(keys) if k is None or keys.index(k) == i}
    waves = (sorted(first), [i for i in range(len(probes)) if i not in first])
    rows: list[Any] = [None] * len(probes)
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="ctxlab-agree") as pool:
        for wave in waves:
            for i, row in zip(wave, pool.map(one, [probes[i] for i in wave]), strict=True):
                rows[i] = row
    return rows


def _request_key(probe: Probe) -> str | None:
    """What identifies the model call a probe makes (None: the policy failed, nothing is asked)."""
    if probe.step.result is None:
        return None
    return input_hash({"messages": build_request(probe.step.result.messages), "tools": list(probe.tools)})



def _usage(answer: CallResult) -> dict[str, Any]:
    return {"input_tokens": answer.input_tokens, "output_tokens": answer.output_tokens, "cost_usd": answer.cost_usd,
            "latency_ms": answer.latency_ms, "cached": answer.cached}
