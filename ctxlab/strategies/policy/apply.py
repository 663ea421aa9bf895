"""One compaction of a job's messages from a tail's `Selection`: what every pass and every attempt
makes (`compact` runs the passes, `attempts` the attempts over candidate cuts).

The kept head (`cuts.head_end`), the body after earlier summaries it folds, the selection's kept
messages with the pinned ones added back, trailing assistant messages stripped (inspect_ai), the
middle dropped, masked (`mask.clear_tool_results`) or summarized by the policy's writer
(`summary.summarize`, each part its own cap, or `split_cap.write`, one cap shared), and the summary
placed (`summary.place`) with the messages its voice puts around it (`notes.notes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.base import Event, summary_call
from ctxlab.strategies.mechanics import cuts, mask, summary
from ctxlab.strategies.mechanics.context import Selection, after_summaries, real_user
from ctxlab.strategies.mechanics.notes import clip_chars, notes
from ctxlab.strategies.mechanics.summary import Summary
from ctxlab.strategies.mechanics.voices import VOICES
from ctxlab.strategies.policy import split_cap
from ctxlab.strategies.policy.job import Job
from ctxlab.strategies.policy.parts import Parts
from ctxlab.strategies.trigger import REQUEST
from ctxlab.summarize import Summarizer

WRITERS = ("own", "shared")  # each summary part its own cap (pi-mono), or one cap shared (seed 001)


class Made(NamedTuple):
    """What one compaction made: the messages, its summary's text (None: none), its events (one
    ``summary_call`` per LLM call), the indices it summarized away, how many leading messages are
    the head and the summary's, whether it split a turn, the summarizer's error and its fallback."""

    messages: tuple[Message, ...]
    text: str | None
    events: tuple[Event, ...]
    summarized: tuple[int, ...]
    head: int
    split: bool = False
    error: str | None = None
    fallback: str | None = None


class Written(NamedTuple):
    """The summary message (None: no text), its events and the writer's error."""

    note: Message | None
    events: tuple[Event, ...]
    error: str | None


def bounds(parts: Parts, job: Job) -> tuple[int, int]:
    """The head's end and the body's start (after the earlier summaries the policy folds)."""
    head = cuts.head_end(job.messages, parts.head.kind)
    return head, (after_summaries(job.messages, head) if parts.head.fold_previous else head)


def apply(parts: Parts, engine: Summarizer, job: Job, head: int, start: int, sel: Selection | None,
          drops_pinned: bool) -> Made | None:
    """Compact `job.messages` as `sel` says; None when there is nothing to do, or the summarizer failed
    and the policy drops the summary then."""
    if sel is None or (parts.middle.kind == "summarize" and not (sel.fold or sel.prefix or sel.replaced)):
        return None
    sel = sel._replace(fold=(*range(head, start), *sel.fold))  # earlier summaries merge into the new one
    keep = set(sel.keep) if drops_pinned else set(sel.keep) | job.pinned
    keep = _strip_trailing(job, keep, parts.strip_trailing_assistant)
    replaced = {**sel.replaced, **_masks(parts, job, keep)}
    gone = tuple(i for i in (*sel.fold, *sel.prefix) if i not in keep)
    written = _summary(parts, engine, job, sel, start - head, gone, keep)
    if written is None:
        return None
    block = _block(parts, job, keep, written.note, head, sel.anchor)
    out = tuple(summary.place(job.messages, keep, replaced, block, parts.summary.placement, head, sel.anchor))
    if out == job.messages:
        return None
    at = summary.position(job.messages, parts.summary.placement, head, sel.anchor)
    text = summary.carried([written.note], VOICES[parts.summary.voice]) if written.note else None
    return Made(out, text, written.events, gone, sum(1 for i in keep if i < at) + len(block), bool(sel.prefix),
                written.error, "extractive" if written.error else None)


def write(parts: Parts, engine: Summarizer, job: Job, fold: Sequence[int], carried: int, prefix: Sequence[int],
          cap: int, gone: Sequence[int], evicted: int) -> Written | None:
    """The summary of ``fold`` (its first `carried` are earlier summaries) and a split turn's
    ``prefix`` within `cap` tokens, as the message standing for ``gone``; None when a call failed and
    the policy drops the summary then (``on_error="drop"``)."""
    writing, voice = parts.summary, VOICES[parts.summary.voice]
    done: Summary | None
    if writing.split == "shared":
        caps = split_cap.Caps(cap, writing.max_chars, job.request.counter)
        done = split_cap.write(job.messages, fold, carried, prefix, engine, voice, caps, writing.on_error)
    else:
        limits = summary.Limits(cap, writing.prefix_max_tokens or writing.max_tokens, writing.input_tokens,
                                job.counter(parts.trigger.counter), writing.input_reduce)
        done = summary.summarize(job.messages, fold, prefix, engine, job.request.counter, voice, limits)
        done = None if done.error and writing.on_error == "drop" else done
    if done is None:
        return None
    text = clip_chars(done.text, writing.max_chars, voice.clip_suffix)
    note = summary.message(job.messages, text, gone, voice, evicted) if text else None
    events = [summary_call(part, c) for part, c in done.calls]
    if writing.billed and not events and note is not None:  # the source's own summarization pass
        events.append(summary.billed_pass(job.total(REQUEST), job.request.counter.count(text), writing.model))
    return Written(note, tuple(events), done.error)


def _summary(parts: Parts, engine: Summarizer, job: Job, sel: Selection, carried: int, gone: Sequence[int],
             keep: set[int]) -> Written | None:
    """The summary of the selection's fold (middle ``summarize``; none for another middle)."""
    if parts.middle.kind != "summarize":
        return Written(None, (), None)
    # Letta's note names the messages hidden: those before less those after (the summary counted)
    return write(parts, engine, job, sel.fold, carried, sel.prefix, sel.summary_cap or parts.summary.max_tokens,
                 gone, len(job.messages) - len(keep) - 1)


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


__all__ = ["WRITERS", "Made", "Written", "apply", "bounds", "write"]
