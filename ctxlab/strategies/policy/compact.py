"""What a `Policy` keeps once its trigger fired: up to ``passes`` compaction passes over the mechanics.

A policy that prunes (`mechanics.prune`: Gemini CLI's masking, opencode's prune) does it first, on
every call; its trigger then measures the pruned request (and `Policy.fires` leaves the decision
here, as it does for a trigger that counts only the history, Aider's).

One pass: the kept head (`cuts.head_end`), the body after earlier summaries it folds, the tail's
`Selection` (`tails`), the pinned messages added back, trailing assistant messages stripped
(inspect_ai), the middle dropped, masked (`mask.clear_tool_results`) or summarized
(`summary.summarize`), and the summary placed (`summary.place`) with the messages its voice puts
around it (`notes.notes`). Another pass runs while the result is still over the trigger's
threshold and the last one made progress (inspect_ai); a pass that would make the request larger
is undone when the policy refuses growth (Gemini CLI).
"""

from __future__ import annotations

from ctxlab.messages import Message
from ctxlab.strategies.base import Event, Plan, Request, summary_call
from ctxlab.strategies.mechanics import cuts, integrity, mask, summary
from ctxlab.strategies.mechanics.context import Selection, after_summaries, real_user
from ctxlab.strategies.mechanics.notes import clip_chars, notes
from ctxlab.strategies.mechanics.voices import VOICES
from ctxlab.strategies.policy import tails
from ctxlab.strategies.policy.job import Job
from ctxlab.strategies.policy.parts import Parts
from ctxlab.strategies.policy.pruning import pruned
from ctxlab.strategies.trigger import REQUEST, event_sizes
from ctxlab.summarize import Summarizer

MIDDLES = ("drop", "mask", "summarize")
TRAILING = ("none", "one", "all")
SCOPES = ("all", "history")
Pass = tuple[list[Message], str | None, list[Event]]


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
        job, text, more = _passes(parts, engine, job, drops_pinned)
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
        messages, step_text, step_events = step
        before = measure(parts, job)
        after_job = job.again(tuple(messages))
        after = measure(parts, after_job)
        if parts.refuse_growth and after > before:  # Gemini CLI: COMPRESSION_FAILED_INFLATED_TOKEN_COUNT
            events.append(Event("policy.refused", {"pass": n + 1, "tokens_before": before, "tokens_after": after}))
            break
        text = step_text if step_text is not None else text
        job = after_job
        events += [*step_events, Event("policy.compacted", {
            "pass": n + 1, "tokens_before": before, "tokens_after": after, "threshold": trigger.threshold(job.window),
            "window": job.window})]
        if not trigger.over(after, job.window) or after >= before:
            break
    return job, text, events


def _pass(parts: Parts, engine: Summarizer, job: Job, drops_pinned: bool) -> Pass | None:
    """One compaction of `job.messages`: (messages, summary text, events), None when nothing to do."""
    head = cuts.head_end(job.messages, parts.head.kind)
    start = after_summaries(job.messages, head) if parts.head.fold_previous else head
    sel = tails.select(job, head, start, parts)
    if sel is None or (parts.middle.kind == "summarize" and not (sel.fold or sel.prefix or sel.replaced)):
        return None
    sel = sel._replace(fold=(*range(head, start), *sel.fold))  # earlier summaries merge into the new one
    keep = set(sel.keep) if drops_pinned else set(sel.keep) | job.pinned
    keep = _strip_trailing(job, keep, parts.strip_trailing_assistant)
    replaced = {**sel.replaced, **_masks(parts, job, keep)}
    note, events = _summary(parts, engine, job, sel, keep)
    block = _block(parts, job, keep, note, head, sel.anchor)
    out = summary.place(job.messages, keep, replaced, block, parts.summary.placement, head, sel.anchor)
    if tuple(out) == job.messages:
        return None
    voice = VOICES[parts.summary.voice]
    return out, (summary.carried([note], voice) if note else None), events


def _masks(parts: Parts, job: Job, keep: set[int]) -> dict[int, Message]:
    """The cleared tool results among the kept messages (middle ``mask``): of the tools it may
    clear, with their calls' inputs when it clears those, and only when that frees at least
    ``at_least`` tokens under the trigger's counter."""
    middle = parts.middle
    if middle.kind != "mask":
        return {}
    kept = sorted(keep)
    messages = [job.messages[i] for i in kept]
    masked = mask.clear_tool_results(messages, middle.mask_keep, middle.mask_placeholder, middle.mask_order,
                                     middle.tools)
    if middle.inputs:
        masked |= mask.clear_inputs(messages, masked)
    if middle.at_least:
        counts = job.counts(parts.trigger.counter)
        masked = mask.at_least(masked, [counts[i] for i in kept], job.counter(parts.trigger.counter).count_message,
                               middle.at_least)
    return {kept[i]: m for i, m in masked.items()}


def _summary(parts: Parts, engine: Summarizer, job: Job, sel: Selection,
             keep: set[int]) -> tuple[Message | None, list[Event]]:
    """The summary message of the fold (middle ``summarize``) and one ``summary_call`` event per LLM call."""
    if parts.middle.kind != "summarize":
        return None, []
    writing, voice = parts.summary, VOICES[parts.summary.voice]
    limits = summary.Limits(sel.summary_cap or writing.max_tokens, writing.prefix_max_tokens or writing.max_tokens,
                            writing.input_tokens, job.counter(parts.trigger.counter), writing.input_reduce)
    done = summary.summarize(job.messages, sel.fold, sel.prefix, engine, job.request.counter, voice, limits)
    gone = [i for i in (*sel.fold, *sel.prefix) if i not in keep]
    text = clip_chars(done.text, writing.max_chars, voice.clip_suffix)
    # Letta's note names the messages hidden: those before less those after (the summary counted)
    note = summary.message(job.messages, text, gone, voice, len(job.messages) - len(keep) - 1) if text else None
    calls = [summary_call(part, c) for part, c in done.calls]
    if writing.billed and not calls and note is not None:  # the source's own summarization pass
        calls.append(summary.billed_pass(job.total(REQUEST), job.request.counter.count(text), writing.model))
    return note, calls


def _block(parts: Parts, job: Job, keep: set[int], note: Message | None, head: int,
           anchor: int | None) -> list[Message]:
    """The summary with the messages its voice places around it (none without a summary)."""
    if note is None:
        return []
    messages = job.messages
    at = summary.position(messages, parts.summary.placement, head, anchor)
    user = next((i for i in range(len(messages) - 1, -1, -1) if real_user(messages[i])), None)
    after = [i for i in sorted(keep) if i >= at]
    alone = not after or (user is not None and after[0] >= user)
    return notes(note, VOICES[parts.summary.voice], alone=alone, in_loop=user is not None and user < len(messages) - 1)


def _strip_trailing(job: Job, keep: set[int], how: str) -> set[int]:
    """inspect_ai: drop trailing assistant messages (one, or all) that are not pinned."""
    if how == "none":
        return keep
    ordered = sorted(keep)
    while ordered and job.messages[ordered[-1]].role == "assistant" and ordered[-1] not in job.pinned:
        ordered.pop()
        if how == "one":
            break
    return set(ordered)


__all__ = ["MIDDLES", "SCOPES", "TRAILING", "deferred", "measure", "plan"]
