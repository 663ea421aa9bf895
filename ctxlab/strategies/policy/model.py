"""`Policy`: a compaction policy as data, a composition of the shared mechanics.

Every field is a flat, command-line friendly parameter of one mechanic; `Policy.parts` maps them
onto the mechanics' typed arguments, in this one place:

==================  ==========================================================================
when (`Trigger`)    ``context_window``/``model`` (the window), ``trigger`` (always, share,
                    reserve, tokens, idle) with its own size: ``trigger_share``,
                    ``trigger_reserve``, ``trigger_tokens`` or ``trigger_idle_minutes``;
                    ``trigger_reply`` (room for the reply, at most the model's max output),
                    ``trigger_min_tokens``/``trigger_max_tokens`` (bounds of a share or reserve
                    threshold), ``trigger_inclusive``, ``trigger_events`` (also compact above this
                    many events), ``trigger_counter`` (the agent's counter), ``trigger_recorded``
                    (anchor on the provider usage an agent log recorded), ``trigger_scope``
                    (``all``, or ``history``: the messages between the head and the newest user
                    message)
pruning             `prune` (every call, before the trigger): ``prune`` on, the newest
                    ``prune_protect_tokens`` of tool output kept, the older ones become
                    ``prune_placeholder`` when they reach ``prune_min_tokens`` (``>=`` with
                    ``prune_inclusive``); ``prune_skip_messages``/``prune_skip_turns`` (never
                    touched), ``prune_exempt`` (tool names), ``prune_counter``,
                    ``prune_stop_at_pruned``
kept head           `cuts`: ``head`` (system, first_system, input, none), ``keep_first`` (events),
                    ``fold_previous`` (earlier summaries right after the head are merged)
kept tail           `tails`: ``tail`` (all, none, recent_tokens, recent_messages, rounds,
                    user_messages, share, fit, events, budget, char_share, safe_cut, history_half,
                    evict) with its own size: ``keep_tokens``, ``keep_messages``, ``keep_rounds``,
                    ``keep_message_share``, ``target_share``, ``min_progress``,
                    ``keep_char_share`` or ``evict_share``;
                    ``tail_counter``, ``start_on_user``, ``repair_orphans``,
                    ``strip_trailing_assistant``; ``results_budget_tokens`` of the newest tool
                    outputs stay whole, older ones are cut to ``results_cut_chars`` (char_share)
cut snapping        `cuts`: ``snap`` (none, valid_cut, owner, group_start), ``split_turns``
middle              ``middle`` (drop, mask, summarize); `mask`: ``mask_keep``, ``mask_placeholder``,
                    ``mask_order``, ``mask_include``/``mask_exclude`` (tool names; a string
                    separates them with ``|``), ``mask_at_least`` (tokens), ``mask_inputs``;
                    `summary`: ``summarizer``, ``voice``, ``summary_max_tokens``,
                    ``summary_max_chars``, ``prefix_max_tokens``, ``summary_input_tokens`` (cut
                    as ``summary_input_reduce`` says), ``summary_instructions``;
                    ``summary_split`` (own: a split turn's prefix has its own cap; shared: one
                    cap, a third of it for the prefix, `split_cap`), ``summary_on_error``
                    (offline: a failed call falls back to the offline summarizer; drop: no summary)
placement           `summary`: ``placement`` (after_head, cut, end); the wrapper is the voice's
passes              ``passes``: compact again while still over the threshold (inspect_ai);
                    ``refuse_growth``: a compaction that would grow the request is not made;
                    ``retry`` (again: the next pass compacts the output; keep_less: the same
                    input, keeping less each time until the summary has room, `attempts`)
==================  ==========================================================================

A preset is a `Policy` subclass with other defaults (`preset`). Class attributes declare what a
faithful preset does that ctxlab's invariants forbid (``breaks_tool_pairs``, ``drops_pinned``);
otherwise the pinned messages (system prompt, newest user message) are always kept. Others:
``minimums`` (fields the source refuses below a value, with why), ``bills_summary`` (the source
bills its summarization pass even when ctxlab summarizes offline: an estimated ``summary_call``).
Specs stored before the fields were split by unit (``trigger_value``, ``tail_value``) still build
(`legacy`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any, ClassVar

from ctxlab.models import max_output_tokens
from ctxlab.strategies.base import BaseStrategy, Event, Plan, Request
from ctxlab.strategies.mechanics import agent_llm, cuts, mask, summary, voices
from ctxlab.strategies.policy import apply, attempts, compact, legacy, split_cap, tails
from ctxlab.strategies.policy.parts import Head, Middle, Parts, Prune, Tail, Writing
from ctxlab.strategies.registry import register
from ctxlab.strategies.signals import RECORDED, idle_gap
from ctxlab.strategies.trigger import KINDS, REQUEST, Trigger, window_of
from ctxlab.summarize import Summarizer

CHOICES = {"trigger": KINDS, "head": cuts.HEADS, "tail": tuple(tails.TAILS), "snap": tuple(cuts.SNAPS),
           "middle": compact.MIDDLES, "mask_order": mask.ORDERS, "voice": tuple(voices.VOICES),
           "placement": summary.PLACEMENTS, "strip_trailing_assistant": compact.TRAILING,
           "trigger_recorded": RECORDED, "trigger_scope": compact.SCOPES, "summary_input_reduce": summary.REDUCTIONS,
           "summary_split": apply.WRITERS, "summary_on_error": split_cap.ON_ERROR, "retry": compact.RETRIES}
UNTIMED = "trigger.untimed"  # an idle trigger on messages without timestamps (it cannot fire)
NAMES = ("mask_include", "mask_exclude")  # tool-name lists: a string separates names with "|"


@register("policy")
@dataclass(frozen=True)
class Policy(BaseStrategy):
    """A compaction policy composed of shared mechanics (see the module docstring for the fields)."""

    context_window: int = 0
    model: str = ""
    trigger: str = "always"
    trigger_share: float = 0.0
    trigger_reserve: int = 0
    trigger_tokens: int = 0
    trigger_reply: int = 0
    trigger_min_tokens: int = 0
    trigger_max_tokens: int = 0
    trigger_inclusive: bool = False
    trigger_events: int = 0
    trigger_counter: str = REQUEST
    trigger_recorded: str = "none"
    trigger_idle_minutes: float = 0.0
    trigger_scope: str = "all"
    prune: bool = False
    prune_protect_tokens: int = 0
    prune_min_tokens: int = 0
    prune_inclusive: bool = True
    prune_skip_messages: int = 0
    prune_skip_turns: int = 0
    prune_exempt: tuple[str, ...] = ()
    prune_counter: str = REQUEST
    prune_placeholder: str = "[cleared]"
    prune_stop_at_pruned: bool = False
    head: str = "system"
    keep_first: int = 0
    fold_previous: bool = False
    tail: str = "all"
    keep_tokens: int = 0
    keep_messages: int = 0
    keep_rounds: int = 0
    keep_message_share: float = 0.0
    target_share: float = 0.0
    min_progress: float = 0.0
    keep_char_share: float = 0.0
    evict_share: float = 0.0
    results_budget_tokens: int = 0
    results_cut_chars: int = 0
    tail_counter: str = REQUEST
    start_on_user: bool = False
    repair_orphans: bool = False
    strip_trailing_assistant: str = "none"
    snap: str = "none"
    split_turns: bool = False
    middle: str = "drop"
    mask_keep: int = 3
    mask_placeholder: str = "[cleared]"
    mask_order: str = "results"
    mask_include: tuple[str, ...] = ()
    mask_exclude: tuple[str, ...] = ()
    mask_at_least: int = 0
    mask_inputs: bool = False
    summarizer: Any = "extractive"
    voice: str = "ctxlab"
    summary_max_tokens: int = 2000
    summary_max_chars: int = 0
    prefix_max_tokens: int = 0
    summary_input_tokens: int = 0
    summary_instructions: str = ""
    summary_input_reduce: str = "oldest"
    summary_split: str = "own"
    summary_on_error: str = "offline"
    placement: str = "after_head"
    passes: int = 1
    refuse_growth: bool = False
    retry: str = "again"

    building_block: ClassVar[bool] = True  # the raw model keeps everything; presets subclass it
    breaks_tool_pairs: ClassVar[bool] = False
    drops_pinned: ClassVar[bool] = False
    minimums: ClassVar[tuple[tuple[str, float, str], ...]] = ()
    bills_summary: ClassVar[bool] = False
    source: ClassVar[Any] = None
    about: ClassVar[str] = ""

    def __post_init__(self) -> None:
        for name, valid in CHOICES.items():
            if getattr(self, name) not in valid:
                raise ValueError(f"{name} must be one of {', '.join(valid)}, not {getattr(self, name)!r}")
        if self.passes < 1 or self.summary_max_tokens < 1:
            raise ValueError("passes and summary_max_tokens must be at least 1")
        self._check_sources_limits()
        self._check_retry_writer()
        window_of(1, self.context_window, self.model)  # an unknown model fails now, not mid-replay
        if self.may_break_tool_pairs and not self.breaks_tool_pairs:
            raise ValueError(f"tail={self.tail} with snap={self.snap} can orphan tool results; use a snap (or "
                             "repair_orphans, start_on_user), or a preset class that declares breaks_tool_pairs")

    def _check_sources_limits(self) -> None:
        """Tool-name lists from a command line, instructions only for a voice that reads them, and
        what the source refuses (`minimums`)."""
        for name in NAMES:
            value = getattr(self, name)
            if isinstance(value, str):  # "Read|Bash" from a command-line spec
                object.__setattr__(self, name, tuple(n for n in value.split("|") if n))
        if self.summary_instructions and self.voice not in agent_llm.INSTRUCTED:
            raise ValueError(f"summary_instructions are read by the {', '.join(agent_llm.INSTRUCTED)} voices, "
                             f"not {self.voice!r}")
        for name, least, why in self.minimums:
            if getattr(self, name) < least:
                raise ValueError(f"{name} must be at least {least:g} ({why}), not {getattr(self, name)!r}")

    def _check_retry_writer(self) -> None:
        """The ``rounds`` tail keeps a round at least; ``keep_less`` shrinks a tail that has a size to
        shrink; the shared-cap writer writes the summary alone (no voice's file lists after it)."""
        if self.tail == "rounds" and self.keep_rounds < 1:
            raise ValueError(f"tail=rounds keeps keep_rounds >= 1 rounds, not {self.keep_rounds}")
        if self.retry == "keep_less" and self.tail not in attempts.SHRINKING:
            raise ValueError(f"retry=keep_less shrinks the tail {' or '.join(attempts.SHRINKING)}, not {self.tail}")
        voice = voices.VOICES[self.voice]
        if self.summary_split == "shared" and (voice.file_tags or voice.files_section):
            raise ValueError(f"summary_split=shared writes no file lists; the {self.voice} voice appends them "
                             "(use summary_split=own)")

    @classmethod
    def upgrade_params(cls, params: dict[str, Any]) -> dict[str, Any]:
        return legacy.upgrade({f.name: f.default for f in fields(cls)}, params)

    @property
    def may_break_tool_pairs(self) -> bool:
        """Whether this composition can keep a tool result without its call (or the reverse)."""
        cut = self.tail in ("recent_tokens", "recent_messages") and self.snap == "none"
        return cut or (self.tail == "share" and not self.repair_orphans) or (self.tail == "fit" and not self.start_on_user)

    @cached_property
    def parts(self) -> Parts:
        """The fields as the mechanics' arguments (the one place they are mapped)."""
        return Parts(
            trigger=Trigger(self.trigger, self.trigger_share, self.trigger_reserve, self.trigger_tokens,
                            self.trigger_inclusive, self.trigger_events, self.trigger_counter, self._reply(),
                            self.trigger_recorded, self.trigger_idle_minutes, self.trigger_min_tokens,
                            self.trigger_max_tokens),
            head=Head(self.head, self.keep_first, self.fold_previous),
            tail=Tail(self.tail, self.tail_counter, self.keep_tokens, self.keep_messages, self.keep_message_share,
                      self.target_share, self.min_progress, self.snap, self.split_turns, self.start_on_user,
                      self.repair_orphans, self.keep_char_share, self.evict_share, self.results_budget_tokens,
                      self.results_cut_chars, self._max_output(), self.keep_rounds),
            middle=Middle(self.middle, self.mask_keep, self.mask_placeholder, self.mask_order,
                          mask.Clearable(self.mask_include, self.mask_exclude), self.mask_at_least, self.mask_inputs),
            summary=Writing(self.voice, self.summary_max_tokens, self.prefix_max_tokens, self.summary_input_tokens,
                            self.placement, self.summary_max_chars, self.summary_input_reduce,
                            self.bills_summary, self.model, self.summary_split, self.summary_on_error),
            strip_trailing_assistant=self.strip_trailing_assistant, passes=self.passes,
            prune=Prune(self.prune, self.prune_protect_tokens, self.prune_min_tokens, self.prune_inclusive,
                        self.prune_skip_messages, self.prune_skip_turns, tuple(self.prune_exempt), self.prune_counter,
                        self.prune_placeholder, self.prune_stop_at_pruned),
            scope=self.trigger_scope, refuse_growth=self.refuse_growth, retry=self.retry)

    def _reply(self) -> int:
        """The reply's room: ``trigger_reply``, at most the model's max output tokens when it is known."""
        most = max_output_tokens(self.model) if self.model and self.trigger_reply else None
        return min(self.trigger_reply, most) if most else self.trigger_reply

    def _max_output(self) -> int:
        """The model's max output tokens (0: no model, or litellm does not know it)."""
        return (max_output_tokens(self.model) or 0) if self.model else 0

    @cached_property
    def engine(self) -> Summarizer:
        """The summarizer, in the policy's voice."""
        return summary.engine(self.summarizer, self.voice, self.summary_instructions)

    def when(self) -> Trigger:
        return self.parts.trigger

    def fires(self, request: Request) -> bool:
        # A policy that prunes first, or counts part of the request, decides in `plan`.
        return compact.deferred(self.parts) or super().fires(request)

    def window(self, budget: int) -> int:
        return window_of(budget, self.context_window, self.model)

    def idle(self, request: Request) -> Plan:
        # An idle trigger that cannot measure the gap says so: it never fires without timestamps.
        blind = self.trigger == "idle" and idle_gap(request.messages) is None
        events = (Event(UNTIMED, {"reason": "no timestamp on the newest message or the newest assistant message"}),)
        return Plan(request.messages, events if blind else (),
                    summary=summary.carried(request.messages, voices.VOICES[self.voice]))

    def plan(self, request: Request) -> Plan:
        return compact.plan(self.parts, self.engine, request, self.window(request.budget), self.drops_pinned)


__all__ = ["CHOICES", "UNTIMED", "Policy"]
