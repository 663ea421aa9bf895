"""`Policy`: a compaction policy as data, a composition of the shared mechanics of this package.

Every field is a parameter of one mechanic (see the modules named):

==================  ==========================================================================
trigger             `window`: ``context_window``/``model``, ``trigger`` (always, share, reserve,
                    tokens), ``trigger_value``, ``trigger_inclusive``, ``trigger_events`` (also
                    compact above this many events), ``trigger_counter`` (the agent's counter)
kept head           `cuts`: ``head`` (system, first_system, input, none), ``keep_first`` (events),
                    ``fold_previous`` (earlier summaries right after the head are merged)
kept tail           `tails`: ``tail`` (all, none, recent_tokens, recent_messages, user_messages,
                    share, fit, events, budget), ``tail_value``, ``tail_counter``, ``start_on_user``,
                    ``repair_orphans``, ``strip_trailing_assistant``
cut snapping        `cuts`: ``snap`` (none, valid_cut, owner, group_start), ``split_turns``
middle              ``middle`` (drop, mask, summarize); `mask`: ``mask_keep``, ``mask_placeholder``,
                    ``mask_order``; `summary`: ``summarizer``, ``voice``, ``summary_max_tokens``,
                    ``prefix_max_tokens``, ``summary_input_tokens``
placement           `summary`: ``placement`` (after_head, cut, end); the wrapper is the voice's
passes              ``passes``: compact again while still over the threshold (inspect_ai)
==================  ==========================================================================

A preset is a `Policy` subclass with other defaults (`preset`). Class attributes declare what a
faithful preset does that ctxlab's invariants forbid (``breaks_tool_pairs``, ``drops_pinned``);
otherwise the pinned messages (system prompt, newest user message) are always kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from ctxlab.messages import Message
from ctxlab.strategies.base import BaseStrategy, Event, Plan, Request, register, summary_call
from ctxlab.strategies.policy import cuts, integrity, mask, summary, tails, voices, window
from ctxlab.strategies.policy.events import event_sizes
from ctxlab.strategies.policy.job import Job, Selection
from ctxlab.summarize import Summarizer

MIDDLES = ("drop", "mask", "summarize")
TRAILING = ("none", "one", "all")


@register("policy")
@dataclass(frozen=True)
class Policy(BaseStrategy):
    """A compaction policy composed of shared mechanics (see the module docstring for the fields)."""

    context_window: int = 0
    model: str = ""
    trigger: str = "always"
    trigger_value: float = 0.0
    trigger_inclusive: bool = False
    trigger_events: int = 0
    trigger_counter: str = window.REFERENCE
    head: str = "system"
    keep_first: int = 0
    fold_previous: bool = False
    tail: str = "all"
    tail_value: float = 0.0
    tail_counter: str = window.REFERENCE
    start_on_user: bool = False
    repair_orphans: bool = False
    strip_trailing_assistant: str = "none"
    snap: str = "none"
    split_turns: bool = False
    middle: str = "drop"
    mask_keep: int = 3
    mask_placeholder: str = "[cleared]"
    mask_order: str = "results"
    summarizer: Any = "extractive"
    voice: str = "ctxlab"
    summary_max_tokens: int = 2000
    prefix_max_tokens: int = 0
    summary_input_tokens: int = 0
    placement: str = "after_head"
    passes: int = 1

    building_block: ClassVar[bool] = True  # the raw model keeps everything; presets subclass it
    breaks_tool_pairs: ClassVar[bool] = False
    drops_pinned: ClassVar[bool] = False
    source: ClassVar[Any] = None
    about: ClassVar[str] = ""

    def __post_init__(self) -> None:
        choices = {"trigger": window.TRIGGERS, "head": cuts.HEADS, "tail": tuple(tails.TAILS), "snap": cuts.SNAPS,
                   "middle": MIDDLES, "mask_order": mask.ORDERS, "voice": tuple(voices.VOICES),
                   "placement": summary.PLACEMENTS, "strip_trailing_assistant": TRAILING}
        for name, valid in choices.items():
            if getattr(self, name) not in valid:
                raise ValueError(f"{name} must be one of {', '.join(valid)}, not {getattr(self, name)!r}")
        if self.passes < 1 or self.summary_max_tokens < 1:
            raise ValueError("passes and summary_max_tokens must be at least 1")
        window.window_of(1, self.context_window, self.model)  # an unknown model fails now, not mid-replay
        if self.may_break_tool_pairs and not self.breaks_tool_pairs:
            raise ValueError(f"tail={self.tail} with snap={self.snap} can orphan tool results; use a snap (or "
                             "repair_orphans, start_on_user), or a preset class that declares breaks_tool_pairs")

    @property
    def may_break_tool_pairs(self) -> bool:
        """Whether this composition can keep a tool result without its call (or the reverse)."""
        cut = self.tail in ("recent_tokens", "recent_messages") and self.snap == "none"
        return cut or (self.tail == "share" and not self.repair_orphans) or (self.tail == "fit" and not self.start_on_user)

    @cached_property
    def engine(self) -> Summarizer:
        """The summarizer, in the policy's voice."""
        return summary.engine(self.summarizer, self.voice)

    def plan(self, request: Request) -> Plan:
        job = Job(self, request, request.messages, window.window_of(request.budget, self.context_window, self.model))
        limit = window.threshold(self.trigger, self.trigger_value, job.window, self.trigger_inclusive)
        if not self._fires(job, limit):
            return Plan(request.messages, summary=self._summary_of(request.messages))
        job, text, events = self._compact(job, limit)
        if job.messages is request.messages:
            return Plan(request.messages, events, summary=self._summary_of(request.messages))
        events += integrity.exceptions(request.messages, job.messages)
        return Plan(job.messages, events, summary=text if text is not None else self._summary_of(job.messages))

    def _compact(self, job: Job, limit: window.Threshold) -> tuple[Job, str | None, list[Event]]:
        """Up to `passes` compactions, while each still ends over the threshold and makes progress."""
        events: list[Event] = []
        text = None
        for n in range(self.passes):
            step = self._pass(job)
            if step is None:
                break
            messages, step_text, step_events = step
            text = step_text if step_text is not None else text
            before = job.total(self.trigger_counter)
            job = Job(self, job.request, tuple(messages), job.window)
            after = job.total(self.trigger_counter)
            events += [*step_events, Event("policy.compacted", {
                "pass": n + 1, "tokens_before": before, "tokens_after": after, "threshold": limit.tokens,
                "window": job.window})]
            if not limit.fires(after) or after >= before:
                break
        return job, text, events

    def _fires(self, job: Job, limit: window.Threshold) -> bool:
        if self.trigger_events and sum(event_sizes(job.messages)) > self.trigger_events:
            return True
        return limit.tokens is None or limit.fires(job.total(self.trigger_counter))

    def _pass(self, job: Job) -> tuple[list[Message], str | None, list[Event]] | None:
        """One compaction of `job.messages`: (messages, summary text, events), None when nothing to do."""
        head = cuts.head_end(job.messages, self.head)
        start = head
        while self.fold_previous and start < len(job.messages) and job.messages[start].mark == "summary":
            start += 1
        sel = tails.select(job, self.tail, head, start)
        if sel is None or (self.middle == "summarize" and not (sel.fold or sel.prefix or sel.replaced)):
            return None
        sel = sel._replace(fold=(*range(head, start), *sel.fold))  # earlier summaries merge into the new one
        keep = self._strip_trailing(job, set(sel.keep) if self.drops_pinned else set(sel.keep) | job.pinned)
        replaced = {**sel.replaced, **self._masks(job, keep)}
        note, events = self._summary(job, sel, keep)
        out = summary.place(job, keep, replaced, note, self.placement, head, sel.anchor)
        if tuple(out) == job.messages:
            return None
        return out, (summary_text(note, self.voice) if note else None), events

    def _masks(self, job: Job, keep: set[int]) -> dict[int, Message]:
        """The cleared tool results among the kept messages (middle ``mask``)."""
        if self.middle != "mask":
            return {}
        kept = sorted(keep)
        masked = mask.clear_tool_results([job.messages[i] for i in kept], self.mask_keep, self.mask_placeholder,
                                         self.mask_order)
        return {kept[i]: m for i, m in masked.items()}

    def _summary(self, job: Job, sel: Selection, keep: set[int]) -> tuple[Message | None, list[Event]]:
        """The summary message of the fold (middle ``summarize``) and its LLM calls' events."""
        if self.middle != "summarize":
            return None, []
        done = summary.summarize(job, sel.fold, sel.prefix, self.engine, sel.summary_cap)
        gone = [i for i in (*sel.fold, *sel.prefix) if i not in keep]
        return (summary.message(job, done.text, gone) if done.text else None), _call_events(done)

    def _strip_trailing(self, job: Job, keep: set[int]) -> set[int]:
        """inspect_ai: drop trailing assistant messages (one, or all) that are not pinned."""
        if self.strip_trailing_assistant == "none":
            return keep
        ordered = sorted(keep)
        while ordered and job.messages[ordered[-1]].role == "assistant" and ordered[-1] not in job.pinned:
            ordered.pop()
            if self.strip_trailing_assistant == "one":
                break
        return set(ordered)

    def _summary_of(self, messages: tuple[Message, ...]) -> str | None:
        """The summary a context carries (its newest summary message's), if any."""
        carried = next((m for m in reversed(messages) if m.mark == "summary"), None)
        return summary_text(carried, self.voice) if carried is not None else None


def summary_text(note: Message, voice: str) -> str:
    """The summary inside a summary message written in `voice`."""
    return voices.unwrap_voice(voices.VOICES[voice], note.text)


def _call_events(done: summary.Summary) -> list[Event]:
    """One ``summary_call`` event per LLM call, with the usage the replay sums."""
    return [summary_call(part, c) for part, c in done.calls]


__all__ = ["Policy", "summary_text"]
