"""The pruning pre-pass of a `Policy` (fields ``prune*``): on every call, before the trigger, old
tool outputs behind the protected budget become the placeholder (`mechanics.prune`), each only
where the placeholder is smaller under the pruning counter (Gemini CLI masks only when it saves
tokens; opencode's placeholder always does)."""

from __future__ import annotations

from ctxlab.messages import Message
from ctxlab.strategies.base import Event
from ctxlab.strategies.mechanics import mask, prune
from ctxlab.strategies.mechanics.context import call_names
from ctxlab.strategies.policy.job import Job
from ctxlab.strategies.policy.parts import Prune


def pruned(p: Prune, job: Job) -> tuple[Job, list[Event]]:
    """`job` with its old tool outputs pruned as `p` says, and the ``policy.pruned`` event (none when
    nothing was pruned)."""
    if not p.on:
        return job, []
    messages, counts = job.messages, job.counts(p.counter)
    chosen = prune.protected_prune(
        messages, counts, prune.scan_end(messages, p.skip_messages, p.skip_turns), protect=p.protect,
        minimum=p.minimum, inclusive=p.inclusive, exempt=p.exempt, stop_at_pruned=p.stop_at_pruned,
        pruned=lambda m: mask.is_placeholder(m.text, p.placeholder))
    names, count = call_names(messages), job.counter(p.counter).count_message
    out: dict[int, Message] = {}
    for i in chosen:
        tool = messages[i].name or names.get(messages[i].tool_call_id or "", "tool")
        made = messages[i].with_text(prune.placeholder(p.placeholder, messages[i], tool))
        if count(made) < counts[i]:  # only where it saves tokens
            out[i] = made
    if not out:
        return job, []
    done = job.pruned(tuple(out.get(i, m) for i, m in enumerate(messages)))
    return done, [Event("policy.pruned", {"outputs": len(out), "tokens": sum(counts[i] for i in out)})]


__all__ = ["pruned"]
