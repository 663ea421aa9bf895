"""What a `Policy` keeps once its trigger fired: up to ``passes`` compaction passes over the mechanics.

A policy that prunes (`mechanics.prune`: Gemini CLI's masking, opencode's prune) does it first, on
every call; its trigger then measures the pruned request (and `Policy.fires` leaves the decision
here, as it does for a trigger that counts only the history, Aider's).

One pass: the tail's `Selection` (`tails`) applied to the messages (`apply`: the head, the pinned
messages, the middle dropped, masked or summarized, the summary placed). How the passes go on is
the policy's ``retry``:

- ``again``: another pass compacts the previous pass's output while it is still over the
  trigger's threshold and the last one made progress (inspect_ai); a pass that would make the
  request larger is undone when the policy refuses growth (Gemini CLI);
- ``keep_less``: the same input is compacted again keeping less each time, until the summary has
  room, then a last-resort window (`attempts`: seed 001).

Either way one ``policy.compacted`` event per pass (per result with ``keep_less``) says what it did.
"""

from __future__ import annotations

from ctxlab.strategies.base import Event, Plan, Request
from ctxlab.strategies.mechanics import cuts, integrity, summary
from ctxlab.strategies.mechanics.context import real_user
from ctxlab.strategies.mechanics.voices import VOICES
from ctxlab.strategies.policy import attempts, tails
from ctxlab.strategies.policy.apply import Made, apply, bounds
from ctxlab.strategies.policy.frame import frame
from ctxlab.strategies.policy.job import Job
from ctxlab.strategies.policy.parts import Parts
from ctxlab.strategies.policy.pruning import pruned
from ctxlab.strategies.trigger import event_sizes
from ctxlab.summarize import Summarizer

MIDDLES = ("drop", "mask", "summarize")
TRAILING = ("none", "one", "all")
SCOPES = ("all", "history")
RETRIES = ("again", "keep_less")


def deferred(parts: Parts) -> bool:
    """Whether the trigger is checked here rather than before `plan` (pruning first, or a count of
    part of the request)."""
    return parts.prune.on or parts.scope != "all"


def plan(parts: Parts, engine: Summarizer, request: Request, window: int, drops_pinned: bool = False) -> Plan:
    """Compact `request` in `window` (its trigger fired, or is `deferred` here); `drops_pinned` lets
    the tail's selection alone decide what is kept (a faithful preset that declares it)."""
    job, events = pruned(parts.prune, Job(request, request.messages, window))
    voice = VOICES[parts.summary.voice]
    if not deferred(parts) or _fires(parts, job):
        run = _attempts if parts.retry == "keep_less" else _passes
        job, text, more = run(parts, engine, job, drops_pinned)
        events += more
    else:
        text = None
    if job.messages is request.messages:
        return Plan(request.messages, events, summary=summary.carried(request.messages, voice))
    events += integrity.exceptions(request.messages, job.messages)
    return Plan(job.messages, events, summary=text if text is not None else summary.carried(job.messages, voice))


def measure(parts: Parts, job: Job) -> int:
    """The request's tokens as the trigger counts them: all of it (tool definitions included), or
    with scope ``history`` the messages between the head and the newest user message."""
    counter = parts.trigger.counter
    if parts.scope != "history":
        return job.total(counter)
    messages = job.messages
    end = next((i for i in range(len(messages) - 1, -1, -1) if real_user(messages[i])), len(messages))
    return sum(job.counts(counter)[cuts.head_end(messages, parts.head.kind):end])


def _fires(parts: Parts, job: Job) -> bool:
    events = sum(event_sizes(job.messages)) if parts.trigger.events else 0
    return parts.trigger.fires(measure(parts, job), job.window, events)


def _passes(parts: Parts, engine: Summarizer, job: Job, drops_pinned: bool) -> tuple[Job, str | None, list[Event]]:
    """Up to `passes` compactions, while each still ends over the threshold and makes progress."""
    events: list[Event] = []
    text = None
    trigger = parts.trigger
    for n in range(parts.passes):
        step = _pass(parts, engine, job, drops_pinned)
        if step is None:
            break
        before = measure(parts, job)
        after_job = job.again(step.messages)
        after = measure(parts, after_job)
        if parts.refuse_growth and after > before:  # Gemini CLI: COMPRESSION_FAILED_INFLATED_TOKEN_COUNT
            events.append(Event("policy.refused", {"pass": n + 1, "tokens_before": before, "tokens_after": after}))
            break
        text = step.text if step.text is not None else text
        job = after_job
        events += [*step.events, Event("policy.compacted", {
            "pass": n + 1, "tokens_before": before, "tokens_after": after, "threshold": trigger.threshold(job.window),
            "window": job.window})]
        if not trigger.over(after, job.window) or after >= before:
            break
    return job, text, events


def _pass(parts: Parts, engine: Summarizer, job: Job, drops_pinned: bool) -> Made | None:
    """One compaction of `job.messages` by the policy's tail (None: nothing to do)."""
    head, start = bounds(parts, job)
    return apply(parts, engine, job, head, start, tails.select(job, head, start, parts), drops_pinned)


def _attempts(parts: Parts, engine: Summarizer, job: Job, drops_pinned: bool) -> tuple[Job, str | None, list[Event]]:
    """The same input compacted keeping less each time (`attempts`), as one ``policy.compacted``."""
    done = attempts.run(parts, engine, job, frame(parts, job), drops_pinned)
    if done.messages == job.messages:
        return job, None, []
    after_job = job.again(done.messages)
    window = job.window
    return after_job, summary.carried(done.messages, VOICES[parts.summary.voice]), [*done.events, Event(
        "policy.compacted", {"pass": done.attempts, "tokens_before": measure(parts, job),
                             "tokens_after": measure(parts, after_job), "threshold": parts.trigger.threshold(window),
                             "window": window, "fallback": done.fallback})]


__all__ = ["MIDDLES", "RETRIES", "SCOPES", "TRAILING", "deferred", "measure", "plan"]
