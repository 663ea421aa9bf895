"""What a `Policy` keeps once its trigger fired: up to ``passes`` compaction passes over the mechanics.

One pass: the kept head (`cuts.head_end`), the body after earlier summaries it folds, the tail's
`Selection` (`tails`), the pinned messages added back, trailing assistant messages stripped
(inspect_ai), the middle dropped, masked (`mask.clear_tool_results`) or summarized
(`summary.summarize`), and the summary placed (`summary.place`). Another pass runs while the
result is still over the trigger's threshold and the last one made progress (inspect_ai).
"""

from __future__ import annotations

from ctxlab.messages import Message
from ctxlab.strategies.base import Event, Plan, Request, summary_call
from ctxlab.strategies.mechanics import cuts, integrity, mask, summary
from ctxlab.strategies.mechanics.context import Selection, after_summaries
from ctxlab.strategies.mechanics.voices import VOICES
from ctxlab.strategies.policy import tails
from ctxlab.strategies.policy.job import Job
from ctxlab.strategies.policy.parts import Parts
from ctxlab.strategies.trigger import REQUEST
from ctxlab.summarize import Summarizer

MIDDLES = ("drop", "mask", "summarize")
TRAILING = ("none", "one", "all")
Pass = tuple[list[Message], str | None, list[Event]]


def plan(parts: Parts, engine: Summarizer, request: Request, window: int, drops_pinned: bool = False) -> Plan:
    """Compact `request` in `window` (its trigger fired); `drops_pinned` lets the tail's selection
    alone decide what is kept (a faithful preset that declares it)."""
    job, text, events = _passes(parts, engine, Job(request, request.messages, window), drops_pinned)
    voice = VOICES[parts.summary.voice]
    if job.messages is request.messages:
        return Plan(request.messages, events, summary=summary.carried(request.messages, voice))
    events += integrity.exceptions(request.messages, job.messages)
    return Plan(job.messages, events, summary=text if text is not None else summary.carried(job.messages, voice))


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
        text = step_text if step_text is not None else text
        before = job.total(trigger.counter)
        job = job.again(tuple(messages))
        after = job.total(trigger.counter)
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
    out = summary.place(job.messages, keep, replaced, note, parts.summary.placement, head, sel.anchor)
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
                            writing.input_tokens, job.counter(parts.trigger.counter))
    done = summary.summarize(job.messages, sel.fold, sel.prefix, engine, job.request.counter, voice, limits)
    gone = [i for i in (*sel.fold, *sel.prefix) if i not in keep]
    note = summary.message(job.messages, done.text, gone, voice) if done.text else None
    calls = [summary_call(part, c) for part, c in done.calls]
    if writing.billed and not calls and note is not None:  # the source's own summarization pass
        calls.append(summary.billed_pass(job.total(REQUEST), job.request.counter.count(done.text), writing.model))
    return note, calls


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


__all__ = ["MIDDLES", "TRAILING", "plan"]
